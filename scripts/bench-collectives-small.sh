#!/usr/bin/env bash
# Small all-reduces: the ring against the binomial tree (xms_comm_init(3))
# at 8 B to 64 KiB on 2, 4, 8 and 16 devices, as xmemctl bench times them
# (-A ring, -A tree, and -A auto: the model's choice by size), checked
# against the host's reduction in each algorithm's order (-c 1). Times
# are modeled, so the table is the same on any host. The figure in
# docs/device.md ("Collectives across devices", small sizes) is this
# script's output. XMEMSIM_BENCH_DEVICES="2 4 8 16" chooses the device
# counts; TOPOLOGY is the module's (ring, torus2d or full; default ring).
# Never gates make check.
#
#   scripts/bench-collectives-small.sh [--kernel vm|vm-perf | --stock LINE] [TOPOLOGY]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/bench-args.sh"
OUT=$REPO/build/bench-collectives-small
topo=${1:-ring}
mkdir -p "$OUT"
read -r -a devs <<<"${XMEMSIM_BENCH_DEVICES:-2 4 8 16}"
# the guest: the module loaded afresh for each device count, then the bench
cat > "$OUT/guest.sh" <<GUEST
load() {
	rmmod xmemsim 2>/dev/null
	insmod /lib/modules/xmemsim.ko "\$@" 2>/dev/null || modprobe xmemsim "\$@"
}
for n in ${devs[*]}; do
	load devices=\$n topology=$topo hbm_size=0x400000
	for a in ring tree auto; do
		xmemctl bench all-reduce -b 8 -e 64K -f 2 -c 1 -A \$a
	done
done
GUEST
"$REPO/scripts/vm.sh" "${kargs[@]}" --timeout 1800 --no-insmod --include "$OUT" \
	-- sh /include/bench-collectives-small/guest.sh | tee "$OUT/guest.log"
echo
echo "all-reduce, float sum, in place, topology $topo: modeled time (us) of the ring and the tree, their ratio, and what the default took"
printf '%-8s %-10s %-10s %-10s %-10s %s\n' devices "size (B)" "ring" "tree" "tree/ring" default
awk '/^# xmemctl bench all-reduce/ { n = $5 } /^# algorithm/ { a = $3 }
	/^ +[0-9]/ { t[n " " $1 " " a] = $10; if (!((n, $1) in seen)) { seen[n, $1]; key[++k] = n " " $1 }
		bad += $9 + $13 }
	END { for (i = 1; i <= k; i++) { split(key[i], x, " "); r = t[key[i] " ring"]; e = t[key[i] " tree"]
			d = t[key[i] " auto"] == r ? "ring" : "tree"
			printf "%-8s %-10s %-10s %-10s %-10.2f %s\n", x[1], x[2], r, e, e / r, d }
		printf "#wrong over every run: %d\n", bad }' "$OUT/guest.log"
