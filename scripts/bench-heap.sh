#!/usr/bin/env bash
# The xmem heap benchmark, in the test VM (not a test: it prints figures).
#
#   scripts/bench-heap.sh [--kernel vm|vm-perf | --stock LINE]
#
# Builds kmod/bench (xmem_heap_bench.ko: bench.o and the heap's own object,
# kmod/xmem_heap.c compiled beside it) against the VM kernel, loads it in the VM, and prints mean ns per
# alloc+free pair on one fragmented trace for the seed's list walk, the
# rbtree path and lib/genalloc's gen_pool (first fit), at 32, 1,024 and
# 65,536 live blocks, with the ratios and the issue's targets; then what
# scrubbing freed blocks costs (alloc+free pairs of 256 B .. 1 MiB, without
# and with the memset the device does at every free).
#
#   BENCH_PARAMS   module parameters, e.g. "pairs_small=4096 seed=7"
#   BENCH_TIMEOUT  VM time limit in seconds (default 1800)
#
# The VM kernel is a debug build (KASAN, lockdep, kmemleak) run under TCG:
# absolute figures are slow and only the ratios mean something.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XMEMSIM_CACHE:-$HOME/.cache/xmemsim}

. "$REPO/scripts/bench-args.sh"
if [ -n "$stock_line" ]; then
	. "$REPO/scripts/matrix.sh"
	VM=$(xmemsim_headers_dir "$stock_line")	# Debian's headers build it
else
	VM=$("$REPO/scripts/kernel.sh" "${kargs[1]}")
fi
SRC=$CACHE/bench-vm
rm -rf "$SRC"
mkdir -p "$SRC/kmod"
cp -rs "$REPO/kmod/xmem_heap.c" "$REPO/kmod/xmem_heap.h" "$REPO/kmod/bench" \
	"$SRC/kmod/"
# the heap as an object of the bench module, from the driver's source
ln -s "$REPO/kmod/xmem_heap.c" "$SRC/kmod/bench/xmem_heap.c"
make -s -C "$VM" M="$SRC/kmod/bench" modules >"$CACHE/bench-vm.log" 2>&1 || {
	cat "$CACHE/bench-vm.log" >&2
	echo "bench-heap.sh: module build failed" >&2
	exit 1
}

RUN=$(mktemp -d "$CACHE/bench.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
mkdir -p "$RUN/bench"
cp "$SRC/kmod/bench/xmem_heap_bench.ko" "$RUN/bench/"

"$REPO/scripts/vm.sh" "${kargs[@]}" --no-insmod --timeout "${BENCH_TIMEOUT:-1800}" \
	--include "$RUN/bench" -- sh -c "insmod /include/bench/xmem_heap_bench.ko ${BENCH_PARAMS:-} &&
cat /sys/kernel/debug/xmem_heap_bench/results && rmmod xmem_heap_bench" \
	>"$RUN/raw.txt"
cp "$RUN/raw.txt" "$CACHE/bench-heap.last"

awk '
/^#/ { next }
$1 == "scrub" { ns++; ssz[ns] = $2; spr[ns] = $3; swo[ns] = $4; swi[ns] = $5; next }
NF == 10 {
	n++
	live[n] = $1; pairs[n] = $2; l[n] = $4; t[n] = $5; p[n] = $6; g[n] = $7
	same[n] = $8; fails[n] = $9; err[n] = $10
}
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
END {
	if (!n) { print "bench-heap.sh: no results"; exit 1 }
	print "mean ns per alloc+free pair (tree = XMEM_HEAP_TREE as shipped:"
	print "lists up to 64 blocks, rbtrees above; pure = rbtrees always)"
	printf "%7s %6s %10s %9s %9s %9s %10s %10s %9s %5s\n", "live",
		"pairs", "list", "tree", "pure", "gen_pool", "list/tree",
		"list/pure", "gp/tree", "same"
	bad = 0
	for (i = 1; i <= n; i++) {
		printf "%7d %6d %10d %9d %9d %9d %10s %10s %9s %5s\n", live[i],
			pairs[i], l[i], t[i], p[i], g[i], ratio(l[i], t[i]),
			ratio(l[i], p[i]), ratio(g[i], t[i]), same[i]
		if (same[i] != "yes" || err[i] != 0 || fails[i] != 0) bad = 1
	}
	print ""
	for (i = 1; i <= n; i++) {
		if (live[i] == 65536)
			printf "target: tree >= 50x the walk at 65,536 blocks: %sx, %s\n",
				ratio(l[i], t[i]), (l[i] >= 50 * t[i]) ? "met" : "MISSED"
		printf "target: tree no slower than gen_pool at %d: %sx, %s\n",
			live[i], ratio(g[i], t[i]), (t[i] <= g[i]) ? "met" : "MISSED"
		if (live[i] == 32)
			printf "target: tree within 1.5x of the walk at 32 blocks: %sx, %s (pure tree %sx)\n",
				ratio(t[i], l[i]), (t[i] <= 1.5 * l[i]) ? "met" : "MISSED",
				ratio(p[i], l[i])
	}
	if (ns) {
		print ""
		print "scrubbing: mean ns per alloc+free pair, without and with the memset of the freed block"
		printf "%9s %8s %10s %10s %8s\n", "size", "pairs", "without", "with", "with/w-o"
		for (i = 1; i <= ns; i++)
			printf "%9d %8d %10d %10d %8s\n", ssz[i], spr[i], swo[i], swi[i], ratio(swi[i], swo[i])
	}
	if (bad) { print "bench-heap.sh: a run failed or the allocators disagreed"; exit 1 }
}' "$RUN/raw.txt"
