#!/usr/bin/env bash
# Boot the test VM with xmemsim loaded and run something in it.
#
#   scripts/vm.sh                       the VM test suite (tests/vm/run.sh)
#   scripts/vm.sh -- CMD ARGS...        any command, in /work of the guest
#   scripts/vm.sh --include DIR -- ...  also carry DIR in, as /include/<name>
#   scripts/vm.sh --params "a=1 b=2"    module parameters for insmod
#   scripts/vm.sh --no-insmod -- ...    leave the module out (tests load it)
#   scripts/vm.sh --timeout SECONDS     whole-run limit (default 600)
#   scripts/vm.sh --kernel vm-perf ...  another kernel (scripts/NAME.config)
#   scripts/vm.sh --mem MIB ...         guest memory (default 1024)
#   scripts/vm.sh --help                this text
#
# The module is built against the VM kernel from a private copy of the
# sources; userspace is built static. The guest runs CMD with its output on
# a second serial port, unloads the module, waits for kmemleak and scans.
# Exit status: CMD's, or 1 when the guest log shows a BUG, WARNING, KASAN,
# lockdep or kmemleak report, a panic, a failed insmod/rmmod or a timeout;
# then the guest's kernel log is printed.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XMEMSIM_CACHE:-$HOME/.cache/xmemsim}
TIMEOUT=600
PARAMS=""
INSMOD=1
KERNEL=vm
MEM=1024
INCLUDES=()
CMD=()

while [ $# -gt 0 ]; do
	case "$1" in
	--include) INCLUDES+=("$(cd "$2" && pwd)"); shift 2 ;;
	--params) PARAMS=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--no-insmod) INSMOD=0; shift ;;
	--kernel) KERNEL=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	-h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--) shift; CMD=("$@"); break ;;
	*) echo "vm.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
	esac
done
[ ${#CMD[@]} -gt 0 ] || CMD=(sh /work/tests/vm/run.sh)

log() { echo "vm.sh: $*" >&2; }

"$REPO/scripts/deps.sh"
VM=$("$REPO/scripts/kernel.sh" "$KERNEL")

RUN=$(mktemp -d "$CACHE/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT

# The module, built from a private copy in this run's own folder, so its
# objects never mix with other builds of the same sources, nor with another
# checkout's run going on at the same time. The .ko files are kept by a
# hash of the sources and of the kernel's config and symbols, so the next
# boot of the same tree (make check boots twice) skips the 15 s build.
MODSRC=$RUN/mod
mkdir -p "$MODSRC"
cp -rs "$REPO/Kbuild" "$REPO/VERSION" "$REPO/kmod" "$REPO/uapi" "$MODSRC/"
modkey=$( (cd "$REPO" && find Kbuild VERSION kmod uapi -type f \
	\( -name '*.[ch]' -o -name Kbuild -o -name Kconfig -o -name Makefile \
	-o -name VERSION \) ! -name '*.mod.c' -print0 | sort -z | xargs -0 sha256sum
	sha256sum "$VM/.config" "$VM/Module.symvers") | sha256sum | cut -c1-16)
MODCACHE=$CACHE/mod-$KERNEL-$modkey
if [ -f "$MODCACHE/xmemsim.ko" ]; then
	mkdir -p "$MODSRC/kmod"
	cp "$MODCACHE"/*.ko "$MODSRC/kmod/"
else
	make -s -j"$(nproc)" -C "$VM" M="$MODSRC" modules >"$RUN/mod.log" 2>&1 || {
		cat "$RUN/mod.log" >&2
		log "module build failed"
		exit 1
	}
	rm -rf "$CACHE/mod-$KERNEL-"*
	mkdir -p "$RUN/modcache"
	find "$MODSRC/kmod" -name '*.ko' -exec cp {} "$RUN/modcache/" \;
	mv "$RUN/modcache" "$MODCACHE" 2>/dev/null || true
fi

# Userspace, static, for the initramfs.
make -s -C "$REPO" -j"$(nproc)" O=build/static STATIC=1 vm-userspace >&2
ROOT=$RUN/root
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,work,include,lib/modules,tests}
cp /bin/busybox "$ROOT/bin/busybox"
cp "$MODSRC/kmod/xmemsim.ko" "$ROOT/lib/modules/"
find "$MODSRC/kmod" -name '*.ko' ! -name xmemsim.ko -exec cp {} "$ROOT/lib/modules/" \;
[ -f "$VM/lib/kunit/kunit.ko" ] && cp "$VM/lib/kunit/kunit.ko" "$ROOT/lib/modules/"
for f in "$REPO"/build/static/xmemctl "$REPO"/build/static/dramplan; do
	[ -x "$f" ] && cp "$f" "$ROOT/usr/bin/"
done
if [ -d "$REPO/build/static/tests" ]; then
	cp -r "$REPO/build/static/tests/." "$ROOT/tests/"
fi
mkdir -p "$ROOT/work/tests"
cp -r "$REPO/tests/vm" "$ROOT/work/tests/"
cp -r "$REPO/scripts" "$REPO/modprobe.d" "$ROOT/work/"
[ -d "$REPO/examples" ] && cp -r "$REPO/examples" "$ROOT/work/"
for d in "${INCLUDES[@]}"; do
	cp -r "$d" "$ROOT/include/$(basename "$d")"
done

# The command, quoted for the guest shell.
printf '%q ' "${CMD[@]}" >"$ROOT/cmd"
printf '%s' "$PARAMS" >"$ROOT/params"
echo "$INSMOD" >"$ROOT/insmod"

cat >"$ROOT/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/usr/bin:/bin:/sbin:/usr/sbin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmp /tmp
out=/dev/ttyS1
stty -F $out raw -echo 2>/dev/null
# Leaks from boot are not ours: forget them.
echo clear > /sys/kernel/debug/kmemleak 2>/dev/null
if [ "$(cat /insmod)" = 1 ]; then
	insmod /lib/modules/xmemsim.ko $(cat /params) || echo "XMEMSIM-MARK insmod-failed" > $out
fi
cd /work
export XMEMSIM_VM=1
sh -c "$(cat /cmd)" > $out 2>&1
rc=$?
if [ "$(cat /insmod)" = 1 ] && grep -q '^xmemsim ' /proc/modules; then
	rmmod xmemsim || echo "XMEMSIM-MARK rmmod-failed" > $out
fi
# kmemleak only reports objects older than ~5 s.
sleep 6
echo scan > /sys/kernel/debug/kmemleak
echo scan > /sys/kernel/debug/kmemleak
cat /sys/kernel/debug/kmemleak
echo "XMEMSIM-MARK rc=$rc" > $out
sync
reboot -f
INIT
chmod +x "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet) >"$RUN/initramfs.cpio"

# KVM: /dev/kvm may exist and still not run guests here. Probe once per host
# kernel and qemu version with a short boot, and remember the answer.
accel=tcg
probe_key=$(echo "$(uname -r) $(qemu-system-x86_64 --version | head -1)" | sha256sum | cut -c1-12)
probe=$CACHE/kvm-probe.$probe_key
if [ -w /dev/kvm ] && [ ! -f "$probe" ]; then
	mkdir -p "$RUN/probe"
	printf '#!/bin/busybox sh\n/bin/busybox echo KVM-PROBE-OK > /dev/ttyS0\n/bin/busybox reboot -f\n' >"$RUN/probe/init"
	chmod +x "$RUN/probe/init"
	mkdir -p "$RUN/probe/bin" && cp /bin/busybox "$RUN/probe/bin/"
	(cd "$RUN/probe" && find . | cpio -o -H newc --quiet) >"$RUN/probe.cpio"
	# a subshell, so the shell's "Aborted" for a qemu that dies on
	# SIGABRT (-cpu host without working KVM) goes nowhere
	(timeout -k 5 30 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
		-kernel "$VM/arch/x86/boot/bzImage" -initrd "$RUN/probe.cpio" \
		-append "console=ttyS0 panic=-1" -display none -monitor none \
		-serial "file:$RUN/probe.log" -no-reboot) >/dev/null 2>&1 || true
	if grep -q KVM-PROBE-OK "$RUN/probe.log" 2>/dev/null; then
		echo kvm >"$probe"
	else
		echo tcg >"$probe"
	fi
fi
[ -f "$probe" ] && accel=$(cat "$probe")
[ "$accel" = tcg ] && log "KVM unavailable, using TCG"
cpu=()
[ "$accel" = kvm ] && cpu=(-cpu host)

set +e
# Two vCPUs, each on its own host thread (multi-threaded TCG), so the
# guest's two CPUs really run at once.
[ "$accel" = tcg ] && accel=tcg,thread=multi
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel "$accel" "${cpu[@]}" \
	-m "$MEM" -smp 2 -kernel "$VM/arch/x86/boot/bzImage" \
	-initrd "$RUN/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=6" \
	-display none -monitor none -no-reboot \
	-serial "file:$RUN/console.log" -serial "file:$RUN/out.log" \
	>"$RUN/qemu.log" 2>&1
qrc=$?
set -e

tr -d '\r' <"$RUN/out.log" >"$RUN/out.txt"
tr -d '\r' <"$RUN/console.log" >"$RUN/console.txt"
cp "$RUN/console.txt" "$CACHE/last-console.log"
grep -v '^XMEMSIM-MARK ' "$RUN/out.txt" || true

fail=""
[ $qrc -eq 124 ] || [ $qrc -eq 137 ] && fail="timeout after ${TIMEOUT}s"
grep -q 'XMEMSIM-MARK insmod-failed' "$RUN/out.txt" && fail="insmod failed"
grep -q 'XMEMSIM-MARK rmmod-failed' "$RUN/out.txt" && fail="rmmod failed"
splat=$(grep -nE 'BUG:|WARNING:|possible recursive locking|circular locking|inconsistent lock state|suspicious RCU usage|unreferenced object|Kernel panic|Oops|general protection fault|Call Trace' "$RUN/console.txt" | head -5 || true)
[ -n "$splat" ] && fail="kernel report in the guest log: $splat"
rc=$(sed -n 's/^XMEMSIM-MARK rc=\([0-9]*\)$/\1/p' "$RUN/out.txt" | tail -1)
[ -z "$rc" ] && [ -z "$fail" ] && fail="guest ended without a result (qemu rc=$qrc)"

if [ -n "$fail" ]; then
	echo "----- guest kernel log -----" >&2
	cat "$RUN/console.txt" >&2
	cat "$RUN/qemu.log" >&2
	log "FAILED: $fail"
	exit 1
fi
exit "$rc"
