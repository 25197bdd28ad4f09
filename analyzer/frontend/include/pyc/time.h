/* cudalint (pycparser frontend): minimal <time.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_TIME_H
#define __CUDALINT_PYC_TIME_H
#include <stddef.h>
typedef long time_t;
typedef long clock_t;
#define CLOCKS_PER_SEC 1000000L
struct timespec { time_t tv_sec; long tv_nsec; };
time_t time(time_t *t);
double difftime(time_t a, time_t b);
int clock_gettime(int clk, struct timespec *tp);
#define CLOCK_MONOTONIC 1
#define CLOCK_REALTIME 0
#endif
