#!/usr/bin/env bash
# Build (or reuse) the kernels xmemsim runs in, from Debian's
# linux-source-<line> (XMEMSIM_KV, default the first of scripts/matrix.sh's
# XMEMSIM_KERNELS; make check runs every line of it).
#
#   scripts/kernel.sh src   extract the source into the cache, link kmod/ in
#   scripts/kernel.sh uml   UML KUnit kernel (kunit.py build)
#   scripts/kernel.sh vm    x86_64 test-VM kernel from scripts/vm.config
#   scripts/kernel.sh vm-perf  the same without the debug options (benchmarks)
#
# Cache: $XMEMSIM_CACHE (default ~/.cache/xmemsim), made on first use.
# XMEMSIM_PREBUILT names another cache whose finished kernels (same source
# version, same config hash) are used in place, by path, when this one has
# none: make check's cold-start stage starts from an empty cache that way
# without building the kernels again. Everything is keyed by the
# source package version (6.1.192-3, 6.12.118-1~deb12u1: one set of folders
# per line); the VM kernel also by the hash of its fragment. A call with
# nothing to do returns in well under a second.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XMEMSIM_CACHE:-$HOME/.cache/xmemsim}
JOBS=${JOBS:-$(nproc)}
. "$REPO/scripts/matrix.sh"
KV=${XMEMSIM_KV:-${XMEMSIM_KERNELS%% *}}
VER=$(dpkg-query -W -f='${Version}' "linux-source-$KV" 2>/dev/null || true)
[ -n "$VER" ] || { echo "kernel.sh: linux-source-$KV missing; run scripts/deps.sh" >&2; exit 1; }

# the version as a folder name: Debian's 6.12 is 6.12.118-1~deb12u1
VER=${VER//\~/_}
SRC=$CACHE/linux-$VER
UML=$CACHE/uml-$VER

mkdir -p "$CACHE"
# Locks: one for the shared source tree, one per build directory, so two
# runs never build in one directory at once (kunit.sh takes the UML lock
# around its runs too), while a cached VM kernel stays usable during a UML
# build.
lock() { exec 9>"$CACHE/.lock-$1-$VER"; flock 9; }
# One kernel build at a time on the machine, whatever the line or kind:
# two at once on 2 cores take longer than one after the other.
build_lock() { exec 7>"$CACHE/.lock-build"; flock 7; }

log() { echo "kernel.sh: $*" >&2; }

src() {
	exec 8>"$CACHE/.lock-src-$VER"
	flock 8
	if [ ! -f "$SRC/.xmemsim-extracted" ]; then
		log "extracting linux-source-$KV $VER into $SRC"
		rm -rf "$SRC" "$SRC.tmp"
		mkdir -p "$SRC.tmp"
		tar -xaf "/usr/src/linux-source-$KV.tar.xz" -C "$SRC.tmp" --strip-components=1
		touch "$SRC.tmp/.xmemsim-extracted"
		mv "$SRC.tmp" "$SRC"
	fi
	# The UML build sees kmod/ as drivers/misc/xmemsim (uml() links the
	# checkout in, under the UML lock).
	[ -e "$SRC/drivers/misc/xmemsim" ] || ln -sfn "$REPO" "$SRC/drivers/misc/xmemsim"
	grep -q 'xmemsim/kmod/Kconfig' "$SRC/drivers/misc/Kconfig" ||
		echo 'source "drivers/misc/xmemsim/kmod/Kconfig"' >>"$SRC/drivers/misc/Kconfig"
	grep -q 'xmemsim/' "$SRC/drivers/misc/Makefile" ||
		echo 'obj-y += xmemsim/' >>"$SRC/drivers/misc/Makefile"
	flock -u 8
}

uml() {
	src
	lock uml
	log "UML KUnit kernel in $UML"
	mkdir -p "$UML"
	build_lock
	# Only UML builds read the link, and they hold the UML lock: re-pointed
	# here, it stays this checkout's for the whole build. (Re-pointed by
	# src(), another checkout's call could switch it in mid-build.)
	ln -sfn "$REPO" "$SRC/drivers/misc/xmemsim"
	# Kbuild rebuilds by file times: objects built from another checkout
	# can look newer than this one's sources and be kept. The checkout
	# that built them is recorded; another one rebuilds the module's part.
	if [ "$(cat "$UML/.xmemsim-checkout" 2>/dev/null)" != "$REPO" ]; then
		rm -rf "$UML/drivers/misc/xmemsim"
		echo "$REPO" >"$UML/.xmemsim-checkout"
	fi
	(cd "$SRC" && python3 tools/testing/kunit/kunit.py build --arch=um \
		--build_dir="$UML" --kunitconfig="$REPO/kmod/tests" --jobs="$JOBS") \
		>"$UML.build.log" 2>&1 || {
		tail -n 60 "$UML.build.log" >&2
		log "UML build failed (log: $UML.build.log)"
		return 1
	}
}

# built DIR HASH: DIR holds a finished VM kernel of config HASH
built() {
	[ -f "$1/arch/x86/boot/bzImage" ] && [ -f "$1/Module.symvers" ] &&
		[ "$(cat "$1/.xmemsim-hash" 2>/dev/null)" = "$2" ]
}

# vm [NAME]: the x86_64 kernel configured by scripts/NAME.config (default
# "vm", the KASAN/lockdep/kmemleak test kernel; "vm-perf" drops the debug
# options, for benchmarks).
vm() {
	local name=${1:-vm}
	local cfg=$REPO/scripts/$name.config dir=$CACHE/$name-$VER hash
	[ -f "$cfg" ] || { log "no such kernel config: $cfg"; return 2; }
	hash=$( (cat "$cfg"; echo "$VER") | sha256sum | cut -c1-16)
	if [ -n "${XMEMSIM_PREBUILT:-}" ] && ! built "$dir" "$hash" &&
		built "$XMEMSIM_PREBUILT/$name-$VER" "$hash"; then
		echo "$XMEMSIM_PREBUILT/$name-$VER"
		return 0
	fi
	src
	lock "$name"
	if built "$dir" "$hash"; then
		echo "$dir"
		return 0
	fi
	build_lock
	log "building the $name kernel in $dir (config $hash)"
	mkdir -p "$dir"
	rm -f "$dir/.xmemsim-hash"
	{
		make -C "$SRC" O="$dir" ARCH=x86_64 tinyconfig &&
		"$SRC/scripts/kconfig/merge_config.sh" -m -O "$dir" \
			"$dir/.config" "$cfg" &&
		make -C "$SRC" O="$dir" ARCH=x86_64 olddefconfig
	} >"$dir.build.log" 2>&1 || { tail -n 40 "$dir.build.log" >&2; return 1; }
	local bad=0 line
	while read -r line; do
		case "$line" in CONFIG_*) ;; *) continue ;; esac
		grep -qx "$line" "$dir/.config" || { log "option lost in olddefconfig: $line"; bad=1; }
	done <"$cfg"
	[ $bad -eq 0 ] || return 1
	make -C "$SRC" O="$dir" ARCH=x86_64 -j"$JOBS" >>"$dir.build.log" 2>&1 || {
		tail -n 60 "$dir.build.log" >&2
		log "$name kernel build failed (log: $dir.build.log)"
		return 1
	}
	echo "$hash" >"$dir/.xmemsim-hash"
	echo "$dir"
}

case "${1:-}" in
src) src; echo "$SRC" ;;
uml) uml; echo "$UML" ;;
vm | vm-*) vm "$1" ;;
paths) printf 'KV=%s\nSRC=%s\nUML=%s\nVM=%s\n' "$KV" "$SRC" "$UML" "$CACHE/vm-$VER" ;;
*) echo "usage: $0 src|uml|vm|vm-perf|paths" >&2; exit 2 ;;
esac
