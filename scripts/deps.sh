#!/usr/bin/env bash
# Install every Debian package xmemsim needs. Idempotent: quiet and fast
# when everything is already there.
set -euo pipefail

pkgs=(
	build-essential flex bison bc cpio xz-utils kmod
	libelf-dev libssl-dev dwarves
	linux-source-6.1
	busybox-static
	qemu-system-x86
	liburing-dev
	libyajl-dev
	clang
	sparse
	python3
	pkg-config
	dkms dh-dkms debhelper lintian man-db groff-base adduser
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

# Debian's distribution headers, for the "builds against a distro's headers"
# check. The exact version follows whatever the archive currently serves.
if ! ls -d /usr/src/linux-headers-6.1.*-amd64 >/dev/null 2>&1; then
	missing+=("linux-headers-amd64")
fi

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: need root to install: ${missing[*]}" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
