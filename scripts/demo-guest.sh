#!/bin/sh
# Runs inside the test VM for `make demo` (see scripts/demo.sh).
set -e
show() {	# show TRACE-FILE [xmemctl options]: each command beside its result
	f=$1
	shift
	xmemctl "$@" replay < "$f" | paste -d '|' "$f" - |
		awk -F '|' '{ printf "  %-46s -> %s\n", $1, $2 }'
}

echo "== the device (xmemctl info)"
xmemctl info
cat > /tmp/trace.txt <<'TRACE'
alloc hbm 4196 0
stack 0
alloc hbm 65536 4096
alloc dataram 4096 4096
alloc hbm 0 64
alloc hbm 100 3
alloc hbm 0x10000000 0
write 0x400003000 00112233445566778899aabbccddeeff
copy 0x400003000 0x81000 16 dma
read 0x81000 16
free hbm 0x400003000
free hbm 0x400003000
stats hbm
TRACE
echo
echo "== an allocation trace on one open file (xmemctl replay; xmemctl --uring replay gives the same)"
show /tmp/trace.txt

# The main job: the 2-core model (planned on the host above) planned again
# here, submitted core by core, synced by the device, every address and
# total compared with the planner's, then bytes written through one core's
# view of each shared tensor and read back through the other core's.
model=/work/examples/allreduce_2core.json
submit() {	# submit TITLE [dramplan options]: the device part of the output
	title=$1
	shift
	echo
	echo "=== $title"
	if ! dramplan --submit --check-shared --no-svg -o /tmp/ar.plan.json "$@" "$model" > /tmp/submit.txt; then
		cat /tmp/submit.txt
		exit 1
	fi
	sed -n '/^== device/,$p' /tmp/submit.txt
}
submit "dramplan --submit --check-shared $model (ioctl)"
submit "the same through io_uring: dramplan --submit --uring --check-shared" --uring
echo
echo "== sysfs: /sys/class/misc/xmemsim/geometry"
cat /sys/class/misc/xmemsim/geometry

# The dynamic proof: each example's program run on the device with its
# plan (DMA on every core's queue, events as semaphores, collectives as a
# ring of reducing and plain transfers), under the hazard checker, content
# checked: a data-parallel step, a pipeline, a sharded step (reduce-scatter
# and all-gather) and the imported tiny GPT-2's tensor-parallel decode
# (two all-reduces a layer).
rmmod xmemsim
insmod /lib/modules/xmemsim.ko dma_check=1 cores=4 hbm_size=0x10000000
for ex in allreduce_2core pipeline_4core zero_4core gpt2_decode_2core; do
	echo
	echo "== xmemctl plan run (dma_check=1): examples/$ex.json"
	dramplan -q --no-svg -o /tmp/$ex.plan.json /work/examples/$ex.json
	xmemctl plan run /tmp/$ex.plan.json /work/examples/$ex.json /tmp/$ex.trace.json
done

# Many devices: four on a ring, their routes, and an all-reduce across
# them measured as nccl-tests measures (modeled time, every byte checked).
rmmod xmemsim
insmod /lib/modules/xmemsim.ko devices=4 hbm_size=0x4000000
echo
echo "== xmemctl topo (devices=4)"
xmemctl topo
echo
echo "== xmemctl bench all-reduce -b 1M -e 16M -f 4 -c 1"
xmemctl bench all-reduce -b 1M -e 16M -f 4 -c 1
