#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Function sizes of C files (universal ctags): how many functions take
# 8 or more parameters, the most any takes, and the longest functions.
#
#   scripts/fnstat.sh [DIR...]      (default: userspace)
#   scripts/fnstat.sh -l [DIR...]   every function: params lines file:name
#
# A parameter is a comma-separated entry of ctags' signature ("void"
# counts none); lines run from the name's line to the closing brace.
set -euo pipefail
cd "$(dirname "$0")/.."
list=0
[ "${1:-}" = -l ] && { list=1; shift; }
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(userspace)
rows=$(find "${dirs[@]}" -name '*.c' | sort |
	xargs ctags --c-kinds=f --fields=+neS -o - |
	awk -F'\t' '{
		sig = ""; line = 0; end = 0
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^signature:/) sig = substr($i, 11)
			else if ($i ~ /^line:/) line = substr($i, 6)
			else if ($i ~ /^end:/) end = substr($i, 5)
		}
		p = (sig == "()" || sig == "(void)") ? 0 : gsub(/,/, ",", sig) + 1
		printf "%d %d %s:%s\n", p, end - line + 1, $2, $1
	}' | sort -k1,1nr -k2,2nr)
if [ $list -eq 1 ]; then
	printf '%s\n' "$rows"
	exit 0
fi
awk '$1 >= 8 { k++ } $1 > m { m = $1 } END {
	printf "functions: %d, with >= 8 parameters: %d, most parameters: %d\n", NR, k, m
}' <<<"$rows"
echo "longest:"
sort -k2,2nr <<<"$rows" | head -5 | awk '{ printf "  %4d lines  %s\n", $2, $3 }'
echo "most parameters:"
head -5 <<<"$rows" | awk '{ printf "  %4d params %s\n", $1, $3 }'
