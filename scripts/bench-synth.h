/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BENCH_SYNTH_H
#define BENCH_SYNTH_H

#include <stdint.h>

#include "libdramplan.h"

struct dp_model *bench_synth(uint32_t n, uint32_t W, uint64_t seed);
struct dp_model *bench_synth_all_live(uint32_t n, uint64_t seed);
struct dp_model *bench_synth_train(uint32_t n, uint32_t cores, uint64_t seed);

#endif
