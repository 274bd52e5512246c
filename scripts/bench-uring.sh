#!/usr/bin/env bash
# Command and data rates of /dev/xmemsim, ioctl against io_uring, measured
# side by side in one run in the test VM (under TCG: the ratios are what to
# read). By default on the debug test kernel; --kernel vm-perf builds and
# uses one without KASAN, lockdep and kmemleak.
#
#   scripts/bench-uring.sh [--kernel vm|vm-perf | --stock LINE] [PAIRS]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/bench-args.sh"
exec "$REPO/scripts/vm.sh" "${kargs[@]}" --timeout 900 \
	--params "num_blocks=4096" -- /tests/bench/bench_uring "${1:-4000}"
