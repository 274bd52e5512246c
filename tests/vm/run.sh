#!/bin/sh
# The VM test suite, run inside the guest by scripts/vm.sh with xmemsim
# loaded. Prints TAP lines ("ok"/"not ok") that scripts/check.sh counts.
# Each C test binary in /tests/vm prints its own TAP; its lines are prefixed
# with the binary's name.

n=0
tap() {	# tap STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - sh: $2"; else echo "not ok $n - sh: $2"; fi
}

# --- the module and its node -------------------------------------------------
grep -q '^xmemsim ' /proc/modules
tap $? "module is loaded"
[ -c /dev/xmemsim ]
tap $? "/dev/xmemsim is a char device"
[ "$(cat /sys/module/xmemsim/parameters/num_blocks)" = 32 ] &&
	[ "$(cat /sys/module/xmemsim/parameters/cores)" = 2 ]
tap $? "default parameters: 32 descriptors, 2 cores"

# --- geometry rejected at load with a clear line ------------------------------
rmmod xmemsim
tap $? "rmmod"
dmesg -c > /dev/null
! insmod /lib/modules/xmemsim.ko hbm_size=0x100 2>/dev/null &&
	dmesg | grep -q 'bad geometry: HBM window too small'
tap $? "insmod rejects an HBM window smaller than its pool offset"
! insmod /lib/modules/xmemsim.ko hbm_base=0x88000 2>/dev/null &&
	dmesg | grep -q 'bad geometry: HBM and dataram windows overlap'
tap $? "insmod rejects overlapping windows"
! insmod /lib/modules/xmemsim.ko num_blocks=0 2>/dev/null &&
	dmesg | grep -q 'bad geometry: num_blocks'
tap $? "insmod rejects zero descriptors"
! [ -e /dev/xmemsim ]
tap $? "no node after a failed insmod"
insmod /lib/modules/xmemsim.ko hbm_size=0x200000 num_blocks=1024 cores=4
tap $? "insmod with a custom geometry"
xmemctl info > /tmp/info.txt && grep -q ' hbm=0x400000000+0x200000 ' /tmp/info.txt &&
	grep -q ' descriptors=1024 ' /tmp/info.txt && grep -q ' cores=4 ' /tmp/info.txt
tap $? "xmemctl info reports the custom geometry"
rmmod xmemsim && insmod /lib/modules/xmemsim.ko
tap $? "reload with defaults"

# --- C tests -------------------------------------------------------------------
for t in /tests/vm/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	"$t" > /tmp/$name.tap 2>&1
	rc=$?
	sed -n -e "s/^\(not \)\{0,1\}ok [0-9]* - /&$name: /p" -e '/^#/p' /tmp/$name.tap
	# A binary that died before its plan: count that as a failure.
	if ! grep -q '^1\.\.' /tmp/$name.tap; then
		tail -5 /tmp/$name.tap
		n=$((n + 1))
		echo "not ok $n - $name: exited with $rc before its plan"
	fi
done
