#!/usr/bin/env bash
# Planner benchmark (never gates anything): plan time against tensor count
# (10^3 .. 10^6) on synthetic models with bounded overlap, the time of each
# pass, a naive O(V^2) interference baseline as far as it stays under a
# minute, and peak / lower bound / ratio for every run and for every
# MiniMalloc CSV in ../shared/bench/minimalloc.
#
#   scripts/bench-planner.sh [SIZES...]     (default: 1000 10000 100000 1000000)
#   O=build/bench scripts/bench-planner.sh
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
make -s O="$O" "$O/bench-planner" >/dev/null
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000 1000000)
mdir=${MINIMALLOC_DIR:-../shared/bench/minimalloc}
args=()
[ -d "$mdir" ] && args=(-m "$mdir")
echo "== dramplan benchmark on $(nproc) CPU(s), $(uname -m)"
exec "$O/bench-planner" --baseline-limit "${BASELINE_LIMIT:-60}" "${sizes[@]}" "${args[@]}"
