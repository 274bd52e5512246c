# shellcheck shell=bash
# The kernel matrix, sourced by every script that builds or boots a kernel.
#
# XMEMSIM_KERNELS: the kernel lines xmemsim is built and tested on, each a
# Debian package line: linux-source-<line> gives the UML (KUnit) and debug
# VM kernels, linux-headers-<line>.*-amd64 the DKMS build, and the matching
# linux-image the stock-kernel boot. make check runs every stage that needs
# a kernel once per line; the first line is the default of the single-
# kernel entry points (scripts/kernel.sh, kunit.sh, vm.sh). To add a line,
# add it here: scripts/deps.sh installs its packages on the next run.
XMEMSIM_KERNELS=${XMEMSIM_KERNELS:-"6.1 6.12"}

# xmemsim_headers_pkg LINE: the name of the newest linux-headers package of
# LINE for amd64 that the archive serves (apt-get update first), or nothing.
# 6.1's are linux-headers-6.1.0-N-amd64, 6.12's linux-headers-6.12.N+deb12-amd64.
xmemsim_headers_pkg() {
	local re
	re="^linux-headers-${1//./\\.}\\.[0-9]+(-[0-9]+|\\+deb[0-9]+)-amd64\$"
	apt-cache pkgnames "linux-headers-$1." 2>/dev/null | grep -E "$re" | sort -V | tail -1
}

# xmemsim_headers_dir LINE: the installed headers of LINE, the newest.
xmemsim_headers_dir() {
	local d
	for d in /usr/src/linux-headers-"$1".*-amd64; do
		[[ "$d" =~ /linux-headers-${1//./\\.}\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64$ ]] &&
			echo "$d"
	done | sort -V | tail -1
}
