#!/bin/sh
# The VM suite on a distribution's own kernel (scripts/vm.sh --stock LINE):
# no KASAN, lockdep, kmemleak, fault injection or KUnit, the module built by
# DKMS and loaded by modprobe, its node made by udevd from the project's
# rule. Every C test runs as root and again as xuser, an unprivileged member
# of group xmemsim; what needs a debug option skips with its reason.
. /work/tests/vm/lib.sh
krel=$(cat /stock)

# --- the module as a distribution loads it -------------------------------------
[ "$(uname -r)" = "$krel" ]
tap $? "booted Debian's $krel"
[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ]
tap $? "two CPUs online"
case "$(modinfo -n xmemsim)" in
"/lib/modules/$krel/updates/dkms/xmemsim.ko"*) r=0 ;;
*) r=1 ;;
esac
[ $r = 0 ] && grep -q '^xmemsim ' /proc/modules
tap $r "modprobe loaded xmemsim from updates/dkms ($(modinfo -n xmemsim))"
[ "$(stat -c '%U:%G %a' /dev/xmemsim)" = "root:xmemsim 660" ]
tap $? "udevd applied 60-xmemsim.rules: $(stat -c '%U:%G %a' /dev/xmemsim)"
[ "$(readlink /dev/xmemsim0)" = xmemsim ]
tap $? "udevd linked /dev/xmemsim0 to device 0 ($(readlink /dev/xmemsim0))"
dmesg | grep -E 'xmemsim' | grep -vE 'taints kernel|tainting kernel|: HBM 0x' > /tmp/klog
[ ! -s /tmp/klog ]
tap $? "nothing but the taint lines and the banner in the kernel log"
[ "xmemctl $(cat /sys/module/xmemsim/version)" = "$(xmemctl --version)" ]
tap $? "MODULE_VERSION is the tools' version"
su -s /bin/sh -c 'xmemctl info' xuser > /tmp/xi.txt 2>&1
tap $? "a member of group xmemsim opens the node ($(cut -c1-40 /tmp/xi.txt))"
su -s /bin/sh -c 'xmemctl info' nobody > /tmp/xn.txt 2>&1
[ $? -ne 0 ] && grep -q 'Permission denied' /tmp/xn.txt
tap $? "a user outside the group is refused ($(cat /tmp/xn.txt))"

# --- what needs the debug kernels: KUnit; faults' framework tests skip alone --
skip "xmemsim_test.ko" "no CONFIG_KUNIT in Debian's $krel"

# --- the C tests, as root and as a member of group xmemsim ----------------------
for who in "" xuser; do
	# each user starts from an empty /tmp: the tests' scratch files are
	# the user's own (the TAP files are written by the shell, as root)
	find /tmp -mindepth 1 ! -name '*.tap' -exec rm -rf {} + 2>/dev/null
	for t in /tests/vm/test_*; do
		[ -x "$t" ] || continue
		RUN_AS=$who run_c "$(basename "$t")"
	done
	RUN_AS=$who run_c custom_op
	RUN_AS=$who run_c faults
done
# many devices on Debian's kernel, which has the dma-buf framework (and,
# in 6.12, udmabuf); the nodes opened to all for the test's uid 65534
settle_refs && modprobe -r xmemsim &&
	/usr/sbin/modprobe xmemsim devices=4 hbm_size=0x400000 &&
	/bin/udevadm settle --timeout=10 && chmod 0666 /dev/xmemsim /dev/xmemsim[1-3]
tap $? "modprobe devices=4 for the interconnect, nodes 0666"
run_c peers
# collectives across devices (tests/vm/run.sh runs them on 16 devices too)
settle_refs && modprobe -r xmemsim &&
	/usr/sbin/modprobe xmemsim devices=4 hbm_size=0x1800000 &&
	/bin/udevadm settle --timeout=10
tap $? "modprobe devices=4 for the collectives"
run_c collectives
settle_refs && modprobe -r xmemsim && /usr/sbin/modprobe xmemsim &&
	/bin/udevadm settle --timeout=10
tap $? "modprobe as booted"
# the ring-close test again and again under load: a flaky pass cannot hide
under_load test_dma closing_the_ring_ends_a_wait_in_flight 20

settle_refs && modprobe -r xmemsim && ! grep -q '^xmemsim ' /proc/modules
tap $? "modprobe -r xmemsim once its files are released"
/usr/sbin/modprobe xmemsim && /bin/udevadm settle --timeout=10 &&
	[ "$(stat -c '%G %a' /dev/xmemsim)" = "xmemsim 660" ]
tap $? "modprobe again: udevd gives the new node the group again"
# several devices: every node gets the rule's group, mode and users file
modprobe -r xmemsim && /usr/sbin/modprobe xmemsim devices=3 hbm_size=0x400000 &&
	/bin/udevadm settle --timeout=10 &&
	[ "$(stat -c '%G %a' /dev/xmemsim1)" = "xmemsim 660" ] &&
	[ "$(stat -c '%G %a' /dev/xmemsim2)" = "xmemsim 660" ] &&
	[ "$(stat -c '%G %a' /sys/class/misc/xmemsim2/users)" = "xmemsim 440" ] &&
	[ "$(readlink /dev/xmemsim0)" = xmemsim ] &&
	su -s /bin/sh -c 'xmemctl -d 2 info && xmemctl -d 0 info' xuser > /tmp/x3.txt 2>&1
tap $? "modprobe devices=3: each node the group's, xmemsim0 linked, xuser opens -d 2 and -d 0 ($(head -c 60 /tmp/x3.txt))"
modprobe -r xmemsim && /usr/sbin/modprobe xmemsim && /bin/udevadm settle --timeout=10 &&
	[ ! -e /dev/xmemsim1 ]
tap $? "modprobe as before: one device"
exit 0
