// SPDX-License-Identifier: GPL-2.0
/* The benchmark's own copy of the heap (xmemsim.ko need not be loaded). */
/* a private copy of the heap: it exports nothing */
#include <kunit/visibility.h>
#undef EXPORT_SYMBOL_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#include "../xmem_heap.c"
