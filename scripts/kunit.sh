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

UML=$("$REPO/scripts/kernel.sh" uml)
SRC=$("$REPO/scripts/kernel.sh" src)

# kunit.py exec shares the build dir with builds: hold the same lock.
exec 9>"$(dirname "$SRC")/.lock-uml-${UML##*/uml-}"
flock 9
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
