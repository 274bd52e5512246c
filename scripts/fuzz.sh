#!/usr/bin/env bash
# The device fuzzer (tests/vm/xfuzz.c) for longer than make check runs it.
#
#   scripts/fuzz.sh [--minutes N] [--seed S] [--ops N] [--procs P] [--no-faults]
#
# Boots the test VM (KASAN, lockdep, kmemleak) once and runs xfuzz rounds
# back to back for N minutes (default 10), seed S, S+1, ... (default: the
# time), each of --ops operations per process, with fault sites armed and
# memory errors injected at random (xfuzz --faults) unless --no-faults.
# Any failed round prints its seed: `scripts/fuzz.sh --minutes 1 --seed S`
# replays it. Exit status is non-zero on any failure or kernel report.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
MIN=10
SEED=$(date +%s)
OPS=5000
PROCS=4
FAULTS=--faults

while [ $# -gt 0 ]; do
	case "$1" in
	--minutes) MIN=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--ops) OPS=$2; shift 2 ;;
	--procs) PROCS=$2; shift 2 ;;
	--no-faults) FAULTS=; shift ;;
	*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case "$MIN$SEED$OPS$PROCS" in *[!0-9]*) echo "fuzz.sh: numbers only" >&2; exit 2 ;; esac

# The guest loop: rounds until the time is up, one summary line a round.
"$REPO/scripts/vm.sh" --timeout $((MIN * 60 + 300)) -- sh -c "
end=\$((\$(date +%s) + $MIN * 60))
seed=$SEED rounds=0 bad=0 ops=0
t0=\$(date +%s)
while [ \$(date +%s) -lt \$end ]; do
	XFUZZ_LOG=1 /tests/vm/xfuzz --seed \$seed --ops $OPS --procs $PROCS --fds 3 --kills 4 $FAULTS > /tmp/f.tap 2>&1
	n=\$(sed -n 's/^# \([0-9]*\) operations.*/\1/p' /tmp/f.tap)
	ops=\$((ops + \${n:-0}))
	if grep -q '^not ok' /tmp/f.tap || ! grep -q '^1\.\.' /tmp/f.tap; then
		bad=\$((bad + 1))
		echo \"round seed \$seed FAILED:\"
		grep -v '^ok' /tmp/f.tap
	fi
	rounds=\$((rounds + 1))
	seed=\$((seed + 1))
done
echo \"fuzz: \$rounds rounds, \$ops operations in \$((\$(date +%s) - t0)) s, \$bad failed rounds (seeds $SEED..\$((seed - 1)))\"
[ \$bad -eq 0 ]
"
