#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The docs gate: what the code offers is in the docs. One TAP line a check
# (make check counts each), and under a failed one a "# " line per gap.
#
#   scripts/docs-gate.sh [BUILD]    BUILD: the userspace build (default build)
#
#  1-3. every option and command a tool's --help prints is in its man page
#       (xmemctl, dramplan, dramplan-import)
#  4.   every module parameter (module_param in kmod/*.c; and modinfo -p of
#       the xmemsim.ko built from this tree, $XMEMSIM_KO, when given: the
#       two sets compared) is in xmemsim(4) and in a README table
#  5.   every feature bit and ioctl of uapi/xmemsim.h and every tracepoint
#       of kmod/trace.h is in xmemsim(4)
#  6.   every errno kmod/ returns is in xmemsim(4)'s ERRORS
#  7.   every symbol libxmemsim exports (userspace/lib/libxmemsim.map) has
#       a man page or a .so link (docs/man/links) to a page naming it
#
# Man pages are read from their source with \- as - and font escapes
# dropped, so "\-\-dram\-size" is --dram-size.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
B=${1:-build}
n=0 bad=0

# plain PAGE: the man page's source as words a reader sees
plain() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\&//g' \
		-e 's/\\(em/ /g' "$1"
}

# check NAME: one TAP line from the gaps collected in $gaps
check() {
	n=$((n + 1))
	if [ -z "$gaps" ]; then
		echo "ok $n - docs: $1"
	else
		bad=$((bad + 1))
		echo "not ok $n - docs: $1"
		printf '%s\n' "$gaps" | sed 's/^/#   /'
	fi
}

# has TEXT WORD: WORD in TEXT as a whole word (names with _ and -)
has() {
	grep -qE -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|\$)" <<<"$1"
}

# tool_check TOOL PAGE: --help's long options, short options and (with
# a "commands:" part) its commands, each in the page
tool_check() {
	local tool=$1 page=$2 help text w
	gaps=""
	if ! help=$("$B/$tool" --help 2>&1); then
		gaps="$B/$tool --help failed (build userspace first)"
		check "$tool --help vs $page"
		return
	fi
	text=$(plain "docs/man/$page")
	for w in $(grep -oE -- '(^|[ ,[])--[a-z][a-z0-9-]*' <<<"$help" | sed 's/^[ ,[]//' | sort -u) \
		 $(grep -oE -- '(^|[ ,])-[a-zA-Z]([ ,]|$)' <<<"$help" | tr -d ' ,' | sort -u); do
		has "$text" "$w" || gaps+="${gaps:+$'\n'}$tool --help: $w is not in $page"
	done
	# the commands: words at the start of the lines after "commands:"
	for w in $(sed -n '/^commands:/,/^[^ ]/s/^  \([a-z][a-z-]*\) .*/\1/p' <<<"$help" | sort -u); do
		grep -qE "^\.(B|BR|BI|TP|IP)? *\"?$w( |\"|$)" "docs/man/$page" ||
			grep -qE "^\.B \"$w( |\")" "docs/man/$page" ||
			gaps+="${gaps:+$'\n'}$tool --help: command $w has no entry in $page"
	done
	check "$tool --help options and commands are in $page"
}

tool_check xmemctl xmemctl.1
tool_check dramplan dramplan.1
tool_check dramplan-import dramplan-import.1

# --- module parameters ---------------------------------------------------------
gaps=""
# module_param() and module_param_named() lines, and fault.c's
# FAIL_PARAM(site, ...), which makes fail_<site>
params=$( (sed -n -E 's/^[[:space:]]*module_param(_named)?\(([a-z0-9_]+),.*/\2/p' kmod/*.c
	sed -n -E 's/^FAIL_PARAM\(([a-z0-9_]+),.*/fail_\1/p' kmod/*.c) | sort -u)
[ -n "$params" ] || gaps="no module_param found in kmod/*.c"
# the module built from this checkout (make check's W=1 build), when given:
# a cached one may be another tree's
ko=${XMEMSIM_KO:-}
if [ -n "$ko" ] && [ -f "$ko" ] && command -v modinfo >/dev/null; then
	mi=$(modinfo -p "$ko" 2>/dev/null | sed 's/:.*//' | sort -u)
	for w in $(comm -13 <(printf '%s\n' "$params") <(printf '%s\n' "$mi")); do
		gaps+="${gaps:+$'\n'}modinfo -p $ko: $w is no module_param of kmod/*.c (the parser missed it)"
	done
fi
man4=$(plain docs/man/xmemsim.4)
tables=$(grep -E '^\|' README.md)
for w in $params; do
	has "$man4" "$w" || gaps+="${gaps:+$'\n'}module parameter $w is not in xmemsim(4)"
	grep -qF -- "\`$w\`" <<<"$tables" ||
		gaps+="${gaps:+$'\n'}module parameter $w is in no README table"
done
check "module parameters are in xmemsim(4) and README's tables${ko:+ (and modinfo -p agrees)}"

# --- feature bits, ioctls, tracepoints -----------------------------------------
gaps=""
for w in $(sed -n -E -e 's/^#define (XMEMSIM_FEAT_[A-Z0-9_]+)[[:space:]]+0x.*/\1/p' \
		-e 's/^#define (XMEMSIM_IOC_[A-Z0-9_]+)[[:space:]]+_IO.*/\1/p' uapi/xmemsim.h) \
	 $(sed -n -E 's/^(TRACE_EVENT\(|DEFINE_EVENT\([a-z_]+, *)([a-z_0-9]+),.*/\2/p' kmod/trace.h); do
	has "$man4" "$w" || gaps+="${gaps:+$'\n'}$w is not in xmemsim(4)"
done
check "feature bits, ioctls and tracepoints are in xmemsim(4)"

# --- errnos --------------------------------------------------------------------
# not for users: EIOCBQUEUED (io_uring's "completes later", never a CQE's
# result), EUCLEAN (the heap checker's verdict, read in debugfs verify),
# ERESTARTSYS (a wait restarted by the kernel; users see EINTR at most)
gaps=""
errors=$(plain docs/man/xmemsim.4 | sed -n '/^\.SH ERRORS/,/^\.SH [^E]/p')
for w in $(grep -ohE -- '(^|[^A-Za-z0-9_])-E[A-Z0-9]+\b' kmod/*.c | sed 's/.*-//' | sort -u); do
	case $w in EIOCBQUEUED|EUCLEAN|ERESTARTSYS) continue ;; esac
	grep -qE "^\.B $w\$" <<<"$errors" ||
		gaps+="${gaps:+$'\n'}$w (returned in kmod/) has no entry in xmemsim(4) ERRORS"
done
check "every errno kmod/ returns is in xmemsim(4) ERRORS"

# --- exported library symbols --------------------------------------------------
gaps=""
for w in $(sed -n -E 's/^[[:space:]]+([A-Za-z_][A-Za-z0-9_]*);$/\1/p' userspace/lib/libxmemsim.map); do
	page=$w
	if [ ! -f "docs/man/$w.3" ]; then
		page=$(awk -v s="$w" '$1 == s { print $2 }' docs/man/links)
		if [ -z "$page" ]; then
			gaps+="${gaps:+$'\n'}$w (libxmemsim.map) has no man page and no line in docs/man/links"
			continue
		fi
	fi
	if [ ! -f "docs/man/$page.3" ]; then
		gaps+="${gaps:+$'\n'}$w: docs/man/links points at $page.3, which does not exist"
	elif ! has "$(sed -n '/^\.SH NAME/,/^\.SH S/p' "docs/man/$page.3" | plain /dev/stdin)" "$w"; then
		gaps+="${gaps:+$'\n'}$w is not in the NAME section of $page.3"
	fi
done
check "every symbol libxmemsim exports has a man page or .so link"

echo "1..$n"
[ $bad -eq 0 ]
