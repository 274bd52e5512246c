# shellcheck shell=sh
# Helpers of the guest's test scripts (run.sh on the debug kernels, stock.sh
# on the distributions' own): TAP lines that scripts/check.sh counts.

n=0
tap() {	# tap STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - sh: $2"; else echo "not ok $n - sh: $2"; fi
}

skip() {	# skip NAME REASON: counted as skipped
	n=$((n + 1))
	echo "ok $n - sh: $1 # SKIP $2"
}

# settle_refs: wait (at most 20 s) until no file holds the module. A ring
# closed with a command in flight releases its files from io_uring's exit
# work and a deferred fput, after the process that owned it has gone; an
# unload just then meets "in use", as it would on any driver. Prints who
# still holds a /dev/xmemsim file when the wait runs out.
settle_refs() {
	i=0
	while [ "$(cat /sys/module/xmemsim/refcnt 2>/dev/null || echo 0)" != 0 ]; do
		if [ $i -ge 200 ]; then
			echo "# refcnt $(cat /sys/module/xmemsim/refcnt) after 20 s; holders:"
			ls -l /proc/[0-9]*/fd 2>/dev/null | grep xmemsim | sed 's/^/#   /'
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
	[ $i = 0 ] || echo "# the module's last file went $i tenths of a second late"
	return 0
}

# run_c NAME ARGS...: a C test binary's TAP lines, prefixed with its name
# (RUN_AS=USER: run it as that user, with the user's groups)
run_c() {
	name=$1
	shift
	t=$(date +%s)
	if [ -n "${RUN_AS:-}" ]; then
		su -s /bin/sh -c "$(printf '%s ' "/tests/vm/$name" "$@")" "$RUN_AS" > /tmp/$name.tap 2>&1
	else
		"/tests/vm/$name" "$@" > /tmp/$name.tap 2>&1
	fi
	rc=$?
	label=$name${RUN_AS:+ as $RUN_AS}
	echo "# $label: $(( $(date +%s) - t )) s"
	sed -n -e "s/^\(not \)\{0,1\}ok [0-9]* - /&$label: /p" -e '/^#/p' \
		-e "s/^1\.\.0 *# *SKIP *\(.*\)/ok 0 - $label: every test # SKIP \1/p" /tmp/$name.tap
	if ! grep -q '^1\.\.' /tmp/$name.tap; then
		tail -5 /tmp/$name.tap
		n=$((n + 1))
		echo "not ok $n - $label: exited with $rc before its plan"
	fi
}

# under_load BINARY TEST COUNT: one TAP line for TEST of a C test binary
# run COUNT times in a row while two busy loops keep both CPUs loaded, so
# that what the kernel does after a call returns (io_uring's teardown of a
# closed ring, a worker's wake) comes late; every run must pass
under_load() {
	bin=$1 test=$2 count=$3
	hogs=""
	for i in 1 2; do
		sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	i=0 bad=0
	while [ $i -lt "$count" ]; do
		TAP_ONLY=$test "/tests/vm/$bin" > /tmp/under_load.tap 2>&1
		grep -q "^ok 1 - $test" /tmp/under_load.tap || {
			bad=$((bad + 1))
			sed 's/^/# /' /tmp/under_load.tap | grep -v '^# ok ' | head -5
		}
		i=$((i + 1))
	done
	kill $hogs
	wait $hogs 2>/dev/null
	[ $bad -eq 0 ]
	tap $? "$bin: $test, $count runs in a row with both CPUs busy ($bad failed)"
}
