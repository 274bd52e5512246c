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
	prometheus
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

# dramplan-import (issue 23) runs networks with Debian's PyTorch, for
# /usr/bin/python3 (about 1 GB). Optional: without it everything else
# builds and runs, the importer says what is missing and its tests skip.
optional=(python3-torch python3-torchvision)
opt_missing=()
for p in "${optional[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		opt_missing+=("$p")
	fi
done

# Debian's distribution headers, for the "builds against a distro's headers"
# check. The exact version follows whatever the archive currently serves.
if ! ls -d /usr/src/linux-headers-6.1.*-amd64 >/dev/null 2>&1; then
	missing+=("linux-headers-amd64")
fi

[ ${#missing[@]} -eq 0 ] && [ ${#opt_missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if [ ${#missing[@]} -eq 0 ]; then
		echo "deps.sh: optional, not installed (need root): ${opt_missing[*]}" >&2
		exit 0
	fi
	echo "deps.sh: need root to install: ${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps.sh: installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#opt_missing[@]} -gt 0 ]; then
	echo "deps.sh: installing ${opt_missing[*]} (optional)"
	apt-get install -y -qq --no-install-recommends "${opt_missing[@]}" >/dev/null ||
		echo "deps.sh: optional ${opt_missing[*]} not installed: dramplan-import's tests will skip" >&2
fi
