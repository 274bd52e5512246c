#!/usr/bin/env bash
# Run every KUnit suite of kmod/tests in the UML kernel (built, or rebuilt
# incrementally, by scripts/kernel.sh uml). Prints kunit.py's results and
# exits non-zero on any failing case, crash or build error.
#
#   KUNIT_OUT     where kunit.py's output goes (default build/results/kunit.log)
#   KUNIT_ARGS    extra kernel arguments, e.g. xmemsim_test.heap_test_seed=7
#   KUNIT_FILTER  a suite glob, e.g. 'xmem_heap*'
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${KUNIT_OUT:-$REPO/build/results/kunit.log}
mkdir -p "$(dirname "$OUT")"

SRC=$("$REPO/scripts/kernel.sh" src)

# kunit.py exec shares the build dir with builds: hold the same lock, and
# run what this checkout built: another checkout's build may come in
# between the two (then build again).
for try in 1 2 3; do
	UML=$("$REPO/scripts/kernel.sh" uml)
	exec 9>"$(dirname "$SRC")/.lock-uml-${UML##*/uml-}"
	flock 9
	[ "$(cat "$UML/.xmemsim-checkout" 2>/dev/null)" = "$REPO" ] && break
	flock -u 9
	[ "$try" = 3 ] && { echo "kunit.sh: other checkouts keep rebuilding $UML" >&2; exit 1; }
done
cd "$SRC"
kargs=()
for a in ${KUNIT_ARGS:-}; do kargs+=(--kernel_args "$a"); done
set +e
timeout -k 10 900 python3 tools/testing/kunit/kunit.py exec --arch=um \
	--build_dir="$UML" --timeout=800 "${kargs[@]}" \
	${KUNIT_FILTER:+"$KUNIT_FILTER"} 2>&1 | tee "$OUT"
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ] || ! grep -q 'Testing complete' "$OUT"; then
	echo "kunit.sh: FAILED (kunit.py rc=$rc)" >&2
	exit 1
fi
