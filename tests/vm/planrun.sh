# shellcheck shell=sh
# The plan run (xmemctl plan run, dp_plan_run()): the examples run clean,
# and bugs planted in copies of them are caught by the right layer, naming
# the right instructions. Sourced by run.sh (tap() from lib.sh); loads the
# module with the checker on and four cores, and leaves it loaded so.

rmmod xmemsim && insmod /lib/modules/xmemsim.ko dma_check=1 cores=4 hbm_size=0x10000000
tap $? "insmod with dma_check=1 cores=4 hbm_size=256 MiB (the plan run)"
for ex in allreduce_2core pipeline_4core zero_4core gpt2_decode_2core; do
	dramplan -q --no-svg -o /tmp/$ex.plan.json /work/examples/$ex.json &&
		xmemctl plan run /tmp/$ex.plan.json /work/examples/$ex.json /tmp/$ex.trace.json > /tmp/$ex.run
	rc=$?
	[ $rc = 0 ] && [ "$(wc -l < /tmp/$ex.run)" = 1 ] &&
		grep -Eq '^plan run: [0-9]+ instructions on [0-9]+ cores, modeled span [1-9][0-9]* ns, critical-path bound [1-9][0-9]* ns, 0 hazards, 0 mismatches$' /tmp/$ex.run &&
		grep -q '"cat":"ring reduce"' /tmp/$ex.trace.json
	tap $? "xmemctl plan run $ex: 0 hazards, 0 mismatches, exit 0, a trace ($(cat /tmp/$ex.run))"
done

# reduce_scatter and all_gather: zero_4core's ran above, content checked
# against the host's reduction in the ring's order; its trace has both
grep -q '"cat":"ring gather"' /tmp/zero_4core.trace.json &&
	grep -q '"name":"reduce_scatter grad","cat":"ring reduce"' /tmp/zero_4core.trace.json
tap $? "xmemctl plan run zero_4core: its reduce_scatter and all_gather ran as the ring"

# compute_ns: 500 us on each core's backward moves the bound by at least
# that, and the run's span by about as much (a copy on the core's queue
# that lasts it)
sed 's/"name": "backward",/"name": "backward", "compute_ns": 500000,/' \
	/work/examples/allreduce_2core.json > /tmp/cn.json
dramplan -q --no-svg -o /tmp/cn.plan.json /tmp/cn.json &&
	xmemctl plan run /tmp/cn.plan.json /tmp/cn.json /tmp/cn.trace.json > /tmp/cn.run
rc=$?
span() { sed -n "s/.*modeled span \([0-9]*\) ns.*/\1/p" "$1"; }
bound() { sed -n "s/.*critical-path bound \([0-9]*\) ns.*/\1/p" "$1"; }
[ $rc = 0 ] && grep -q '"name":"backward","cat":"compute"' /tmp/cn.trace.json &&
	[ "$(bound /tmp/cn.run)" -ge $(($(bound /tmp/allreduce_2core.run) + 500000)) ] &&
	[ "$(span /tmp/cn.run)" -ge $(($(span /tmp/allreduce_2core.run) + 490000)) ]
tap $? "compute_ns 500000 on backward: bound and span grow by it ($(cat /tmp/allreduce_2core.run) -> $(cat /tmp/cn.run))"

# a missing wait: core 0's sum_loss reads loss_in before core 1's send_loss
# is known to have written it
sed 's/"wait": \["loss_sent"\], //' /work/examples/allreduce_2core.json > /tmp/mw.json
dramplan -q --no-svg -o /tmp/mw.plan.json /tmp/mw.json 2> /tmp/mw.err
[ $? = 1 ] && [ ! -e /tmp/mw.plan.json ] &&
	grep -q "unordered: core 0 'sum_loss' reads 'loss_in' / core 1 'send_loss' writes 'loss_out'" /tmp/mw.err
tap $? "planted missing wait: dramplan refuses, naming both instructions"
dramplan -q --no-svg --allow-unordered -o /tmp/mw.plan.json /tmp/mw.json 2> /dev/null &&
	xmemctl plan run /tmp/mw.plan.json /tmp/mw.json > /tmp/mw.run
rc=$?
[ $rc = 1 ] && grep -q "^hazard: .*'sum_loss' .* 'loss_in' / .*'send_loss' writes 'loss_out'\|^hazard: .*'send_loss' writes 'loss_out' / .*'sum_loss' reads 'loss_in'" /tmp/mw.run &&
	grep -Eq '^plan run: .*, [1-9][0-9]* hazards, ' /tmp/mw.run
tap $? "planted missing wait, planned anyway: the device's checker names the pair, exit 1 ($(tr '\n' '|' < /tmp/mw.run))"

# a wait on the wrong event: core 2's forward waits for act0_ready, not act1_ready
sed 's/"uses": \["x_in", "w2"\], "wait": \["act1_ready"\]/"uses": ["x_in", "w2"], "wait": ["act0_ready"]/' \
	/work/examples/pipeline_4core.json > /tmp/we.json
dramplan -q --no-svg -o /tmp/we.plan.json /tmp/we.json 2> /tmp/we.err
[ $? = 1 ] && grep -q "unordered: core 1 'send_act' writes 'act1' / core 2 'forward' reads 'x_in'" /tmp/we.err
tap $? "planted wait on the wrong event: dramplan refuses, naming both instructions"
dramplan -q --no-svg --allow-unordered -o /tmp/we.plan.json /tmp/we.json 2> /dev/null &&
	xmemctl plan run /tmp/we.plan.json /tmp/we.json > /tmp/we.run
rc=$?
[ $rc = 1 ] && grep -q "^hazard: core 2 'forward' reads 'x_in' / core 1 'send_act' writes 'act1'" /tmp/we.run
tap $? "planted wait on the wrong event, planned anyway: the device names the pair, exit 1 ($(tr '\n' '|' < /tmp/we.run))"

# an all-reduce with one core missing: core 1 has no all_reduce; the run
# ends with one error line (the model is refused), it does not hang
awk '/"name": "all_reduce"/ { n++; if (n == 2) { skip = 2 } } skip > 0 { skip--; next } { print }' \
	/work/examples/allreduce_2core.json > /tmp/mm.json
timeout 60 xmemctl plan run /tmp/allreduce_2core.plan.json /tmp/mm.json > /tmp/mm.out 2> /tmp/mm.err
rc=$?
[ $rc = 1 ] && [ "$(wc -l < /tmp/mm.err)" = 1 ] &&
	grep -q "core 0 'all_reduce'.*core 1 has no collective 'all_reduce'" /tmp/mm.err
tap $? "planted all-reduce with core 1 missing: the run ends with an error naming it, no hang ($(cat /tmp/mm.err))"

# a misplaced tensor: core 0's update put on weights' bytes, which are
# still to be read (through the test-only fault site: verify and the
# device refuse such a plan); the content check names reader and writer
XMEMCTL_FAULT_MISPLACE=0:update=0:weights xmemctl plan run /tmp/allreduce_2core.plan.json \
	/work/examples/allreduce_2core.json > /tmp/mp.run
rc=$?
[ $rc = 1 ] &&
	grep -q "^mismatch: core 0 'sgd' reads 'weights' at +0x0: wants the bytes 'weights' held before the run, has core 0 'read_grad' writes 'update'$" /tmp/mp.run &&
	grep -Eq '^plan run: .*, 0 hazards, [1-9][0-9]* mismatches$' /tmp/mp.run
tap $? "planted misplaced tensor: the content check names the reader and the writer, exit 1 ($(tr '\n' '|' < /tmp/mp.run))"

# without the checker the run says so and does not run
rmmod xmemsim && insmod /lib/modules/xmemsim.ko cores=4 hbm_size=0x10000000
xmemctl plan run /tmp/allreduce_2core.plan.json /work/examples/allreduce_2core.json 2> /tmp/nc.err
[ $? = 1 ] && grep -q 'hazard checker is off: load xmemsim with dma_check=1' /tmp/nc.err
tap $? "xmemctl plan run without the checker: one line saying how to load it"
