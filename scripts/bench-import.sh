#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The importer's speed and memory (never gates anything): the models of
# examples/ at realistic sizes through build/dramplan-import, each import
# timed with its peak RSS, then planned by build/dramplan --strategy
# search and checked by `dramplan verify`.
#
#   scripts/bench-import.sh [ROW...]
#       default: every row below; a row is NAME|MODEL|IMPORT ARGS|PLAN ARGS
#   O=build   the userspace build
#   REPEAT=3  imports of each row: the fastest counts (a shared machine)
#
# Rows: the 7B-shape Mistral-style decoder built on the meta device
# (prefill of 2,048 tokens, a decode step against a 2,048-token cache;
# its 29 GB of float32 weights need dramplan --dram-size), the 4-layer,
# 2,048-wide LSTM (inference at 2,048 steps, training at batch 8 and 256
# and 2,048 steps; "steps/s" is time steps of the sequence per second of
# the whole import, loading PyTorch included),
# the Mixtral-style MoE layers (sparse under a capacity factor of 1.25,
# and dense) and a T5-base-shaped encoder-decoder's training step.
# Per row: the import's wall time (the fastest of REPEAT) and peak RSS,
# the model's tensors, the
# planned peak and its lower bound (MiB, core 0's private tensors), the
# plan's time.  The table goes to stdout and build/bench-import/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
IMPORT=$O/dramplan-import
DRAMPLAN=$O/dramplan
PY=/usr/bin/python3
W=$O/bench-import
mkdir -p "$W"
[ -x "$IMPORT" ] && [ -x "$DRAMPLAN" ] || { echo "bench-import.sh: build first (make userspace)" >&2; exit 1; }

ROWS=(
	"mistral-7b prefill 2048|examples/mistral.py|--phase prefill --seq 2048 --max-len 2048|--dram-size 40960"
	"mistral-7b decode c2047|examples/mistral.py|--phase decode --cache-len 2047 --max-len 2048|--dram-size 40960"
	"lstm 4x2048 infer s2048|examples/lstm.py|--seq 2048|"
	"lstm 4x2048 train b8 s256|examples/lstm.py|--train --batch 8 --seq 256|"
	"lstm 4x2048 train b8 s2048|examples/lstm.py|--train --batch 8 --seq 2048|"
	"gru 4x2048 train b8 s256|examples/lstm.py:gru|--train --batch 8 --seq 256|"
	"moe sparse cf1.25 s2048|examples/moe.py:sparse|--seq 2048 --capacity-factor 1.25|--dram-size 40960"
	"moe dense s2048|examples/moe.py:dense|--seq 2048|--dram-size 40960"
	"t5-base train b8 s512|examples/t5.py|--train --batch 8 --seq 512|"
)
[ $# -gt 0 ] && ROWS=("$@")


row() {	# NAME MODEL IMPORT-ARGS PLAN-ARGS
	local name=$1 model=$2 iargs=$3 pargs=$4 f t
	f=$W/$(echo "$name" | tr ' ' '_')
	: >"$f.time"
	for _ in $(seq "${REPEAT:-3}"); do
		# shellcheck disable=SC2086
		/usr/bin/time -f "%e %M" -a -o "$f.time" "$IMPORT" "$model" $iargs -o "$f.json"
	done
	t=$(date +%s.%N)
	# shellcheck disable=SC2086
	"$DRAMPLAN" -q --no-svg --strategy search $pargs -o "$f.plan" "$f.json"
	t=$(echo "$(date +%s.%N) - $t" | bc)
	"$DRAMPLAN" verify "$f.plan" >/dev/null
	"$PY" - "$name" "$f" "$t" "$iargs" <<-'PYEOF'
	import json, re, sys
	name, f, plan_s, iargs = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
	runs = [l.split() for l in open(f + ".time") if l[:1].isdigit()]
	secs, rss = min(float(r[0]) for r in runs), max(int(r[1]) for r in runs)
	c = json.load(open(f + ".plan"))["cores"][0]
	ntensors = len(json.load(open(f + ".json"))["cores"][0]["tensors"])
	mib = lambda b: "%.1f" % (b / 2**20)
	seq = re.search(r"--seq (\d+)", iargs)
	steps = "%.0f" % (int(seq.group(1)) / secs) \
	    if seq and ("lstm" in name or "gru" in name) else ""
	print("| %s | %.1f | %.0f | %d | %s | %s | %.2f | %s |" % (
	    name, secs, rss / 1024, ntensors,
	    mib(c["peak"] - c.get("shared_bytes", 0)), mib(c["lower_bound"]),
	    plan_s, steps))
	PYEOF
}

{
	echo "| row | import s | import RSS MiB | tensors | planned peak MiB | lower bound MiB | plan s | steps/s |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	for r in "${ROWS[@]}"; do
		IFS='|' read -r name model iargs pargs <<<"$r"
		row "$name" "$model" "$iargs" "$pargs"
	done
} | tee "$W/results.md"
