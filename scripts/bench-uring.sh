#!/usr/bin/env bash
# Command and data rates of /dev/xmemsim, ioctl against io_uring, measured
# side by side in one run in the test VM (under TCG: the ratios are what to
# read). By default on the debug test kernel; --kernel vm-perf builds and
# uses one without KASAN, lockdep and kmemleak.
#
#   scripts/bench-uring.sh [--kernel vm|vm-perf] [PAIRS]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
kernel=vm
if [ "${1:-}" = --kernel ]; then
	kernel=$2
	shift 2
fi
echo "kernel: $kernel (scripts/$kernel.config)"
exec "$REPO/scripts/vm.sh" --kernel "$kernel" --timeout 900 \
	--params "num_blocks=4096" -- /tests/bench/bench_uring "${1:-4000}"
