// SPDX-License-Identifier: GPL-2.0
/* The benchmark's own copy of the heap (xmemsim.ko need not be loaded). */
#include "../xmem_heap.c"
