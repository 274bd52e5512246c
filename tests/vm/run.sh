#!/bin/sh
# The VM test suite, run inside the guest by scripts/vm.sh with xmemsim
# loaded. Prints TAP lines ("ok"/"not ok") that scripts/check.sh counts.
# Each C test binary in /tests/vm prints its own TAP; its lines are prefixed
# with the binary's name.

. /work/tests/vm/lib.sh

# --- the machine: two CPUs, so races race -------------------------------------
[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ]
tap $? "two CPUs online ($(cat /sys/devices/system/cpu/online))"

# --- the module and its node -------------------------------------------------
grep -q '^xmemsim ' /proc/modules
tap $? "module is loaded"
[ -c /dev/xmemsim ]
tap $? "/dev/xmemsim is a char device"
[ "$(cat /sys/module/xmemsim/parameters/num_blocks)" = 32 ] &&
	[ "$(cat /sys/module/xmemsim/parameters/cores)" = 2 ]
tap $? "default parameters: 32 descriptors, 2 cores"
[ "xmemctl $(cat /sys/module/xmemsim/version)" = "$(xmemctl --version)" ]
tap $? "MODULE_VERSION is the tools' version (VERSION)"

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
! insmod /lib/modules/xmemsim.ko plan_user_mb=128 plan_dev_mb=128 2>/dev/null &&
	dmesg | grep -q 'bad limits: plan_user_mb must be'
tap $? "insmod rejects a user plan budget that fills the device's"
! insmod /lib/modules/xmemsim.ko libc_pool_off=0x1000 2>/dev/null &&
	dmesg | grep -q 'bad geometry: libc heap pool overlaps the dataram heap pool'
tap $? "insmod rejects a libc pool over the dataram pool"
insmod /lib/modules/xmemsim.ko hbm_size=0x200000 num_blocks=1024 cores=4
tap $? "insmod with a custom geometry"
xmemctl info > /tmp/info.txt && grep -q ' hbm=0x400000000+0x200000 ' /tmp/info.txt &&
	grep -q ' descriptors=1024 ' /tmp/info.txt && grep -q ' cores=4 ' /tmp/info.txt
tap $? "xmemctl info reports the custom geometry"
xmemctl --json info | grep -q '"hbm_base":17179869184,"hbm_size":2097152,' &&
	printf 'alloc HBM 64\nstats hbm\ndump 0\n' | xmemctl replay --json > /tmp/j.txt &&
	sed -n 2p /tmp/j.txt | grep -q '^{"heap":"hbm",.*"alloc_blocks":1,' &&
	sed -n 3p /tmp/j.txt | grep -q '^{"heap":"hbm","count":2,"blocks":\[{"kind":' &&
	sed -n 3p /tmp/j.txt | grep -q '"kind":"mine"' && sed -n 3p /tmp/j.txt | grep -q '"kind":"free"'
tap $? "xmemctl --json info, stats and dump"
xmemctl info | grep -q ' libc_pool=0x88000+0x4000 features=0xffff$' &&
	xmemctl --json info | grep -q '"libc_pool_base":557056,"libc_pool_size":16384,"features":65535'
tap $? "xmemctl info: the libc pool and the feature bits"
rmmod xmemsim && insmod /lib/modules/xmemsim.ko
tap $? "reload with defaults"
printf 'alloc libc 100\nmemset 0x88000 171 100\nread 0x88000 4\nsize libc 0x88000\nfree libc 0x88000 clear\nmemset 0x88000 1 1\n' |
	xmemctl replay > /tmp/m.txt
[ "$(cat /tmp/m.txt | tr '\n' '|')" = "ok 0x88000|ok|ok abababab|ok 100 100|ok|err EACCES -|" ]
tap $? "replay: the libc heap, memset, size and free ... clear ($(tr '\n' '|' < /tmp/m.txt))"

# --- introspection: sysfs, debugfs, tracepoints ------------------------------------
sys=/sys/class/misc/xmemsim
grep -q '^hbm 0x400000000 0x4000000 pool 0x400000228 0x3fffdd8$' $sys/geometry &&
	grep -q '^cores 2$' $sys/geometry && [ "$(cat $sys/hbm_used)" = 0 ]
tap $? "sysfs geometry and bytes in use"
grep -q '^libc pool 0x88000 0x4000$' $sys/geometry && [ "$(cat $sys/libc_used)" = 0 ] &&
	[ -r /sys/kernel/debug/xmemsim/libc ]
tap $? "sysfs and debugfs: the libc heap's pool and bytes in use"
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
tr=/sys/kernel/tracing
echo 1 > $tr/events/xmemsim/enable && echo > $tr/trace
printf 'alloc hbm 4196 0\nstats hbm\nalloc dataram 100 64\n' | xmemctl replay > /tmp/r.txt
grep -q 'xmemsim_alloc: heap=0 size=4196 align=0 addr=0x400000240 status=0' $tr/trace &&
	grep -q 'xmemsim_alloc: heap=1 size=100 align=64 addr=0x80440 status=0' $tr/trace &&
	grep -q 'xmemsim_free: heap=0 addr=0x400000240 ret=0' $tr/trace
tap $? "tracepoints for alloc and free (free at close)"
echo 0 > $tr/events/xmemsim/enable
head -1 /tmp/r.txt | grep -qx 'ok 0x400000240' && sed -n 2p /tmp/r.txt | grep -q ' allocated=4220 '
tap $? "replay: an address and the stats"
# A file that holds an allocation shows up in debugfs while it is open.
dbg=/sys/kernel/debug/xmemsim
( printf 'alloc hbm 8192 4096\n'; sleep 2 ) | xmemctl replay > /dev/null &
sleep 1
grep -q 'allocs 1 hbm 11736' $dbg/files && grep -q '^0x0000000400000228 0x0000000400001000        11736 alloc$' $dbg/hbm
tap $? "debugfs: per-file usage and the HBM block map"
wait
grep -c ' alloc$' $dbg/hbm | grep -qx 0 && ! grep -q '^file' $dbg/files
tap $? "debugfs: empty again after the file closed"

# --- the seed's list walk alone, against the model ----------------------------------
rmmod xmemsim && insmod /lib/modules/xmemsim.ko heap_mode=1 num_blocks=4096
tap $? "insmod with heap_mode=1 (the list walk) and 4096 descriptors"
XMEMSIM_OPS=4000 /tests/vm/test_replay > /tmp/list.tap 2>&1
grep -q '^1\.\.2$' /tmp/list.tap && ! grep -q '^not ok' /tmp/list.tap &&
	grep -q ' mode 1$' $dbg/hbm && grep -q ' mode 1$' $dbg/dataram
tap $? "list heaps: a random trace through ioctl and io_uring agrees with the model"
rmmod xmemsim && insmod /lib/modules/xmemsim.ko heap_mode=2 2>/dev/null
[ $? -ne 0 ] && dmesg | grep -q 'bad geometry: heap_mode must be'
tap $? "insmod rejects heap_mode=2"
insmod /lib/modules/xmemsim.ko $(cat /params)
tap $? "reload as booted"

# --- who may open the node --------------------------------------------------------
[ "$(stat -c %a /dev/xmemsim)" = 600 ]
tap $? "the node is mode 0600 by default"

export XMEMSIM_NODE=closed TAP_ONLY=node
run_c hostile
unset TAP_ONLY

# --- a hostile user beside root: a world-writable node, with limits ----------------
rmmod xmemsim && insmod /lib/modules/xmemsim.ko dev_mode=0666 \
	file_dataram_bytes=8192 file_hbm_bytes=16777216 plan_file_mb=4 plan_dev_mb=10
tap $? "insmod with dev_mode=0666 and per-file limits"
[ "$(stat -c %a /dev/xmemsim)" = 666 ]
tap $? "dev_mode sets the node's mode"
export XMEMSIM_NODE=open
run_c hostile

# --- many users: the shipped multi-user configuration, exactly ----------------------
mu_opts=$(sed -n 's/^options xmemsim //p' /work/modprobe.d/xmemsim-multiuser.conf | tr '\n' ' ')
rmmod xmemsim && insmod /lib/modules/xmemsim.ko $mu_opts
tap $? "insmod with modprobe.d/xmemsim-multiuser.conf ($mu_opts)"
# what the udev rule does: the node to a group, 0660
chgrp 600 /dev/xmemsim && chmod 0660 /dev/xmemsim
tap $? "the node to group 600, mode 0660"
XMEMSIM_NODE_GID=600 run_c multiuser
XMEMSIM_NODE_GID=600 run_c fair
printf 'alloc hbm 4096 4096\nuser\n' | xmemctl replay | sed -n 2p > /tmp/u.txt
grep -qx 'user uid=0 files=1 allocs=1/64 hbm=7640/16777216 dataram=0/4096 libc=0/4096 plan_mem=0/16777216 bounce=0 quota_refused=0' /tmp/u.txt &&
	xmemctl --json user | grep -q '^{"uid":0,"files":1,"allocs":0,"limit_allocs":64,"hbm":0,'
tap $? "xmemctl user: the caller's user against the shipped limits ($(cat /tmp/u.txt))"
[ "$(head -1 /sys/kernel/debug/xmemsim/verify)" = ok ] &&
	[ "$(wc -l < /sys/kernel/debug/xmemsim/users)" = 1 ]
tap $? "debugfs verify after the many-users tests, no user left"
# each user's modeled time is its own: shown on a scaled clock, the same
# options, time_scale=100000
rmmod xmemsim && insmod /lib/modules/xmemsim.ko $mu_opts time_scale=100000 &&
	chgrp 600 /dev/xmemsim && chmod 0660 /dev/xmemsim
tap $? "insmod with the multi-user options and time_scale=100000"
TAP_ONLY=dma_engine_time XMEMSIM_NODE_GID=600 run_c multiuser
# a COPY by DMA beside a user's flood of them: a clock slow enough for the
# flood's queues to stay full (an 8 MiB transfer lasts about 52 ms)
rmmod xmemsim && insmod /lib/modules/xmemsim.ko $mu_opts time_scale=100 &&
	chgrp 600 /dev/xmemsim && chmod 0660 /dev/xmemsim
tap $? "insmod with the multi-user options and time_scale=100"
TAP_ONLY=dma_copy_takes XMEMSIM_NODE_GID=600 run_c multiuser
# the checker's work falls to whoever asks for it: the same options, dma_check=2
rmmod xmemsim && insmod /lib/modules/xmemsim.ko $mu_opts dma_check=2 &&
	chgrp 600 /dev/xmemsim && chmod 0660 /dev/xmemsim
tap $? "insmod with the multi-user options and dma_check=2"
TAP_ONLY=checking_is XMEMSIM_NODE_GID=600 run_c fair

# --- the DMA timing checker: refusing, then reporting on a slow clock ---------------
rmmod xmemsim && dmesg -c > /dev/null && insmod /lib/modules/xmemsim.ko dma_check=2
tap $? "insmod with dma_check=2"
run_c dma_check
rmmod xmemsim && insmod /lib/modules/xmemsim.ko dma_check=1 time_scale=200000
tap $? "insmod with dma_check=1 time_scale=200000"
run_c dma_check
dmesg | grep -q 'while DMA ticket [0-9]* \[.*) tag [0-9]* is in flight' &&
	dmesg | grep -q 'DMA ticket [0-9]* tag [0-9]* \[.* races ticket [0-9]* tag [0-9]* \[.*no semaphore orders them'
tap $? "the checker's reports reach the kernel log, naming tickets and tags"
rmmod xmemsim && ! insmod /lib/modules/xmemsim.ko dma_check=3 2>/dev/null &&
	dmesg | grep -q 'bad DMA parameters'
tap $? "insmod rejects dma_check=3"
insmod /lib/modules/xmemsim.ko $(cat /params)
tap $? "reload as booted"

# --- failures on purpose: every site, the framework's knobs, memory errors ---------
rmmod xmemsim && dmesg -c > /dev/null && insmod /lib/modules/xmemsim.ko $(cat /params) dev_mode=0666
tap $? "reload as booted, node open to all, for the fault tests"
run_c faults
printf 'fault heap_alloc 1 1\nalloc hbm 4096\nalloc hbm 4096\nmemerr 0x1 ue\nfault nosuch 0 1\nfault plan framework off\n' |
	xmemctl replay > /tmp/f.txt
[ "$(tr '\n' '|' < /tmp/f.txt)" = "ok|ok 0x400000240|err ENOMEM ALLOC_FAILED|err EACCES -|err usage|ok|" ]
tap $? "xmemctl replay: fault and memerr, and the error lines ($(tr '\n' '|' < /tmp/f.txt))"
rmmod xmemsim && insmod /lib/modules/xmemsim.ko fail_heap_alloc=1,100,0,2 &&
	[ "$(cat /sys/kernel/debug/xmemsim/fail_heap_alloc/probability)" = 100 ] &&
	[ "$(cat /sys/kernel/debug/xmemsim/fail_heap_alloc/times)" = 2 ]
tap $? "fail_heap_alloc= at load sets the framework's knobs"
rmmod xmemsim && ! insmod /lib/modules/xmemsim.ko fail_plan=nonsense 2>/dev/null &&
	dmesg | grep -q 'fail_plan=nonsense: not'
tap $? "insmod rejects a fail_<site>= that does not parse"
insmod /lib/modules/xmemsim.ko $(cat /params)
tap $? "reload as booted"

# --- several devices: devices=4 and devices=16, each on its own ------------------
rmmod xmemsim && dmesg -c > /dev/null &&
	insmod /lib/modules/xmemsim.ko devices=4 hbm_size=0x400000 user_hbm_bytes=0x100000
tap $? "insmod devices=4"
[ -c /dev/xmemsim ] && [ -c /dev/xmemsim1 ] && [ -c /dev/xmemsim3 ] && [ ! -e /dev/xmemsim4 ] &&
	[ -d /sys/class/misc/xmemsim ] && [ -d /sys/class/misc/xmemsim3 ] &&
	[ -d /sys/kernel/debug/xmemsim ] && [ -d /sys/kernel/debug/xmemsim3 ] &&
	[ "$(stat -c %a /dev/xmemsim2)" = 600 ] &&
	dmesg | grep -q '4 devices: xmemsim, xmemsim1 .. xmemsim3'
tap $? "devices=4: xmemsim, xmemsim1 .. xmemsim3 in /dev, sysfs and debugfs, mode 0600"
run_c devices
printf 'alloc hbm 4096 4096\nwrite 0x400001000 c0ffee\nread 0x400001000 3\n' |
	xmemctl -d 3 replay > /tmp/dv.txt &&
	[ "$(tr '\n' '|' < /tmp/dv.txt)" = "ok 0x400001000|ok 3|ok c0ffee|" ] &&
	[ "$(xmemctl --device=0 info)" = "$(xmemctl info)" ] &&
	[ "$(xmemctl --device 2 info)" = "$(xmemctl -d /dev/xmemsim2 info)" ]
tap $? "xmemctl -d 3 and --device N ($(tr '\n' '|' < /tmp/dv.txt))"
xmemctl -d 4 info 2> /tmp/dv.err
[ $? = 1 ] && [ "$(cat /tmp/dv.err)" = "xmemctl: /dev/xmemsim4: No such file or directory" ]
tap $? "xmemctl -d 4 with four devices: no such node ($(cat /tmp/dv.err))"
xmemctl top --once --interval 0 > /tmp/top4.txt &&
	[ "$(grep -c '^device [0-3]$' /tmp/top4.txt)" = 4 ] &&
	xmemctl -j top --once --interval 0 > /tmp/top4.json &&
	[ "$(grep -c '^{"device":[0-3],"version"' /tmp/top4.json)" = 4 ] &&
	xmemctl -d 1 top --once --interval 0 > /tmp/top1.txt &&
	! grep -q '^device' /tmp/top1.txt && grep -q '^xmemsim ' /tmp/top1.txt
tap $? "xmemctl top: a block per device ($(grep -c '^device' /tmp/top4.txt)), -d 1 one block"
# files open on several devices hold the module; closed, it goes
exec 3< /dev/xmemsim 4< /dev/xmemsim1 5< /dev/xmemsim3
! rmmod xmemsim 2>/dev/null && [ -c /dev/xmemsim3 ]
tap $? "rmmod refused while files are open on devices 0, 1 and 3"
exec 3<&- 4<&- 5<&-
rmmod xmemsim && [ ! -e /dev/xmemsim ] && [ ! -e /dev/xmemsim1 ] &&
	[ ! -e /sys/kernel/debug/xmemsim3 ]
tap $? "rmmod once they are closed: every node and directory gone"
insmod /lib/modules/xmemsim.ko devices=16 hbm_size=0x100000 &&
	[ -c /dev/xmemsim15 ] && [ ! -e /dev/xmemsim16 ] && [ -d /sys/class/misc/xmemsim15 ]
tap $? "insmod devices=16 hbm_size=0x100000: xmemsim .. xmemsim15"
run_c devices
# the interconnect: dma-buf and host pages between devices, open to all
# (dev_mode=0666) so that uid 65534 meets them too
for nd in 4 16; do
	rmmod xmemsim && insmod /lib/modules/xmemsim.ko devices=$nd dev_mode=0666 hbm_size=0x400000
	tap $? "insmod devices=$nd dev_mode=0666 for the interconnect"
	run_c peers
done
# collectives across devices (libxmemsim's communicator: the ring, and the
# all-reduce's tree at small sizes): every collective #wrong 0, busbw and
# the latency bound in modeled time, the tree against the ring, a process
# killed mid-collective; 4 MiB a rank on 4 devices, 2 MiB on 16
for nd in 4 16; do
	settle_refs && rmmod xmemsim && insmod /lib/modules/xmemsim.ko devices=$nd \
		hbm_size=$([ $nd = 4 ] && echo 0x1800000 || echo 0xc00000)
	tap $? "insmod devices=$nd for the collectives"
	run_c collectives $([ $nd = 4 ] && echo 4194304 || echo 2097152)
done
xmemctl topo > /tmp/topo.txt && [ "$(grep -c '^dev[0-9]' /tmp/topo.txt)" = 16 ] &&
	grep -q '^topology ring devices 16 ' /tmp/topo.txt &&
	[ "$(grep '^dev0 ' /tmp/topo.txt | tr -s ' ' | cut -d' ' -f2-4,10)" = "X L1 L2 L8" ]
tap $? "xmemctl topo: a 16-device ring as a matrix ($(grep '^dev0 ' /tmp/topo.txt | tr -s ' '))"
# the plan run on four devices, data-parallel
. /work/tests/vm/planrun_dp.sh
rmmod xmemsim && ! insmod /lib/modules/xmemsim.ko devices=0 2>/dev/null &&
	dmesg | grep -q 'bad devices 0: must be 1..32' && [ ! -e /dev/xmemsim ]
tap $? "insmod rejects devices=0"
! insmod /lib/modules/xmemsim.ko devices=33 2>/dev/null &&
	dmesg | grep -q 'bad devices 33: must be 1..32' && [ ! -e /dev/xmemsim ]
tap $? "insmod rejects devices=33"
insmod /lib/modules/xmemsim.ko $(cat /params) && [ ! -e /dev/xmemsim1 ]
tap $? "reload as booted: one device"

# --- errors that say what to change: ENOMEM names the pool and its parameter ------
xmemctl alloc hbm 0x8000000 2> /tmp/nm.txt
[ $? = 1 ] && [ "$(wc -l < /tmp/nm.txt)" = 1 ] &&
	grep -q '^xmemctl: alloc: ENOMEM ALLOC_FAILED: hbm heap: 134217728 bytes asked, [0-9]* free, .*module parameter hbm_size (now 67108864' /tmp/nm.txt
tap $? "xmemctl alloc: ENOMEM names the heap, the bytes and hbm_size ($(cat /tmp/nm.txt))"
# two cores of 40 MiB: within each core's plan window, not within 64 MiB of HBM
big='{"name": "t", "elems": 41943040, "elem_size": 1}'
blk='"blocks": [{"name": "e", "insts": [{"defs": ["t"]}, {"uses": ["t"]}]}]'
echo "{\"cores\": [{\"tensors\": [$big], $blk}, {\"tensors\": [$big], $blk}]}" > /tmp/big.json
dramplan --submit -q --no-svg -o /tmp/big.plan.json /tmp/big.json > /tmp/big.out 2> /tmp/big.err
[ $? = 1 ] && [ ! -s /tmp/big.out ] && [ "$(wc -l < /tmp/big.err)" = 1 ] &&
	grep -q 'PLAN_SYNC failed: ENOMEM.*83886080 bytes asked.*hbm_size' /tmp/big.err
tap $? "dramplan --submit -q: nothing on stdout; PLAN_SYNC's ENOMEM names the bytes and hbm_size ($(cat /tmp/big.err))"
dramplan --submit -q --no-svg -o /tmp/ex.plan.json /work/examples/mlp.json > /tmp/q.out
[ $? = 0 ] && [ ! -s /tmp/q.out ]
tap $? "dramplan --submit -q: an accepted plan prints nothing"

# --- a plan a runtime can load: xmemctl plan load, examples/runtime.c -----------
dramplan -q --no-svg -o /tmp/ar.plan.json /work/examples/allreduce_2core.json &&
	xmemctl plan load /tmp/ar.plan.json > /tmp/pl.txt &&
	head -1 /tmp/pl.txt | grep -q '^ok [1-9][0-9]* [1-9][0-9]*$' &&
	grep -Eq '^1 +linked +[^ ]+ +0x[0-9a-f]+ 0x0004[0-9a-f]+ ' /tmp/pl.txt
tap $? "xmemctl plan load: each tensor's device address ($(head -1 /tmp/pl.txt))"
# in replay the plan stays for the lines after it: its bytes read back
printf 'plan load /tmp/ar.plan.json\n' | xmemctl replay > /tmp/pr.txt &&
	a=$(tr ' ' '\n' < /tmp/pr.txt | sed -n 's/^0:grad_buf=//p') && [ -n "$a" ] &&
	printf 'plan load /tmp/ar.plan.json\nwrite %s 5a5a\nread %s 2\n' "$a" "$a" | xmemctl replay > /tmp/pr.txt &&
	[ "$(sed -n 2,3p /tmp/pr.txt | tr '\n' '|')" = "ok 2|ok 5a5a|" ]
tap $? "xmemctl replay: plan load, then the plan's bytes at its device address ($(sed -n 2,3p /tmp/pr.txt | tr '\n' '|'))"
xmemctl plan load /tmp/big.plan.json 2> /tmp/pb.err
[ $? = 1 ] && grep -q 'PLAN_SYNC.*83886080 bytes asked.*hbm_size' /tmp/pb.err && [ "$(wc -l < /tmp/pb.err)" = 1 ]
tap $? "xmemctl plan load: a plan HBM cannot hold names the bytes and hbm_size ($(cat /tmp/pb.err))"
run_c runtime /tmp/ar.plan.json

# --- the plan run: the examples executed and checked, planted bugs caught ---------
. /work/tests/vm/planrun.sh

# --- the fuzzer: every command from several processes, kills, then verify ---------
rmmod xmemsim && insmod /lib/modules/xmemsim.ko $(cat /params)
tap $? "reload as booted"
export XFUZZ_LOG=1
run_c xfuzz --seed "${XFUZZ_SEED:-$(date +%s)}" --ops "${XFUZZ_OPS:-3000}" \
	--procs 3 --fds 3 --kills 4 --faults

# --- xmemctl dma and sem ------------------------------------------------------------
printf 'alloc hbm 65536 4096\nalloc hbm 65536 4096\ndma 0x400001000 0x400011000 65536 1 2\nsem set 3 7\nsem get 3\ndma 0x400001000 0x400011000 4096 0 0 3\nsem get 99\n' |
	xmemctl replay > /tmp/d.txt
[ "$(sed -n 3p /tmp/d.txt | cut -d' ' -f1-2)" = "ok 0" ] &&
	[ "$(sed -n 3p /tmp/d.txt | awk '{print $4 - $3}')" = 6096 ] &&
	[ "$(sed -n 4,7p /tmp/d.txt | tr '\n' '|')" = "ok|ok 7|ok 1 queued|err EINVAL -|" ]
tap $? "xmemctl replay: dma (waited for, and held on a semaphore) and sem ($(tr '\n' '|' < /tmp/d.txt))"

# --- reloads: 40 insmod/rmmod cycles (XMEMSIM_RELOADS) with files opened and ------
# --- closed between, every fourth on a slow clock with a transfer running, ----------
# --- all with one held -------------------------------------------------------------
reloads=${XMEMSIM_RELOADS:-40}
t=$(date +%s)
i=0
while [ $i -lt "$reloads" ]; do
	ts=$(( (i % 4 == 3) * 1000000 ))
	rmmod xmemsim && insmod /lib/modules/xmemsim.ko hbm_size=0x100000 time_scale=$ts || break
	printf 'alloc hbm 4096 4096\nalloc hbm 4096 4096\nalloc dataram 100 0\ndma 0x400001000 0x400002000 4096 0 0 5\n' |
		xmemctl replay > /tmp/rl.txt || break
	[ $ts = 0 ] || printf 'alloc hbm 4096 4096\nalloc hbm 4096 4096\ndma 0x400001000 0x400002000 4096 0 0 5\nsem set 5 1\n' |
		xmemctl replay > /tmp/rl.txt || break
	grep -q 'queued' /tmp/rl.txt || break
	i=$((i + 1))
done
echo "# reloads: $(( $(date +%s) - t )) s"
[ $i -eq "$reloads" ]
tap $? "$reloads insmod/rmmod cycles with files closed on queued and running transfers ($i done)"
rmmod xmemsim && insmod /lib/modules/xmemsim.ko $(cat /params)
tap $? "reload as booted"

# --- the KUnit suites as a module (xmemsim_test.ko) on this kernel ------------------
if [ -f /lib/modules/xmemsim_test.ko ]; then
	dmesg -c > /dev/null
	insmod /lib/modules/kunit.ko && insmod /lib/modules/xmemsim_test.ko
	tap $? "insmod kunit.ko and xmemsim_test.ko (runs the suites)"
	# each suite's KTAP result line in the kernel log ("ok 3 xmem_heap_contract";
	# its cases are indented below it)
	dmesg | sed 's/^\[[^]]*\] //' |
		sed -n -E 's/^(not )?ok [0-9]+ (- )?([A-Za-z0-9_]+)$/\1\3/p' > /tmp/kunit.suites
	[ -s /tmp/kunit.suites ] || dmesg | tail -20 | sed 's/^/# /'
	[ "$(wc -l < /tmp/kunit.suites)" -ge 3 ]
	tap $? "xmemsim_test.ko reported its suites ($(wc -l < /tmp/kunit.suites))"
	while read -r line; do
		case "$line" in
		"not "*) tap 1 "xmemsim_test.ko: suite ${line#not }" ;;
		*) tap 0 "xmemsim_test.ko: suite $line" ;;
		esac
	done < /tmp/kunit.suites
	rmmod xmemsim_test && rmmod kunit
	tap $? "rmmod xmemsim_test and kunit"
fi

# --- C tests -------------------------------------------------------------------
for t in /tests/vm/test_*; do
	[ -x "$t" ] || continue	# objects and .d files lie beside them
	run_c "$(basename "$t")"
done
# the example custom op, on the allocator wrappers
run_c custom_op
# the ring-close test again and again under load: a flaky pass cannot hide
under_load test_dma closing_the_ring_ends_a_wait_in_flight 20

# --- a timeline of a double-buffered pipeline, from the DMA tracepoints -----------
echo > $tr/trace && echo 1 > $tr/events/xmemsim/xmemsim_dma_end/enable &&
	TAP_ONLY=double_buffered /tests/vm/test_dma > /dev/null
echo 0 > $tr/events/xmemsim/xmemsim_dma_end/enable
sh /work/scripts/dma-timeline.sh $tr/trace > /tmp/tl.json
sh /work/scripts/dma-timeline.sh --svg $tr/trace > /tmp/tl.svg
[ "$(grep -o '"ph":"X"' /tmp/tl.json | wc -l)" = 16 ] &&
	grep -q '"tid":1}' /tmp/tl.json && [ "$(grep -c '<rect' /tmp/tl.svg)" = 16 ]
tap $? "dma-timeline.sh: the pipeline's 16 transfers as trace events and an SVG"
grep -q 'class="axis"' /tmp/tl.svg && grep -q 'us of modeled time' /tmp/tl.svg &&
	grep -q '>core 0 engine 1<' /tmp/tl.svg && grep -q '"name":"core 0 engine 1"' /tmp/tl.json
tap $? "dma-timeline.sh: a time axis, lanes named by core"
echo > $tr/trace
! sh /work/scripts/dma-timeline.sh --svg $tr/trace > /tmp/tl0.svg 2> /tmp/tl0.err &&
	grep -q 'no xmemsim_dma_end event' /tmp/tl0.err
tap $? "dma-timeline.sh: an empty trace is an error ($(cat /tmp/tl0.err))"
grep -Eq '^engine 1 idle queued 0 completed [1-9][0-9]* bytes [1-9][0-9]* busy_ns [1-9][0-9]* bw_mbps [1-9]' $dbg/dma &&
	[ "$(grep -c '^engine ' $dbg/dma)" = 4 ]
tap $? "debugfs dma: each engine's queue, totals and achieved bandwidth"
# every result is a TAP line above: the run itself succeeded
exit 0
