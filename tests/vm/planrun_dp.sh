# shellcheck shell=sh
# The plan run on four devices (xmemctl plan run --devices 4, dp_plan_run()
# with devices 4): every device runs the plan on data of its own, each
# reducing collective's tensors all-reduced across the devices after the
# device's ring, checked as on one device (hazards, and every use against
# the host's reduction in the same order, bit for bit); then a device
# with a wrong gradient and a missing wait, planted, caught on every
# device. Sourced by run.sh in its devices=4 part (tap() from lib.sh);
# leaves xmemsim loaded with devices=4.

settle_refs && rmmod xmemsim &&
	insmod /lib/modules/xmemsim.ko devices=4 dma_check=1 cores=4 hbm_size=0x4000000
tap $? "insmod devices=4 dma_check=1 cores=4 hbm_size=64 MiB (the data-parallel plan run)"
for ex in allreduce_2core zero_4core gpt2_decode_2core; do
	dramplan -q --no-svg -o /tmp/dp_$ex.plan.json /work/examples/$ex.json &&
		xmemctl plan run /tmp/dp_$ex.plan.json /work/examples/$ex.json > /tmp/dp1_$ex.run &&
		xmemctl plan run --devices 4 /tmp/dp_$ex.plan.json /work/examples/$ex.json \
			/tmp/dp_$ex.trace.json > /tmp/dp4_$ex.run
	rc=$?
	[ $rc = 0 ] && [ "$(wc -l < /tmp/dp4_$ex.run)" = 1 ] &&
		grep -Eq '^plan run: [0-9]+ instructions on [0-9]+ cores x 4 devices, modeled span [1-9][0-9]* ns \(cross-device [1-9][0-9]* ns, [0-9.]+%\), critical-path bound [1-9][0-9]* ns, 0 hazards, 0 mismatches$' /tmp/dp4_$ex.run &&
		grep -q '"pid":4,' /tmp/dp_$ex.trace.json &&
		grep -q '"cat":"cross-device"' /tmp/dp_$ex.trace.json
	tap $? "xmemctl plan run --devices 4 $ex: 0 hazards, 0 mismatches, a trace a device and the cross-device steps ($(cat /tmp/dp1_$ex.run) -> $(cat /tmp/dp4_$ex.run))"
done

# one device's gradient altered before it goes across the devices (the
# test-only fault site: device 2's core 0's segment of grad_buf, after
# the device's reduce-scatter): the fold across devices carries it to
# every device and the all-gather to both cores, so every read_grad
# reads a reduction other than the host's
XMEMCTL_FAULT_ALTER=2:0:grad_buf xmemctl plan run --devices 4 /tmp/dp_allreduce_2core.plan.json \
	/work/examples/allreduce_2core.json > /tmp/dpa.run
rc=$?
[ $rc = 1 ] &&
	[ "$(grep "^mismatch: device [0-3] core [01] 'read_grad' reads 'grad_buf' at +0x[0-9a-f]*: wants core [01] 'all_reduce' reduces 'grad_buf', has other bytes$" /tmp/dpa.run |
		cut -d' ' -f3,5 | sort -u | wc -l)" = 8 ] &&
	grep -Eq '^plan run: .* 4 devices, .*, 0 hazards, 8 mismatches$' /tmp/dpa.run
tap $? "planted wrong gradient on device 2: the content check names read_grad on every core of every device, exit 1 ($(grep -c '^mismatch' /tmp/dpa.run) mismatches; $(tail -1 /tmp/dpa.run))"

# a missing wait, planned anyway: the checker names the pair on every device
sed 's/"wait": \["loss_sent"\], //' /work/examples/allreduce_2core.json > /tmp/dpw.json
dramplan -q --no-svg --allow-unordered -o /tmp/dpw.plan.json /tmp/dpw.json 2> /dev/null &&
	xmemctl plan run --devices 4 /tmp/dpw.plan.json /tmp/dpw.json > /tmp/dpw.run
rc=$?
[ $rc = 1 ] &&
	[ "$(grep "^hazard: device [0-3] .*'sum_loss'.*'send_loss'\|^hazard: device [0-3] .*'send_loss'.*'sum_loss'" /tmp/dpw.run |
		cut -d' ' -f3 | sort -u | tr -d '\n')" = 0123 ] &&
	grep -Eq '^plan run: .* 4 devices, .*, [1-9][0-9]* hazards, ' /tmp/dpw.run
tap $? "planted missing wait on 4 devices: the checker names the pair on each, exit 1 ($(tail -1 /tmp/dpw.run))"

# more devices than loaded: one line, before anything runs
xmemctl plan run --devices 5 /tmp/dp_allreduce_2core.plan.json /work/examples/allreduce_2core.json \
	> /tmp/dp5.out 2> /tmp/dp5.err
[ $? = 1 ] && [ ! -s /tmp/dp5.out ] && [ "$(wc -l < /tmp/dp5.err)" = 1 ] &&
	grep -q 'devices 0 to 4 as a communicator (xms_comm_init_all): .*devices=N' /tmp/dp5.err
tap $? "xmemctl plan run --devices 5 on 4 devices: one line ($(cat /tmp/dp5.err))"
