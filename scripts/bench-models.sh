#!/usr/bin/env bash
# Real networks (never gates anything): torchvision models
# through build/dramplan-import, planned by dramplan in seed mode and with
# --strategy search, against the lower bound and TFLite's greedy by size
# (scripts/greedy-by-size.py, on the same tensors, intervals and 4 KiB
# sizes). Every plan must pass `dramplan verify`.
#
#   scripts/bench-models.sh [MODEL...]
#       default: resnet18 resnet50 mobilenet_v2 mobilenet_v3_large
#       efficientnet_b0 densenet121 inception_v3 vit_b_16, then the
#       transformers of examples/: gpt2 bert llama
#   ROWS="infer:1:1 infer:32:1 train:8:1 train:8:4"   mode:batch:cores
#   LM_ROWS="train:8:512:1 train:8:512:4 prefill:1:2048:1 prefill:1:2048:4
#       decode:1:2048:1 decode:1:2048:4"   mode:batch:length:cores, for
#       examples/NAME.py at full size: a training step at sequence 512,
#       a prefill of 2,048 tokens, a decode step of one token with 2,047
#       in a cache of 2,048 (--cache-len 2047 --max-len 2048); an encoder
#       (bert) has no cache, its prefill rows are inference at that
#       length and it has no decode rows.  With 4 cores, training is data
#       parallel (planned with --allreduce-buffer-size -1: llama's
#       gradients are over the default 500 MiB) and prefill/decode tensor
#       parallel (a quarter of the heads and MLP a core, two all-reduces a
#       layer).
#   DTYPE=float32   the element type of floating tensors
#
# Per row: DRAM tensors of core 0 that dramplan places itself (region
# "general", the private tensors), their lower bound (most bytes live at
# one time), the peaks of seed mode and --strategy search (highest end of
# those tensors above the plan's private_base) and greedy by size's, each
# in MiB and / the lower bound, the import time and each plan's time (the dramplan command, wall
# clock). With N cores every core runs the same step, so the figures are
# core 0's; the shared (all-reduced) gradients sit in the CC region, the
# "cc MiB" column (a band below the private region, so the plan's own
# "peak", which counts it, is not the private figure). The imported models are kept in build/bench-models/ and
# reused by the next run; the table goes to stdout and
# build/bench-models/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
PY=/usr/bin/python3
make -s O="$O" "$O/dramplan" "$O/dramplan-import" >/dev/null
if ! "$PY" -c 'import torch, torchvision, functorch' 2>/dev/null; then
	echo "bench-models: needs python3-torch and python3-torchvision for $PY (scripts/deps.sh)" >&2
	exit 1
fi
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(resnet18 resnet50 mobilenet_v2 mobilenet_v3_large
	efficientnet_b0 densenet121 inception_v3 vit_b_16 gpt2 bert llama)
rows=${ROWS:-"infer:1:1 infer:32:1 train:8:1 train:8:4"}
lm_rows=${LM_ROWS:-"train:8:512:1 train:8:512:4 prefill:1:2048:1 prefill:1:2048:4 decode:1:2048:1 decode:1:2048:4"}
dtype=${DTYPE:-float32}
out=$O/bench-models
mkdir -p "$out"
res=$out/results.md

now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
# a key's value in the plan's core 0 (its first occurrence)

{
	echo "| model | mode | batch | cores | tensors | lower bound MiB | seed MiB | seed / LB | search MiB | search / LB | greedy MiB | greedy / LB | search / greedy | cc MiB | import s | seed s | search s |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} | tee "$res"
fails=0
# the rows of one model: "label mode batch cores base import-args..." a line
rows_of() {
	local m=$1 r mode batch len cores
	if [ -f "examples/$m.py" ]; then
		for r in $lm_rows; do
			IFS=: read -r mode batch len cores <<<"$r"
			case $mode in
			train) echo "train_s$len $batch $cores $out/$m-train-b$batch-s$len-c$cores-$dtype examples/$m.py --train --seq $len --cores $cores" ;;
			prefill)
				if grep -q k_cache "examples/$m.py"; then
					echo "prefill_s$len $batch $cores $out/$m-prefill-b$batch-s$len-c$cores-$dtype examples/$m.py --phase prefill --seq $len --max-len $len --cores $cores"
				elif [ "$cores" = 1 ]; then
					echo "infer_s$len $batch $cores $out/$m-infer-b$batch-s$len-c$cores-$dtype examples/$m.py --seq $len"
				fi ;;
			decode)
				grep -q k_cache "examples/$m.py" &&
					echo "decode_c$((len - 1)) $batch $cores $out/$m-decode-b$batch-m$len-c$cores-$dtype examples/$m.py --phase decode --cache-len $((len - 1)) --max-len $len --cores $cores" ;;
			esac
		done
	else
		for r in $rows; do
			IFS=: read -r mode batch cores <<<"$r"
			if [ "$mode" = train ]; then
				echo "$mode $batch $cores $out/$m-$mode-b$batch-c$cores-$dtype $m --train --cores $cores"
			else
				echo "$mode $batch $cores $out/$m-$mode-b$batch-c$cores-$dtype $m"
			fi
		done
	fi
}
for m in "${models[@]}"; do
	while read -r mode batch cores base src extra; do
		# shellcheck disable=SC2206
		args=($src --batch "$batch" --dtype "$dtype" $extra)
		t0=$(now)
		if [ ! -s "$base.json" ]; then
			if ! "$O/dramplan-import" "${args[@]}" -o "$base.json" </dev/null 2>"$base.err"; then
				echo "| $m | $mode | $batch | $cores | import failed: $(head -c 200 "$base.err") |" | tee -a "$res"
				fails=$((fails + 1))
				continue
			fi
			ti=$(calc "$(now) - $t0")
			echo "$ti" >"$base.time"
		fi
		ti=$(cat "$base.time")
		ok=1
		pargs=()
		[ -f "examples/$m.py" ] && [ "$cores" -gt 1 ] && pargs=(--allreduce-buffer-size -1)
		t0=$(now)
		"$O/dramplan" -q --no-svg "${pargs[@]}" -o "$base.seed.plan" "$base.json" </dev/null 2>"$base.err" || ok=0
		ts=$(calc "$(now) - $t0")
		t0=$(now)
		"$O/dramplan" -q --no-svg --strategy search "${pargs[@]}" -o "$base.search.plan" "$base.json" </dev/null 2>>"$base.err" || ok=0
		tq=$(calc "$(now) - $t0")
		if [ $ok = 1 ]; then
			"$O/dramplan" verify "$base.seed.plan" >/dev/null 2>>"$base.err" &&
				"$O/dramplan" verify "$base.search.plan" >/dev/null 2>>"$base.err" || ok=0
		fi
		if [ $ok = 0 ]; then
			echo "| $m | $mode | $batch | $cores | plan or verify failed: $(head -c 200 "$base.err") |" | tee -a "$res"
			fails=$((fails + 1))
			continue
		fi
		g=$("$PY" scripts/greedy-by-size.py "$base.seed.plan")
		g=${g%%$'\n'*}
		q=$("$PY" scripts/greedy-by-size.py "$base.search.plan")
		q=${q%%$'\n'*}
		n=$(echo "$g" | awk '{print $4}')
		lb=$(echo "$g" | awk '{print $6}')
		sp=$(echo "$g" | awk '{print $8}')
		gp=$(echo "$g" | awk '{print $10}')
		qp=$(echo "$q" | awk '{print $8}')
		cc=$(grep -m1 -o '"cc": {[^}]*}' "$base.seed.plan" | sed 's/.*"size": \([0-9]*\).*/\1/')
		mib() { calc "$1 / 1048576" | xargs printf '%.1f'; }
		rat() { calc "$1 / $2" | xargs printf '%.4f'; }
		echo "| $m | $mode | $batch | $cores | $n | $(mib "$lb") | $(mib "$sp") | $(rat "$sp" "$lb") | $(mib "$qp") | $(rat "$qp" "$lb") | $(mib "$gp") | $(rat "$gp" "$lb") | $(rat "$qp" "$gp") | $(mib "$cc") | $(printf '%.1f' "$ti") | $(printf '%.2f' "$ts") | $(printf '%.2f' "$tq") |" | tee -a "$res"
	done < <(rows_of "$m")
done
echo
echo "bench-models: $fails rows failed; table in $res"
