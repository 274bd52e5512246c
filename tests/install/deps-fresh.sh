#!/usr/bin/env bash
# scripts/deps.sh on a machine where nothing it needs is installed yet:
# dpkg-query, apt-get and apt-cache are stand-ins on PATH that record what
# deps.sh asks of them. As root, deps.sh must update the lists, then
# install every package of its list and every kernel line's source in one
# apt-get call (waiting for dpkg's lock), then the optional ones; as
# another user it must say what it needs and fail. TAP on stdout.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'SH'
#!/bin/sh
exit 1
SH
cat >"$tmp/bin/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$DEPS_LOG"
SH
cat >"$tmp/bin/apt-cache" <<'SH'
#!/bin/sh
exit 0
SH
chmod +x "$tmp/bin/"*
export DEPS_LOG=$tmp/log
n=0
tap() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

if [ "$(id -u)" -eq 0 ]; then
	PATH=$tmp/bin:$PATH bash "$REPO/scripts/deps.sh" >"$tmp/out" 2>&1
	tap $? "deps.sh on a fresh machine exits 0"
	head -1 "$tmp/log" | grep -q '^apt-get -o DPkg::Lock::Timeout=[0-9]* update'
	tap $? "it updates the package lists first, waiting for dpkg's lock"
	. "$REPO/scripts/matrix.sh"
	want="build-essential qemu-system-x86 liburing-dev busybox-static dkms"
	for line in $XMEMSIM_KERNELS; do want+=" linux-source-$line"; done
	inst=$(grep -m1 ' install ' "$tmp/log")
	bad=""
	for p in $want; do
		case " $inst " in *" $p "*) ;; *) bad+=" $p" ;; esac
	done
	[ -z "$bad" ] && case "$inst" in *--no-install-recommends*) true ;; *) false ;; esac
	tap $? "one apt-get install names every package and line (missing:${bad:- none})"
	grep ' install ' "$tmp/log" | sed -n 2p | grep -q 'python3-torch'
	tap $? "then the optional packages, in a call of their own"
else
	echo "ok 1 - deps.sh as root # SKIP needs root"
	n=1
	PATH=$tmp/bin:$PATH bash "$REPO/scripts/deps.sh" >"$tmp/out" 2>&1
	r=$?
	[ $r -ne 0 ] && grep -q 'need root to install' "$tmp/out" && [ ! -s "$tmp/log" ]
	tap $? "as another user it names what it needs and installs nothing"
fi
echo "1..$n"
