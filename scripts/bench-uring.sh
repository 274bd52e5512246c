#!/usr/bin/env bash
# Command and data rates of /dev/xmemsim, ioctl against io_uring, measured
# side by side in one run in the test VM (TCG: absolute figures are qemu's;
# the ratios are what to read). Usage: scripts/bench-uring.sh [PAIRS]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
exec "$REPO/scripts/vm.sh" --timeout 900 --params "num_blocks=4096" -- /tests/bench/bench_uring "${1:-4000}"
