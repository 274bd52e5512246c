#!/usr/bin/env bash
# Install every Debian package xmemsim needs. Idempotent: quiet and fast
# when everything is already there.
set -euo pipefail

pkgs=(
	build-essential flex bison bc cpio xz-utils kmod
	libelf-dev libssl-dev dwarves
	busybox-static
	qemu-system-x86
	liburing-dev
	libyajl-dev
	clang
	sparse
	python3
	pkg-config
	dkms dh-dkms debhelper lintian man-db groff-base adduser
	prometheus
)

# every kernel line of the matrix: its source (UML and debug VM kernels)
. "$(dirname "$0")/matrix.sh"
for line in $XMEMSIM_KERNELS; do
	pkgs+=("linux-source-$line")
done

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

# dramplan-import runs networks with Debian's PyTorch, for
# /usr/bin/python3 (about 1 GB). Optional: without it everything else
# builds and runs, the importer says what is missing and its tests skip.
# python3-onnx reads ONNX graphs (dramplan-import model.onnx).
optional=(python3-torch python3-torchvision python3-onnx)
opt_missing=()
for p in "${optional[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		opt_missing+=("$p")
	fi
done

# Debian's headers of every line, for the DKMS builds and the stock-kernel
# boots; the newest release the archive serves, looked up after
# apt-get update. (6.12's headers package depends on its linux-image: apt
# installs that package too, which the host never boots.)
hdr_lines=()
for line in $XMEMSIM_KERNELS; do
	[ -n "$(xmemsim_headers_dir "$line")" ] || hdr_lines+=("$line")
done

[ ${#missing[@]} -eq 0 ] && [ ${#opt_missing[@]} -eq 0 ] && [ ${#hdr_lines[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	[ ${#hdr_lines[@]} -eq 0 ] || missing+=("linux-headers of ${hdr_lines[*]}")
	if [ ${#missing[@]} -eq 0 ]; then
		echo "deps.sh: optional, not installed (need root): ${opt_missing[*]}" >&2
		exit 0
	fi
	echo "deps.sh: need root to install: ${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# another apt (a second entry point, unattended-upgrades) may hold dpkg's
# lock: wait for it rather than fail
apt_get() { apt-get -o DPkg::Lock::Timeout=900 "$@"; }
apt_get update -qq
for line in "${hdr_lines[@]}"; do
	p=$(xmemsim_headers_pkg "$line")
	[ -n "$p" ] || { echo "deps.sh: no linux-headers package of $line in the archive" >&2; exit 1; }
	missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps.sh: installing ${missing[*]}"
	apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#opt_missing[@]} -gt 0 ]; then
	echo "deps.sh: installing ${opt_missing[*]} (optional)"
	apt_get install -y -qq --no-install-recommends "${opt_missing[@]}" >/dev/null ||
		echo "deps.sh: optional ${opt_missing[*]} not installed: dramplan-import's tests will skip" >&2
fi
