#!/usr/bin/env bash
# Planner benchmark (never gates anything): plan time against tensor count
# (10^3 .. 10^6) on synthetic models with bounded overlap, the time of each
# pass, a naive O(V^2) interference baseline as far as it stays under a
# minute, and peak / lower bound / ratio for every run and for every
# MiniMalloc CSV in tests/data/minimalloc.  Then the same sizes with
# every tensor live at once (up to ALL_LIVE_MAX, default 10^5), each beside
# the reference engine (the seed's select) on the same model up to
# REFERENCE_LIMIT tensors (default 5000), and a side-by-side table.  Then
# the file-to-plan rows: the dramplan command on the same synthetic model
# written as JSON, beside in-process planning (time, ratio, peak RSS of the
# command and of `dramplan verify` on its plan; build/bench-file, models in
# $TMPDIR).
#
#   scripts/bench-planner.sh [SIZES...]
#       (default: 1000 2000 5000 10000 100000 1000000)
#   O=build/bench scripts/bench-planner.sh
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
make -s O="$O" "$O/bench-planner" "$O/bench-file" "$O/dramplan" >/dev/null
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 2000 5000 10000 100000 1000000)
mdir=${MINIMALLOC_DIR:-tests/data/minimalloc}
args=()
[ -d "$mdir" ] && args=(-m "$mdir")
echo "== dramplan benchmark on $(nproc) CPU(s), $(uname -m)"

"$O/bench-planner" --baseline-limit "${BASELINE_LIMIT:-60}" \
	--reference-limit "${REFERENCE_LIMIT:-5000}" \
	--all-live-max "${ALL_LIVE_MAX:-100000}" "${sizes[@]}" "${args[@]}"
echo
echo "== the command on a model file (dramplan FILE -q --no-svg -o PLAN; dramplan verify PLAN)"
echo "   beside planning the same model in-process; peak RSS from wait4 (ru_maxrss)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-file.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$O/bench-file" "$O/dramplan" "$tmp" "${sizes[@]}"
