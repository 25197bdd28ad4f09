/* cudalint fallback <time.h> (only when the system has none; see stdio.h). */
#ifndef __CUDALINT_FALLBACK_TIME_H
#define __CUDALINT_FALLBACK_TIME_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef long clock_t;
typedef long time_t;
typedef int clockid_t;
struct timespec { time_t tv_sec; long tv_nsec; };
struct tm { int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday, tm_yday, tm_isdst; long tm_gmtoff; const char *tm_zone; };
#define CLOCKS_PER_SEC ((clock_t)1000000)
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define TIME_UTC 1
clock_t clock(void);
time_t time(time_t *t);
double difftime(time_t t1, time_t t0);
time_t mktime(struct tm *tm);
struct tm *gmtime(const time_t *t);
struct tm *localtime(const time_t *t);
char *asctime(const struct tm *tm);
char *ctime(const time_t *t);
size_t strftime(char *s, size_t max, const char *format, const struct tm *tm);
int clock_gettime(clockid_t clk, struct timespec *tp);
int nanosleep(const struct timespec *req, struct timespec *rem);
int timespec_get(struct timespec *ts, int base);
#ifdef __cplusplus
}
#endif
#endif
