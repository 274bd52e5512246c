#!/usr/bin/env bash
# make demo: the main job, in the test VM. Installs what it needs, builds
# (or reuses) the test-VM kernel, boots it with xmemsim loaded and runs
# scripts/demo-guest.sh there.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
exec "$REPO/scripts/vm.sh" --timeout 600 -- sh /work/scripts/demo-guest.sh
