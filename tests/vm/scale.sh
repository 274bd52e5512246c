#!/bin/sh
# The device at scale, in the guest: scripts/check.sh boots the VM with
# --mem 2560 and "hbm_size=0x40000000 num_blocks=1048576 cores=64" for it.
# TAP lines like run.sh's.

n=0
tap() {	# tap STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - scale: $2"; else echo "not ok $n - scale: $2"; fi
}

xmemctl info > /tmp/info.txt && grep -q ' hbm=0x400000000+0x40000000 ' /tmp/info.txt &&
	grep -q ' descriptors=1048576 ' /tmp/info.txt && grep -q ' cores=64 ' /tmp/info.txt
tap $? "loads with 1 GiB of HBM, 2^20 descriptors and 64 cores"
printf 'alloc hbm 943718400 4096\nalloc hbm 4096 4096\nstats hbm\n' | xmemctl replay > /tmp/big.txt
head -1 /tmp/big.txt | grep -q '^ok 0x' && sed -n 2p /tmp/big.txt | grep -q '^ok 0x'
tap $? "a 900 MiB allocation and a page beside it"
[ "$(cat /sys/class/misc/xmemsim/hbm_used)" = 0 ] && grep -qx ok /sys/kernel/debug/xmemsim/verify
tap $? "freed and scrubbed at close: nothing used, verify ok"

/tests/vm/xfuzz --seed "${XFUZZ_SEED:-$(date +%s)}" --ops "${XFUZZ_OPS:-1500}" \
	--procs 3 --fds 3 --kills 2 > /tmp/xfuzz.tap 2>&1
sed -n -e "s/^\(not \)\{0,1\}ok [0-9]* - /&scale: /p" -e '/^#/p' /tmp/xfuzz.tap
grep -q '^1\.\.' /tmp/xfuzz.tap
tap $? "xfuzz ran to its plan"
