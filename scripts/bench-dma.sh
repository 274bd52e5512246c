#!/usr/bin/env bash
# The queued-DMA model's figures (tests/bench/bench_dma.c), in the test VM,
# two loads of the module in one boot: the virtual clock (engines in
# parallel against one engine, io_uring DMA_SUBMIT against the GET_INFO
# floor), then time_scale=1 with a 1 ms latency (modeled against observed
# wall time). Ratios measured side by side in one run; never gates make
# check. Under TCG the observed time includes the emulated copy of each
# transfer's bytes at its end; --kernel vm-perf drops KASAN & co.
#
#   scripts/bench-dma.sh [--kernel vm|vm-perf | --stock LINE] [REPS]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/bench-args.sh"
reps=${1:-20}
exec "$REPO/scripts/vm.sh" "${kargs[@]}" --timeout 900 \
	--params "hbm_size=0x12000000" -- sh -c "/tests/bench/bench_dma $reps &&
	rmmod xmemsim && insmod /lib/modules/xmemsim.ko hbm_size=0x12000000 \
		time_scale=1 dma_latency_ns=1000000 && /tests/bench/bench_dma $reps"
