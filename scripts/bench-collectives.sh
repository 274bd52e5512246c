#!/usr/bin/env bash
# The all-reduce of the plan run (userspace/bridge/dp_run.c's ring) on the
# device, at MIB MiB of f32 per core on 2, 4 and 8 cores, against the bound
# the engines' bandwidth sets: a ring moves 2(n - 1)/n of each core's bytes
# into that core, half on each of the core's two engines, so it cannot end
# before those bytes at both engines' HBM-to-HBM bandwidth (docs/plan-run.md,
# "Collectives"). Each run is a model of one all-reduce between a def
# and a use of the tensor, planned on the host and run in the test VM by
# xmemctl plan run (checker on, content checked against the host's
# reduction in the ring's order); its modeled time is the ring's transfers,
# first start to last end, from the run's trace. Modeled times do not
# depend on the host. Never gates make check.
#
#   scripts/bench-collectives.sh [--kernel vm|vm-perf | --stock LINE] [MIB [CORES...]]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/bench-args.sh"
mib=${1:-64}
shift || true
cores=("${@:-2 4 8}")
read -r -a cores <<<"${cores[*]}"
OUT=$REPO/build/bench-collectives
mkdir -p "$OUT"
make -s -C "$REPO" -j"$(nproc)" O=build/static STATIC=1 vm-userspace

# model N: N cores, each defining grad (mib MiB of f32), all-reducing it
# (sum) with the others, then reading it
model() {
	local n=$1 c list="" sep=""
	for ((c = 0; c < n; c++)); do list+="$sep$c"; sep=", "; done
	printf '{"format": "dramplan-model/1", "model": "allreduce_%s", "cores": [\n' "$n"
	for ((c = 0; c < n; c++)); do
		printf '{"core": %d, "function": "rank%d", "tensors": [{"name": "grad", "elems": %d, "elem_size": 4}],\n' \
			"$c" "$c" $((mib * 262144))
		printf ' "blocks": [{"name": "entry", "succ": [], "insts": [\n'
		printf '  {"name": "backward", "defs": ["grad"]},\n'
		printf '  {"name": "all_reduce", "defs": ["grad"], "uses": ["grad"], "collective": {"kind": "all_reduce", "reduction": "sum", "type": "f32", "cores": [%s]}},\n' "$list"
		printf '  {"name": "sgd", "uses": ["grad"]}]}]}%s\n' "$([ $((c + 1)) -lt "$n" ] && echo ,)"
	done
	printf ']}\n'
}
hbm=0
for n in "${cores[@]}"; do
	model "$n" > "$OUT/ar$n.json"
	"$REPO/build/static/dramplan" -q --no-svg --allreduce-buffer-size $((mib + 1)) \
		-o "$OUT/ar$n.plan.json" "$OUT/ar$n.json"
	# the plan, the uses' copies, the pattern pool, and slack
	need=$(( (n * mib * 2 + mib + 64) << 20 ))
	[ "$need" -gt "$hbm" ] && hbm=$need
done
max=${cores[-1]}
mem=$(( (hbm >> 20) + 2048 ))
cat > "$OUT/guest.sh" <<GUEST
for n in ${cores[*]}; do
	xmemctl plan run /include/bench-collectives/ar\$n.plan.json \
		/include/bench-collectives/ar\$n.json /tmp/ar\$n.trace.json > /tmp/ar\$n.run 2>&1
	echo "run \$n \$? \$(tail -1 /tmp/ar\$n.run)"
	# the ring: first start to last end of its transfers (trace times in us)
	grep '"cat":"ring ' /tmp/ar\$n.trace.json |
		sed 's/.*"ts":\([0-9.]*\),"dur":\([0-9.]*\),.*/\1 \2/' |
		awk -v n=\$n 'NR == 1 || \$1 < lo { lo = \$1 } \$1 + \$2 > hi { hi = \$1 + \$2 }
			END { printf "ring %d %.0f\n", n, (hi - lo) * 1000 }'
done
GUEST
"$REPO/scripts/vm.sh" "${kargs[@]}" --timeout 1800 --mem "$mem" --include "$OUT" \
	--params "dma_check=1 cores=$max hbm_size=$(printf '0x%x' "$hbm") dma_sems=64" \
	-- sh /include/bench-collectives/guest.sh | tee "$OUT/guest.log"
bw=$(sed -n 's/.*dma_mbps_hbm_hbm.*default \([0-9]*\).*/\1/p' "$REPO/kmod/main.c" | head -1)
echo
echo "all-reduce, f32 sum, $mib MiB per core; bound: 2(n-1)/n x $mib MiB at two engines' HBM->HBM 2 x ${bw} MB/s"
printf '%-6s %-16s %-16s %-8s %s\n' cores "modeled (ns)" "bound (ns)" ratio "run (exit, summary)"
for n in "${cores[@]}"; do
	t=$(awk -v n="$n" '$1 == "ring" && $2 == n { print $3 }' "$OUT/guest.log")
	run=$(awk -v n="$n" '$1 == "run" && $2 == n { $1 = ""; $2 = ""; print }' "$OUT/guest.log")
	b=$(awk -v n="$n" -v m="$mib" -v bw="$bw" 'BEGIN { printf "%.0f", (n - 1) / n * m * 1048576 * 1000 / bw }')
	r=$(awk -v t="${t:-0}" -v b="$b" 'BEGIN { if (t > 0) printf "%.3f", b / t; else print "-" }')
	printf '%-6s %-16s %-16s %-8s %s\n' "$n" "${t:--}" "$b" "$r" "$run"
done

# --- collectives across devices (libxmemsim's communicator) -------------------
# xmemctl bench, as nccl-tests' all_reduce_perf -b 8 -e 32M -f 4 -c 0 runs,
# on 2, 4, 8 and 16 devices of a ring (devices=N, default link and engine
# models), the ring algorithm at every size (-A ring: the default takes
# the tree at small sizes, which scripts/bench-collectives-small.sh
# times beside the ring), then reduce-scatter, all-gather and broadcast on 16; and a
# checked sweep (-c 1, #wrong 0) at smaller sizes. Times are modeled, so
# the table is the same on any host. XMEMSIM_BENCH_DEVICES="2 4 8 16"
# chooses the device counts. The figure in docs/device.md ("Collectives
# across devices") is this block's output.
read -r -a devs <<<"${XMEMSIM_BENCH_DEVICES:-2 4 8 16}"
DOUT=$REPO/build/bench-collectives-devices
mkdir -p "$DOUT"
cat > "$DOUT/guest.sh" <<GUEST
for n in ${devs[*]}; do
	rmmod xmemsim 2>/dev/null
	insmod /lib/modules/xmemsim.ko devices=\$n hbm_size=0x8000000 2>/dev/null ||
		modprobe xmemsim devices=\$n hbm_size=0x8000000
	xmemctl bench all-reduce -b 8 -e 32M -f 4 -c 0 -A ring
	[ \$n = ${devs[-1]} ] || continue
	for c in reduce-scatter all-gather broadcast; do
		xmemctl bench \$c -b 8 -e 32M -f 4 -c 0
	done
	for c in all-reduce reduce-scatter all-gather broadcast; do
		xmemctl bench \$c -b 64 -e 256K -f 64 -c 1 -d bfloat16
	done
done
GUEST
"$REPO/scripts/vm.sh" "${kargs[@]}" --timeout 3000 --mem $((128 * ${devs[-1]} + 1536)) \
	--no-insmod --include "$DOUT" -- sh /include/bench-collectives-devices/guest.sh |
	tee "$DOUT/guest.log"
echo
echo "all-reduce, float sum, in place: busbw at the largest size against the link; the smallest size's time against 2(n-1) link latencies"
printf '%-8s %-12s %-10s %-16s %-14s\n' devices "busbw GB/s" "of link" "smallest: B, us" "/ 2(n-1) lat"
awk '/^# xmemctl bench / { ar = $4 == "all-reduce:"; n = $5
		for (i = 1; i <= NF; i++) { if ($i == "link_mbps") bw = $(i + 1) / 1000
			if ($i == "link_latency_ns") lat = $(i + 1) } }
	ar && $3 == "float" && !(n in small) { small[n] = $10; sz[n] = $1 }
	ar && $3 == "float" { last[n] = $12 }
	END { for (n in last) printf "%-8s %-12s %-10.3f %-16s %-14.2f\n", n, last[n], last[n] / bw,
		sz[n] ", " small[n], small[n] * 1000 / (2 * (n - 1) * lat) }' \
	"$DOUT/guest.log" | sort -n
