/* SPDX-License-Identifier: GPL-2.0 */
/* xmemctl_bench.h - `xmemctl bench` (xmemctl_bench.c) */
#ifndef XMEMCTL_BENCH_H
#define XMEMCTL_BENCH_H

/* argv[0] "bench", argv[1] the collective, then nccl-tests' options: the exit status */
int xmemctl_bench(int argc, char **argv);

#endif /* XMEMCTL_BENCH_H */
