/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BENCH_SYNTH_H
#define BENCH_SYNTH_H

#include <stdint.h>
#include <stdio.h>

#include "libdramplan.h"

struct dp_model *bench_synth(uint32_t n, uint32_t W, uint64_t seed);
struct dp_model *bench_synth_all_live(uint32_t n, uint64_t seed);
struct dp_model *bench_synth_train(uint32_t n, uint32_t cores, uint64_t seed);
/* MiniMalloc CSV: a guillotine-cut perfect packing (optimum = lower
 * bound = 64n), and a staircase of n buffers each overlapping w more */
void bench_synth_perfect(FILE *f, uint32_t n, uint64_t seed);
void bench_synth_staircase(FILE *f, uint32_t n, uint32_t w);

#endif
