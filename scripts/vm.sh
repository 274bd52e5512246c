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
#   scripts/vm.sh --stock LINE ...      Debian's own kernel of LINE (6.1, 6.12):
#                                       the image fetched with apt-get download
#                                       and unpacked into the cache, the module
#                                       built by DKMS against the installed
#                                       linux-headers of the same release,
#                                       loaded by modprobe from updates/dkms
#                                       with udevd applying udev/60-xmemsim.rules
#   scripts/vm.sh --append "ARGS" ...  more kernel command line (lockdown=...)
#   XMEMSIM_KV=6.12 scripts/vm.sh ...   the debug kernel of another line
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
STOCK=""
APPEND=""
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
	--stock) STOCK=$2; shift 2 ;;
	--append) APPEND=$2; shift 2 ;;
	-h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--) shift; CMD=("$@"); break ;;
	*) echo "vm.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
	esac
done
[ ${#CMD[@]} -gt 0 ] || CMD=(sh /work/tests/vm/run.sh)

log() { echo "vm.sh: $*" >&2; }

"$REPO/scripts/deps.sh"
mkdir -p "$CACHE"
RUN=$(mktemp -d "$CACHE/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
ROOT=$RUN/root
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,work,include,lib/modules,tests,etc}

# stock_image KREL: Debian's linux-image-KREL, unpacked once into the cache
# (never installed on the host); prints its folder
stock_image() {
	local dir=$CACHE/stock-$1 tmp
	if [ ! -f "$dir/boot/vmlinuz-$1" ] && [ -n "${XMEMSIM_PREBUILT:-}" ] &&
		[ -f "$XMEMSIM_PREBUILT/stock-$1/boot/vmlinuz-$1" ]; then
		dir=$XMEMSIM_PREBUILT/stock-$1	# kernel.sh's XMEMSIM_PREBUILT
	elif [ ! -f "$dir/boot/vmlinuz-$1" ]; then
		tmp=$(mktemp -d "$CACHE/stock.XXXXXX")
		(cd "$tmp" && apt-get download -qq "linux-image-$1" >/dev/null 2>&1) || {
			rm -rf "$tmp"
			log "apt-get download linux-image-$1 failed"
			return 1
		}
		dpkg -x "$tmp"/linux-image-*.deb "$tmp/root"
		rm -rf "$dir"
		mv "$tmp/root" "$dir"
		rm -rf "$tmp"
	fi
	echo "$dir"
}

# guest_bin PATH...: host programs into the guest, with the libraries ldd
# names for them
guest_bin() {
	local f l
	for f in "$@"; do
		mkdir -p "$ROOT$(dirname "$f")"
		cp -L "$f" "$ROOT$f"
		for l in $(ldd "$f" | grep -oE '/[^ ]+'); do
			[ -e "$ROOT$l" ] && continue
			mkdir -p "$ROOT$(dirname "$l")"
			cp -L "$l" "$ROOT$l"
		done
	done
}

if [ -n "$STOCK" ]; then
	. "$REPO/scripts/matrix.sh"
	HDR=$(xmemsim_headers_dir "$STOCK")
	[ -n "$HDR" ] || { log "no linux-headers of $STOCK installed (scripts/deps.sh)"; exit 2; }
	KREL=${HDR##*/linux-headers-}
	IMG=$(stock_image "$KREL")
	KIMAGE=$IMG/boot/vmlinuz-$KREL
	KCONFIG=$IMG/boot/config-$KREL
	KSYMS=$HDR/Module.symvers
	MODTAG=stock-$KREL
else
	VM=$(XMEMSIM_KV=${XMEMSIM_KV:-} "$REPO/scripts/kernel.sh" "$KERNEL")
	KIMAGE=$VM/arch/x86/boot/bzImage
	KCONFIG=$VM/.config
	KSYMS=$VM/Module.symvers
	MODTAG=$(basename "$VM")
fi

# The module, built from a private copy in this run's own folder, so its
# objects never mix with other builds of the same sources, nor with another
# checkout's run going on at the same time. The .ko files are kept by a
# hash of the sources and of the kernel's config and symbols, so the next
# boot of the same tree (make check boots twice) skips the 15 s build.
MODSRC=$RUN/mod
mkdir -p "$MODSRC"
cp -rs "$REPO/Kbuild" "$REPO/VERSION" "$REPO/kmod" "$REPO/uapi" "$MODSRC/"
modkey=$( (cd "$REPO" && find Kbuild VERSION dkms.conf.in kmod uapi -type f \
	\( -name '*.[ch]' -o -name Kbuild -o -name Kconfig -o -name Makefile \
	-o -name VERSION -o -name '*.in' \) ! -name '*.mod.c' -print0 | sort -z | xargs -0 sha256sum
	sha256sum "$KCONFIG" "$KSYMS") | sha256sum | cut -c1-16)
MODCACHE=$CACHE/mod-$KERNEL-$MODTAG-$modkey
if [ -f "$MODCACHE/xmemsim.ko" ]; then
	mkdir -p "$MODSRC/kmod"
	cp "$MODCACHE"/*.ko "$MODSRC/kmod/"
elif [ -n "$STOCK" ]; then
	# the project's DKMS source, as the package installs it, built by
	# dkms for the stock kernel's headers in a private tree
	V=$(cat "$REPO/VERSION")
	dk=$RUN/dkms
	mkdir -p "$dk/tree"
	{ make -s -C "$REPO" dkms-source DESTDIR="$dk" DKMS_SRC=/src &&
		dkms add -m xmemsim -v "$V" --sourcetree "$dk/src" --dkmstree "$dk/tree" &&
		dkms build -m xmemsim -v "$V" -k "$KREL" --sourcetree "$dk/src" \
			--dkmstree "$dk/tree"; } >"$RUN/mod.log" 2>&1 || {
		cat "$RUN/mod.log" "$dk/tree/xmemsim/$V/build/make.log" >&2 2>/dev/null
		log "DKMS build for $KREL failed"
		exit 1
	}
	# as DKMS made it (compressed where the kernel's modules are:
	# xmemsim.ko.xz on 6.12), and plain for the tests' insmod
	ko=$(find "$dk/tree/xmemsim/$V/$KREL" -name 'xmemsim.ko*' | head -1)
	mkdir -p "$RUN/modcache/dkms"
	cp "$ko" "$RUN/modcache/dkms/"
	case "$ko" in
	*.xz) xz -dc "$ko" >"$RUN/modcache/xmemsim.ko" ;;
	*.zst) zstd -qdc "$ko" >"$RUN/modcache/xmemsim.ko" ;;
	*) cp "$ko" "$RUN/modcache/xmemsim.ko" ;;
	esac
	mkdir -p "$MODSRC/kmod"
	cp "$RUN/modcache/xmemsim.ko" "$MODSRC/kmod/"
	rm -rf "$CACHE/mod-$KERNEL-$MODTAG-"*
	mv "$RUN/modcache" "$MODCACHE" 2>/dev/null || true
else
	make -s -j"$(nproc)" -C "$VM" M="$MODSRC" modules >"$RUN/mod.log" 2>&1 || {
		cat "$RUN/mod.log" >&2
		log "module build failed"
		exit 1
	}
	rm -rf "$CACHE/mod-$KERNEL-$MODTAG-"*
	mkdir -p "$RUN/modcache"
	find "$MODSRC/kmod" -name '*.ko' -exec cp {} "$RUN/modcache/" \;
	mv "$RUN/modcache" "$MODCACHE" 2>/dev/null || true
fi

# Userspace, static, for the initramfs.
make -s -C "$REPO" -j"$(nproc)" O=build/static STATIC=1 vm-userspace >&2
cp /bin/busybox "$ROOT/bin/busybox"
cp "$MODSRC/kmod/xmemsim.ko" "$ROOT/lib/modules/"
find "$MODSRC/kmod" -name '*.ko' ! -name xmemsim.ko -exec cp {} "$ROOT/lib/modules/" \;
[ -z "$STOCK" ] && [ -f "$VM/lib/kunit/kunit.ko" ] && cp "$VM/lib/kunit/kunit.ko" "$ROOT/lib/modules/"
if [ -n "$STOCK" ]; then
	# where DKMS installs it, found by the real modprobe (kmod) through
	# depmod's index; udevd with the project's rule alone; a member of
	# group xmemsim (gid 600, the group the multi-user tests expect)
	mkdir -p "$ROOT/lib/modules/$KREL/updates/dkms" "$ROOT/lib/udev/rules.d" "$ROOT/run"
	cp "$MODCACHE"/dkms/* "$ROOT/lib/modules/$KREL/updates/dkms/"
	cp "$IMG/lib/modules/$KREL"/modules.{order,builtin,builtin.modinfo} "$ROOT/lib/modules/$KREL/"
	depmod -b "$ROOT" "$KREL"
	guest_bin /bin/kmod /lib/systemd/systemd-udevd /bin/udevadm
	for l in modprobe modinfo; do ln -s /bin/kmod "$ROOT/usr/sbin/$l"; done
	cp "$REPO/udev/60-xmemsim.rules" "$ROOT/lib/udev/rules.d/"
	printf '%s\n' root:x:0:0:root:/root:/bin/sh xuser:x:1000:1000:xuser:/tmp:/bin/sh \
		nobody:x:65534:65534:nobody:/nonexistent:/bin/sh >"$ROOT/etc/passwd"
	printf '%s\n' root:x:0: xuser:x:1000: xmemsim:x:600:xuser nogroup:x:65534: >"$ROOT/etc/group"
	echo "$KREL" >"$ROOT/stock"
fi
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
if [ -f /stock ]; then
	# a distribution's boot: udevd, then the module by name
	/lib/systemd/systemd-udevd --daemon 2>/dev/null
	if [ "$(cat /insmod)" = 1 ]; then
		/usr/sbin/modprobe xmemsim $(cat /params) || echo "XMEMSIM-MARK insmod-failed" > $out
		/bin/udevadm settle --timeout=10
	fi
elif [ "$(cat /insmod)" = 1 ]; then
	insmod /lib/modules/xmemsim.ko $(cat /params) || echo "XMEMSIM-MARK insmod-failed" > $out
fi
cd /work
export XMEMSIM_VM=1
sh -c "$(cat /cmd)" > $out 2>&1
rc=$?
if [ "$(cat /insmod)" = 1 ] && grep -q '^xmemsim ' /proc/modules; then
	# a closed ring's files are put by io_uring's exit work, late
	i=0
	while [ "$(cat /sys/module/xmemsim/refcnt)" != 0 ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
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
	# in a shell of its own whose stderr goes nowhere: a qemu that dies on
	# SIGABRT (-cpu host without working KVM) makes the shell that waits
	# for it print "Aborted" there
	bash -c 'timeout -k 5 30 "$@" >/dev/null 2>&1 || true' probe \
		qemu-system-x86_64 -accel kvm -cpu host -m 256 \
		-kernel "$KIMAGE" -initrd "$RUN/probe.cpio" \
		-append "console=ttyS0 panic=-1" -display none -monitor none \
		-serial "file:$RUN/probe.log" -no-reboot 2>/dev/null || true
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
	-m "$MEM" -smp 2 -kernel "$KIMAGE" \
	-initrd "$RUN/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=6${APPEND:+ $APPEND}" \
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
