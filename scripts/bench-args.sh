# shellcheck shell=bash
# Sourced by the benchmarks that boot the VM (bench-dma.sh, bench-uring.sh,
# bench-heap.sh): their first option picks the kernel, and the rest of the
# command line stays in "$@".
#
#   --kernel NAME   a kernel of scripts/NAME.config (vm: the debug kernel;
#                   vm-perf: without KASAN, lockdep and kmemleak), of the
#                   line XMEMSIM_KV (default the first of scripts/matrix.sh)
#   --stock LINE    Debian's own kernel of LINE (scripts/vm.sh --stock)
#
# Sets kargs (scripts/vm.sh's options), stock_line and kernel_label, and
# prints which kernel the figures come from.
kargs=(--kernel vm)
stock_line=""
case "${1:-}" in
--kernel) kargs=(--kernel "$2"); shift 2 ;;
--stock) kargs=(--stock "$2"); stock_line=$2; shift 2 ;;
esac
if [ -n "$stock_line" ]; then
	kernel_label="Debian's stock $stock_line kernel (no KASAN, lockdep or kmemleak)"
else
	kernel_label="${kargs[1]} ${XMEMSIM_KV:-} (scripts/${kargs[1]}.config)"
fi
echo "kernel: $kernel_label"
