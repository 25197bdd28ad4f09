/* cudalint fallback <inttypes.h> (only when the system has none). */
#ifndef __CUDALINT_FALLBACK_INTTYPES_H
#define __CUDALINT_FALLBACK_INTTYPES_H
#include <stdint.h>
#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 "ld"
#define PRIi32 "i"
#define PRIi64 "li"
#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 "lu"
#define PRIx32 "x"
#define PRIx64 "lx"
#define PRIX32 "X"
#define PRIX64 "lX"
#define PRIuPTR "lu"
#define PRIxPTR "lx"
#define PRIdPTR "ld"
#define SCNd32 "d"
#define SCNd64 "ld"
#define SCNu32 "u"
#define SCNu64 "lu"
#ifdef __cplusplus
extern "C" {
#endif
intmax_t strtoimax(const char *s, char **end, int base);
uintmax_t strtoumax(const char *s, char **end, int base);
#ifdef __cplusplus
}
#endif
#endif
