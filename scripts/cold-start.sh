#!/usr/bin/env bash
# The entry points as a newcomer meets them: a copy of the tree where
# nothing is beside it, and XMEMSIM_CACHE naming a folder that does not
# exist yet. TAP on stdout, one line per entry point; make check runs it.
#
#   1. scripts/deps.sh where nothing is installed yet (tests/install/deps-fresh.sh)
#   2. make demo in the copy
#   3. per kernel line: matrix.sh, kernel.sh paths and vm, each line in a
#      new cache of its own
#
# (make check boots the stock kernels from a new cache of their own in
# its stock stage, so vm.sh --stock starts cold there without a boot more.)
#
#   XMEMSIM_PREBUILT=DIR  a cache whose kernels (VM kernels, stock images)
#                         are used by path rather than built again
#                         (kernel.sh); without it every kernel is built
#   COLD_KEEP=1           keep the copy and the caches (printed on stderr)
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/matrix.sh"
n=0
tap() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tail_log() { tail -n 30 "$1" | sed 's/^/# /'; }

cold=$(mktemp -d "${TMPDIR:-/tmp}/xmemsim-cold.XXXXXX")
if [ "${COLD_KEEP:-0}" = 1 ]; then
	echo "cold-start.sh: keeping $cold" >&2
else
	trap 'rm -rf "$cold"' EXIT
fi
copy=$cold/alone/xmemsim
mkdir -p "$copy"
git -C "$REPO" ls-files -co --exclude-standard -z |
	(cd "$REPO" && xargs -0 cp -P --parents -t "$copy")

# its TAP lines renumbered into this script's
bash "$copy/tests/install/deps-fresh.sh" >"$cold/deps.tap" 2>&1
while IFS= read -r line; do
	if [[ $line =~ ^(not )?ok\ [0-9]+\ -\ (.*)$ ]]; then
		n=$((n + 1))
		echo "${BASH_REMATCH[1]}ok $n - deps.sh: ${BASH_REMATCH[2]}"
	elif [[ $line == "#"* ]]; then
		echo "$line"
	fi
done <"$cold/deps.tap"
grep -q '^1\.\.[1-9]' "$cold/deps.tap"
tap $? "deps-fresh.sh ran to its plan"

(cd "$copy" && XMEMSIM_CACHE=$cold/cache/demo make demo) >"$cold/demo.log" 2>&1
r=$?
[ $r -eq 0 ] && grep -q 'agreement: 21 of 21 tensors agree' "$cold/demo.log"
ok=$?
[ $ok -ne 0 ] && tail_log "$cold/demo.log"
tap $ok "make demo in a copy with nothing beside it, XMEMSIM_CACHE not yet made (rc=$r)"

for line in $XMEMSIM_KERNELS; do
	cache=$cold/cache/$line
	(export XMEMSIM_CACHE=$cache XMEMSIM_KV=$line
	cd "$copy" && bash scripts/kernel.sh paths | grep -qx "VM=$cache/vm-.*" &&
		vm=$(bash scripts/kernel.sh vm) && [ -f "$vm/arch/x86/boot/bzImage" ] &&
		[ -d "$cache" ]) >"$cold/$line.log" 2>&1
	ok=$?
	[ $ok -ne 0 ] && tail_log "$cold/$line.log"
	tap $ok "$line: kernel.sh paths and vm, XMEMSIM_CACHE not yet made"
done
echo "1..$n"
