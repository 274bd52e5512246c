#!/usr/bin/env bash
# make demo: the main job. Installs what it needs, plans the 2-core example
# model on the host (report, plan JSON and SVG into build/demo/), then builds
# (or reuses) the test-VM kernel, boots it with xmemsim loaded and runs
# scripts/demo-guest.sh there: the same model submitted through the device,
# by ioctl and by io_uring, with the cross-core read-back; then four
# examples run on the device (xmemctl plan run) under the hazard checker.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
MODEL=examples/allreduce_2core.json
OUT=$REPO/build/demo

"$REPO/scripts/deps.sh"
# The static tools are what the VM carries; the host uses the same dramplan.
make -s -C "$REPO" -j"$(nproc)" O=build/static STATIC=1 vm-userspace
mkdir -p "$OUT"

echo "== the planner on the host: dramplan $MODEL"
"$REPO/build/static/dramplan" -o "$OUT/allreduce_2core.plan.json" \
	--svg "$OUT/allreduce_2core.svg" "$REPO/$MODEL" | tee "$OUT/allreduce_2core.report.txt"
"$REPO/build/static/dramplan" verify "$OUT/allreduce_2core.plan.json"
echo
echo "report: $OUT/allreduce_2core.report.txt"
echo "plan:   $OUT/allreduce_2core.plan.json"
echo "SVG:    $OUT/allreduce_2core.svg (open it in a browser)"
echo

"$REPO/scripts/vm.sh" --timeout 600 -- sh /work/scripts/demo-guest.sh
echo
echo "The SVG chart of the plan is $OUT/allreduce_2core.svg"
