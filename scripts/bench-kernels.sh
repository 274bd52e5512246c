#!/usr/bin/env bash
# The device's figures on the kernels of the matrix, side by side in one
# run: for each line of XMEMSIM_KERNELS (scripts/matrix.sh), or the lines
# given, bench-dma.sh, bench-uring.sh and bench-heap.sh on the debug kernel
# and on Debian's stock kernel of that line, one after the other. The
# debug kernels carry KASAN, lockdep and kmemleak, the stock ones none:
# the gap between the two rows is what the sanitizers cost under TCG. Not
# a test (never run by make check); every figure is a ratio measured in
# this run.
#
#   scripts/bench-kernels.sh [LINE...]     e.g. scripts/bench-kernels.sh 6.12
#   BENCH_REPS (bench-dma, default 20), BENCH_PAIRS (bench-uring, 4000)
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/matrix.sh"
lines=("$@")
[ ${#lines[@]} -gt 0 ] || read -ra lines <<<"$XMEMSIM_KERNELS"

rc=0
for line in "${lines[@]}"; do
	for k in debug stock; do
		if [ $k = debug ]; then
			args=(--kernel vm)
		else
			args=(--stock "$line")
		fi
		echo "=== $line $k"
		XMEMSIM_KV=$line "$REPO/scripts/bench-dma.sh" "${args[@]}" "${BENCH_REPS:-20}" || rc=1
		XMEMSIM_KV=$line "$REPO/scripts/bench-uring.sh" "${args[@]}" "${BENCH_PAIRS:-4000}" || rc=1
		XMEMSIM_KV=$line "$REPO/scripts/bench-heap.sh" "${args[@]}" || rc=1
	done
done
exit $rc
