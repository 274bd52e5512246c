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
write 0x400002000 00112233445566778899aabbccddeeff
copy 0x400002000 0x81000 16 dma
read 0x81000 16
free hbm 0x400001000
free hbm 0x400001000
stats hbm
dump hbm
TRACE
echo
echo "== an allocation trace on one open file, through ioctl (xmemctl replay)"
show /tmp/trace.txt
echo
echo "== the same trace through io_uring (xmemctl --uring replay)"
show /tmp/trace.txt --uring
echo
echo "== sysfs: /sys/class/misc/xmemsim/geometry"
cat /sys/class/misc/xmemsim/geometry
