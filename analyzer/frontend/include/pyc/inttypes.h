/* cudalint (pycparser frontend): minimal <inttypes.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_INTTYPES_H
#define __CUDALINT_PYC_INTTYPES_H
#include <stdint.h>
#define PRId64 "ld"
#define PRIu64 "lu"
#define PRIx64 "lx"
#endif
