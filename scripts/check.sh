#!/usr/bin/env bash
# make check: every test xmemsim has, then the kernel-code gates.
#
#  1. scripts/deps.sh
#  2. userspace build; host tests; host tests again under ASan/UBSan; the
#     fuzz seed corpus replayed under clang's ASan/UBSan
#  3. KUnit suites in UML (scripts/kunit.sh), once per kernel line of
#     scripts/matrix.sh (XMEMSIM_KERNELS: 6.1 and 6.12)
#  4. per line, the VM test suite under KASAN/lockdep/kmemleak
#     (scripts/vm.sh): the device's tests, the hostile-user tests, a
#     bounded fuzzer run, reloads; a boot at scale (tests/vm/scale.sh) on
#     the first line; a cold start (scripts/cold-start.sh: deps.sh where
#     nothing is installed, make demo in a copy of the tree with nothing
#     beside it and a cache folder not yet made, kernel.sh in new caches,
#     the kernels above handed over by path); then Debian's own kernel of
#     each line with the module built by DKMS (scripts/vm.sh --stock,
#     tests/vm/stock.sh), from a new cache too
#  5. checkpatch --strict (each line's script), sparse (C=2) and W=1 on
#     kmod/ and uapi/ against each line's kernel, and a build through DKMS
#     against each line's Debian linux-headers
#  6. packaging: man pages render, the docs gate (scripts/docs-gate.sh),
#     no tracked file reading outside the checkout (scripts/outside-gate.py),
#     one version, the Debian packages built, lintian, installed here,
#     used, purged
#
# Each TAP "ok"/"not ok" line, each KUnit case and each gate counts once.
# A stage that dies without results counts as one failure. A skip must say
# why on its TAP line, and its reason must be one that docs/device.md
# expects; the summary groups the skips by reason and gives each stage's
# wall time. The last line is "N passed, N failed, N skipped"; the exit
# status is non-zero on any failure.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
RES=$REPO/build/results
rm -rf "$RES"
mkdir -p "$RES"
JOBS=${JOBS:-$(nproc)}
# every userspace build of make check (host, ASan, static VM) with -Werror;
# a plain `make` leaves warnings warnings (distribution CFLAGS)
export WERROR=1
CACHE=${XMEMSIM_CACHE:-$HOME/.cache/xmemsim}

. scripts/matrix.sh
FIRST=${XMEMSIM_KERNELS%% *}

pass=0 fail=0 skip=0
t0=$(date +%s)
declare -A per_kernel	# line -> "label: counts; ..."

# stage TITLE: a new stage; each one's wall time is kept for the summary
stage_names=() stage_secs=() stage_t=$t0
stage_end() {
	local now
	now=$(date +%s)
	[ ${#stage_names[@]} -gt 0 ] && stage_secs+=($((now - stage_t)))
	stage_t=$now
}
stage() {
	stage_end
	stage_names+=("$*")
	echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"
}

# Skips by reason, for the summary: reason -> count, and -> the stages
declare -A skip_count skip_where

# skipped LABEL REASON: one skip of a stage counted under its reason; a
# skip that gives no reason is a failure (a silent skip)
skipped() {
	local label=$1 reason=$2
	if [ -z "$reason" ]; then
		fail=$((fail + 1))
		echo "not ok - $label: a test skipped without saying why"
		return
	fi
	skip=$((skip + 1))
	skip_count[$reason]=$(( ${skip_count[$reason]:-0} + 1 ))
	case " ${skip_where[$reason]:-} " in
	*" ${label%-[0-9]*} "*) ;;
	*) skip_where[$reason]+="${skip_where[$reason]:+ }${label%-[0-9]*}" ;;
	esac
}

# count_tap FILE LABEL: add a TAP file's results to the totals; each
# skip's reason is what follows "# SKIP" on its line
count_tap() {
	local f=$1 label=$2 p fl s reason
	# a skip is an "ok" line with "# SKIP reason", or a binary's whole
	# plan "1..0 # SKIP reason" (one skip)
	local skips='^(ok .*|1\.\.0 *)# *(SKIP|skip)'
	p=$(grep -cE '^ok ' "$f" | head -1)
	s=$(grep -cE "$skips" "$f" | head -1)
	fl=$(grep -cE '^not ok ' "$f" | head -1)
	p=$((p - $(grep -cE '^ok .*# *(SKIP|skip)' "$f" | head -1)))
	echo "$label: $p passed, $fl failed, $s skipped"
	grep -E '^not ok ' "$f" | sed 's/^/  /'
	pass=$((pass + p)) fail=$((fail + fl))
	while IFS= read -r reason; do
		skipped "$label" "$reason"
	done < <(grep -E "$skips" "$f" | sed -E 's/.*# *(SKIP|skip):? *//; s/[[:space:]]+$//')
	kernel_note "$label" "$p/$fl/$s"
	[ $((p + fl + s)) -gt 0 ]
}

# collect_tap OUT LABEL FILES...: the binaries' TAP into OUT, a binary that
# died before its plan line counted as a failure, then counted
collect_tap() {
	local out=$1 label=$2 t
	shift 2
	cat "$@" >"$out" 2>/dev/null
	for t in "$@"; do
		[ -f "$t" ] || continue
		grep -q '^1\.\.' "$t" || echo "not ok - $(basename "$t" .tap): died before its plan" >>"$out"
	done
	count_tap "$out" "$label" || gate 1 "$label: no tests ran"
}

# kernel_note LABEL P/F/S: a kernel stage's counts for the summary
# (labels end in -<line>)
kernel_note() {
	local line
	for line in $XMEMSIM_KERNELS; do
		case "$1" in *-"$line") per_kernel[$line]+="${1%-"$line"} $2  " ;; esac
	done
}

gate() {	# gate NAME: one counted result from the last command's status
	if [ "$1" -eq 0 ]; then
		pass=$((pass + 1)); echo "ok - $2"
	else
		fail=$((fail + 1)); echo "not ok - $2"
	fi
}

stage "dependencies"
bash scripts/deps.sh || { echo "deps.sh failed"; exit 1; }

stage "userspace build and host tests"
for variant in "build" "build/asan SAN=1"; do
	set -- $variant
	o=$1; shift
	label=host${1:+-asan}
	if make -s -j"$JOBS" O="$o" "$@" userspace >"$RES/$label-build.log" 2>&1; then
		make -s O="$o" "$@" host-tests >"$RES/$label.log" 2>&1
		collect_tap "$RES/$label.tap" "$label" "$o"/results/*.tap
	else
		cat "$RES/$label-build.log"
		gate 1 "$label: userspace build"
	fi
done

stage "fuzz corpus replay (clang, ASan/UBSan)"
# the seed corpus through the four harnesses built with clang: its UBSan
# catches what gcc's misses (NULL + 0)
if make -s -j"$JOBS" O=build/clang-san CC=clang SAN=1 \
	build/clang-san/tests/fuzz/replay_model build/clang-san/tests/fuzz/replay_csv \
	build/clang-san/tests/fuzz/replay_plan build/clang-san/tests/fuzz/replay_search \
	>"$RES/fuzz-clang-build.log" 2>&1; then
	make -s O=build/clang-san CC=clang SAN=1 fuzz-replay >"$RES/fuzz-clang.log" 2>&1
	collect_tap "$RES/fuzz-clang.tap" "fuzz-clang" build/clang-san/results/replay_*.tap
else
	cat "$RES/fuzz-clang-build.log"
	gate 1 "fuzz-clang: build"
fi

for line in $XMEMSIM_KERNELS; do
	stage "KUnit (UML, linux-source-$line)"
	klog=$RES/kunit-$line.log
	if XMEMSIM_KV=$line KUNIT_OUT=$klog bash scripts/kunit.sh >/dev/null 2>"$RES/kunit-$line.err"; then
		kr=0
	else
		kr=1
	fi
	kline=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$klog" | tail -1)
	if [ -n "$kline" ]; then
		kp=$(echo "$kline" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
		kf=$(echo "$kline" | sed -n 's/.*failed: \([0-9]*\).*/\1/p')
		kc=$(echo "$kline" | sed -n 's/.*crashed: \([0-9]*\).*/\1/p')
		ks=$(echo "$kline" | sed -n 's/.*skipped: \([0-9]*\).*/\1/p')
		kp=${kp:-0} kf=$(( ${kf:-0} + ${kc:-0} )) ks=${ks:-0}
		echo "kunit-$line: $kp passed, $kf failed, $ks skipped"
		grep -E '\[(FAILED|CRASHED)\]' "$klog" | sed 's/^/  /'
		pass=$((pass + kp)) fail=$((fail + kf))
		for ((i = 0; i < ks; i++)); do
			skipped "kunit-$line" "a KUnit case skipped (build/results/kunit-$line.log)"
		done
		kernel_note "kunit-$line" "$kp/$kf/$ks"
		[ $kr -ne 0 ] && [ "$kf" -eq 0 ] && gate 1 "kunit-$line: kunit.py failed"
	else
		tail -n 40 "$RES/kunit-$line.err" "$klog" 2>/dev/null
		gate 1 "kunit-$line: no results"
	fi
done

# vm_run LABEL VM.SH-ARGS...: one guest boot, its TAP counted; a run that
# failed (kernel report, timeout, rmmod) counts once more
vm_run() {
	local label=$1 vr
	shift
	bash scripts/vm.sh "$@" >"$RES/$label.tap" 2>"$RES/$label.err"
	vr=$?
	count_tap "$RES/$label.tap" "$label" || true
	if [ $vr -ne 0 ]; then
		tail -n 60 "$RES/$label.err"
		gate 1 "$label: the guest run failed (rc=$vr, see build/results/$label.err)"
	fi
}

for line in $XMEMSIM_KERNELS; do
	stage "VM tests ($line debug kernel, qemu, KASAN + lockdep + kmemleak)"
	# the first line with the suite's full counts; the others with fewer
	# reloads and fuzzer operations (the same code paths, in the budget)
	# (the suite takes 5 to 10 minutes under TCG: past vm.sh's default)
	if [ "$line" = "$FIRST" ]; then
		XMEMSIM_KV=$line vm_run "vm-$line" --timeout 1500
	else
		XMEMSIM_KV=$line vm_run "vm-$line" --timeout 1500 -- \
			sh -c 'XMEMSIM_RELOADS=10 XFUZZ_OPS=1500 sh /work/tests/vm/run.sh'
	fi
done

stage "VM at scale ($FIRST, 1 GiB HBM, 2^20 descriptors, 64 cores)"
XMEMSIM_KV=$FIRST vm_run "vm-scale-$FIRST" --mem 2560 \
	--params "hbm_size=0x40000000 num_blocks=1048576 cores=64" -- sh /work/tests/vm/scale.sh

# A newcomer's start, from a cache folder not yet made and a copy of the
# tree with nothing beside it (scripts/cold-start.sh, TAP), the kernels
# built above handed over by path
stage "cold start: make demo in a lone copy, XMEMSIM_CACHE not yet made"
XMEMSIM_PREBUILT=$CACHE bash scripts/cold-start.sh >"$RES/cold-start.tap" 2>"$RES/cold-start.err"
count_tap "$RES/cold-start.tap" "cold-start" || { tail -n 30 "$RES/cold-start.err"; gate 1 "cold-start: no tests ran"; }

# the stock boots start from a cache not yet made as well (the image
# handed over by path): vm.sh's cold start, without a boot more
for line in $XMEMSIM_KERNELS; do
	stage "VM tests on Debian's stock $line kernel (DKMS, modprobe, udev)"
	scache=$(mktemp -d "${TMPDIR:-/tmp}/xmemsim-stock.XXXXXX")
	XMEMSIM_CACHE=$scache/new XMEMSIM_PREBUILT=$CACHE \
		vm_run "stock-$line" --stock "$line" -- sh /work/tests/vm/stock.sh
	rm -rf "$scache"
done

stage "kernel-code gates"
KFILES=$(ls kmod/*.[ch] kmod/tests/*.[ch] kmod/*/*.[ch] uapi/*.h 2>/dev/null | sort -u)
# private build folders: another checkout's make check may run beside this
mkdir -p "$CACHE"
LINTDIR=$(mktemp -d "$CACHE/lint.XXXXXX")
trap 'rm -rf "$LINTDIR"' EXIT
V=$(cat VERSION)
for line in $XMEMSIM_KERNELS; do
	SRC=$(XMEMSIM_KV=$line bash scripts/kernel.sh src)
	VM=$(XMEMSIM_KV=$line bash scripts/kernel.sh vm)
	"$SRC/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types -f $KFILES \
		>"$RES/checkpatch-$line.log" 2>&1
	[ -s "$RES/checkpatch-$line.log" ] && cat "$RES/checkpatch-$line.log"
	gate $([ -s "$RES/checkpatch-$line.log" ] && echo 1 || echo 0) \
		"checkpatch --strict of linux-source-$line, no findings"

	# the ioctl magic (uapi/xmemsim.h) must stay free in the kernel's own table
	magic=$(sed -n 's/^#define XMEMSIM_IOC_MAGIC[[:space:]]*\(0x[0-9A-Fa-f]*\).*/\1/p' uapi/xmemsim.h)
	table=$SRC/Documentation/userspace-api/ioctl/ioctl-number.rst
	[ -n "$magic" ] && [ -f "$table" ] && ! grep -qiE "^$magic[[:space:]]" "$table"
	gate $? "ioctl magic $magic is not taken in $line's $(basename "$table")"

	lintsrc=$LINTDIR/lint-$line
	mkdir -p "$lintsrc" && cp -rs "$REPO/Kbuild" "$REPO/VERSION" "$REPO/kmod" "$REPO/uapi" "$lintsrc/"
	make -j"$JOBS" -C "$VM" M="$lintsrc" W=1 modules >"$RES/w1-$line.log" 2>&1
	wr=$?
	grep -E 'warning:|error:' "$RES/w1-$line.log"
	gate $([ $wr -eq 0 ] && ! grep -qE 'warning:|error:' "$RES/w1-$line.log" && echo 0 || echo 1) \
		"W=1 build against the $line kernel, no warnings"
	make -j"$JOBS" -C "$VM" M="$lintsrc" C=2 modules >"$RES/sparse-$line.log" 2>&1
	sr=$?
	grep -E 'warning:|error:' "$RES/sparse-$line.log"
	gate $([ $sr -eq 0 ] && ! grep -qE 'warning:|error:' "$RES/sparse-$line.log" && echo 0 || echo 1) \
		"sparse (C=2) against the $line kernel, no warnings"

	# The distribution's headers, through DKMS: `make dkms-source` into a
	# private tree, `dkms add` and `dkms build` there (--sourcetree,
	# --dkmstree), nothing in /usr/src or /var/lib/dkms
	HDR=$(xmemsim_headers_dir "$line")
	if [ -n "$HDR" ]; then
		KVER=${HDR##*/linux-headers-}
		dk=$LINTDIR/dkms-$line
		mkdir -p "$dk/tree" &&
			make -s dkms-source DESTDIR="$dk" DKMS_SRC=/src >"$RES/distro-$line.log" 2>&1 &&
			dkms add -m xmemsim -v "$V" --sourcetree "$dk/src" --dkmstree "$dk/tree" \
				>>"$RES/distro-$line.log" 2>&1 &&
			dkms build -m xmemsim -v "$V" -k "$KVER" --sourcetree "$dk/src" \
				--dkmstree "$dk/tree" >>"$RES/distro-$line.log" 2>&1
		dr=$?
		ko=$(find "$dk/tree/xmemsim/$V/$KVER" -name 'xmemsim.ko*' 2>/dev/null | head -1)
		[ $dr -eq 0 ] && [ -n "$ko" ]
		dr=$?
		[ $dr -ne 0 ] && tail -n 30 "$RES/distro-$line.log"
		gate $dr "module builds against $(basename "$HDR") (dkms add/build, private tree)"
		[ -n "$ko" ] && [ "$(modinfo -F version "$ko")" = "$V" ]
		gate $? "MODULE_VERSION is $V (VERSION), $KVER"
	else
		echo "ok - distro headers build # SKIP no linux-headers-$line"
		skipped "distro-$line" "no linux-headers-$line"
		skipped "distro-$line" "no linux-headers-$line"
	fi
done
# A kernel outside the range dkms.conf names (BUILD_EXCLUSIVE_KERNEL) is
# skipped with DKMS's status 77, which its postinst takes as "skipped", so
# the package still configures for the others: 7.0 with 6.12's headers.
dk=$LINTDIR/dkms-excl
HDR=$(xmemsim_headers_dir "$FIRST")
mkdir -p "$dk/tree" && make -s dkms-source DESTDIR="$dk" DKMS_SRC=/src >"$RES/excl.log" 2>&1 &&
	dkms add -m xmemsim -v "$V" --sourcetree "$dk/src" --dkmstree "$dk/tree" >>"$RES/excl.log" 2>&1
dkms build -m xmemsim -v "$V" -k 7.0.0-1-amd64 --kernelsourcedir "$HDR" --sourcetree "$dk/src" \
	--dkmstree "$dk/tree" >>"$RES/excl.log" 2>&1
er=$?
[ $er -eq 77 ] && grep -q 'BUILD_EXCLUSIVE' "$RES/excl.log"
gate $? "DKMS skips a kernel outside 6.1-6.12 (status $er, BUILD_EXCLUSIVE_KERNEL)"

stage "packaging gates"
make -s man-check >"$RES/man.log" 2>&1
mr=$?
[ $mr -ne 0 ] && cat "$RES/man.log"
gate $mr "man pages render at 80 columns without warnings (man --warnings -l)"
# the docs gate: options, parameters, uapi, errnos, symbols against the
# docs (scripts/docs-gate.sh; each check one counted TAP line)
XMEMSIM_KO=$lintsrc/kmod/xmemsim.ko bash scripts/docs-gate.sh build >"$RES/docs.tap" 2>&1
count_tap "$RES/docs.tap" "docs" || gate 1 "docs: the gate ran no check"
# the repository needs nothing beside it: no tracked file reads a path
# above the checkout (scripts/outside-gate.py)
python3 scripts/outside-gate.py >"$RES/outside.tap" 2>&1
count_tap "$RES/outside.tap" "outside" || gate 1 "outside: the gate ran no check"
# xmemctl stats --prometheus: the exposition that tests/host/test_xmstat.c
# writes passed promtool (Debian's prometheus package, scripts/deps.sh)
command -v promtool >/dev/null &&
	grep -q '^# promtool check metrics (every user): 0$' build/results/test_xmstat.tap
gate $? "promtool check metrics accepts xmemctl stats --prometheus"
[ "$(dpkg-parsechangelog -S Version)" = "$V" ] &&
	grep -qx "PACKAGE_VERSION=\"@VERSION@\"" dkms.conf.in
gate $? "debian/changelog and dkms.conf take VERSION ($V)"

# The Debian packages: built from a copy of the tree (make deb), lintian,
# installed on this machine (the module built by DKMS for the installed
# headers), the tools and a program outside the tree run, then purged
# again; a run that stopped half way is purged first.
PKGS="xmemsim-dkms libxmemsim1 libxmemsim-dev xmemsim-tools"
ARCH=$(dpkg --print-architecture)
KVERS=""	# every line's installed headers: DKMS builds for each at install
for line in $XMEMSIM_KERNELS; do
	HDR=$(xmemsim_headers_dir "$line")
	[ -n "$HDR" ] && KVERS+=" ${HDR##*/linux-headers-}"
done
if [ "$(id -u)" -ne 0 ] || [ -z "$KVERS" ]; then
	echo "ok - Debian packages # SKIP needs root and linux-headers"
	skipped packages "needs root and linux-headers"
else
	make -s deb >"$RES/deb.log" 2>&1
	br=$?
	[ $br -ne 0 ] && tail -n 30 "$RES/deb.log"
	gate $br "dpkg-buildpackage -us -uc -b: $PKGS"
	debs="build/pkg/xmemsim-dkms_${V}_all.deb build/pkg/libxmemsim1_${V}_$ARCH.deb
		build/pkg/libxmemsim-dev_${V}_$ARCH.deb build/pkg/xmemsim-tools_${V}_$ARCH.deb"
	lintian --fail-on error $debs >"$RES/lintian.log" 2>&1
	lr=$?
	[ $lr -ne 0 ] && cat "$RES/lintian.log"
	gate $lr "lintian: no errors"
	dpkg --purge $PKGS >"$RES/pkg-install.log" 2>&1
	dpkg -i $debs >>"$RES/pkg-install.log" 2>&1
	ir=$?
	[ $ir -ne 0 ] && tail -n 30 "$RES/pkg-install.log"
	gate $ir "the packages install (DKMS builds for$KVERS)"
	[ "$(/usr/bin/xmemctl --version)" = "xmemctl $V" ] &&
		[ "$(/usr/bin/dramplan --version)" = "dramplan $V" ] &&
		/usr/bin/dramplan -q --no-svg -o /dev/null examples/mlp.json &&
		[ "$(/usr/bin/xmemctl --dev=/dev/null info 2>&1)" = "xmemctl: info: ENOTTY -" ] &&
		man -w xmemctl >/dev/null && man -w 4 xmemsim >/dev/null && man -w xms_free >/dev/null
	gate $? "installed: xmemctl and dramplan run, their man pages are found"
	cc -o "$LINTDIR/consumer" tests/install/consumer.c \
		$(pkg-config --cflags --libs libxmemsim) >"$RES/consumer.log" 2>&1 &&
		[ "$("$LINTDIR/consumer")" = ok ] &&
		ldd "$LINTDIR/consumer" | grep -E 'libxmemsim\.so\.1 => (/usr)?/lib/' >/dev/null
	gate $? "a program outside the tree builds with pkg-config libxmemsim and runs"
	# the planner alone: no device library, no liburing in its link
	cc -o "$LINTDIR/planner_consumer" tests/install/planner_consumer.c \
		$(pkg-config --cflags --libs --static libdramplan) >>"$RES/consumer.log" 2>&1 &&
		[ "$("$LINTDIR/planner_consumer" examples/mlp.json)" = "ok 1" ] &&
		! nm "$LINTDIR/planner_consumer" | grep -E ' xms_' >/dev/null &&
		! ldd "$LINTDIR/planner_consumer" | grep -E 'libxmemsim|liburing' >/dev/null
	gate $? "a program outside the tree plans with pkg-config libdramplan alone"
	for KVER in $KVERS; do
		dkms status -m xmemsim -v "$V" -k "$KVER" | grep ": installed" >/dev/null &&
			ls /lib/modules/"$KVER"/updates/dkms/xmemsim.ko* >/dev/null 2>&1
		gate $? "dkms status: xmemsim/$V installed for $KVER"
	done
	dpkg --purge $PKGS >>"$RES/pkg-install.log" 2>&1 && [ ! -e /usr/bin/xmemctl ] &&
		! ls /lib/modules/*/updates/dkms/xmemsim.ko* >/dev/null 2>&1
	gate $? "the packages purge cleanly (module and tools gone)"
fi

stage "skips against docs/device.md's expected skips"
# Every skip must be one docs/device.md expects on a machine set up as the
# README says (its table's first column, glob patterns); any other is a
# defect and fails here.
mapfile -t expected < <(sed -n '/^### Expected skips/,/^#/p' docs/device.md |
	sed -n 's/^| `\([^`]*\)` |.*/\1/p')
[ ${#expected[@]} -gt 0 ]
gate $? "docs/device.md lists the expected skips"
for reason in "${!skip_count[@]}"; do
	known=1
	for pat in "${expected[@]}"; do
		# shellcheck disable=SC2053 # the table's patterns are globs
		[[ $reason == $pat ]] && { known=0; break; }
	done
	gate $known "skip expected by docs/device.md: $reason (${skip_count[$reason]}x: ${skip_where[$reason]})"
done

stage_end
echo
echo "skipped, by reason:"
for reason in "${!skip_count[@]}"; do
	printf '%5d  %s  [%s]\n' "${skip_count[$reason]}" "$reason" "${skip_where[$reason]}"
done | sort -k2
echo
echo "wall time per stage:"
for i in "${!stage_names[@]}"; do
	printf '%6d s  %s\n' "${stage_secs[$i]}" "${stage_names[$i]}"
done
echo
for line in $XMEMSIM_KERNELS; do
	echo "kernel $line (passed/failed/skipped): ${per_kernel[$line]:-none}"
done
echo "make check took $(( $(date +%s) - t0 )) s"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
