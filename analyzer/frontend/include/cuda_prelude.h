/* cudalint prelude: force-included (-include) before every file the analyzer parses.
 *
 * It recreates what nvcc silently provides to a .cu file -- the CUDA macros, the qualifiers,
 * the built-in variables, vector types, intrinsics, math, atomics, the runtime API, and the
 * system headers nvcc's cuda_runtime.h itself includes -- using only clang's CUDA mode and
 * the headers next to this one, so parsing needs no CUDA toolkit.
 *
 * Order: CUDA macros; device declarations; the system headers; the runtime API. The device
 * math overloads must precede <cmath> (see math_functions.h). */
#ifndef __CUDALINT_PRELUDE_H
#define __CUDALINT_PRELUDE_H

/* ---- What nvcc predefines ------------------------------------------------------------ */
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
/* nvcc names itself (code guards __host__ __device__ with it, as HIP code does with __HIPCC__) */
#ifndef __NVCC__
#define __NVCC__ 1
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 8
#define __CUDACC_VER_BUILD__ 0
#endif
/* Lets code (and tests) tell that the cudalint frontend is parsing it. */
#define __CUDALINT__ 1

/* The device compilation inherits the host's __float128 macros from the aux (x86-64) target,
 * but the NVPTX target has no __float128, and libstdc++ then trips over its own
 * __float128 overloads ("__float128 is not supported on this target"). */
#undef __FLOAT128__
#undef __SIZEOF_FLOAT128__
#undef __SIZEOF_FLOAT80__

/* ---- CUDA declarations that must precede the system headers ----------------------------- */
#include "host_defines.h"
#include "vector_types.h"
#include "device_launch_parameters.h"
#include "device_functions.h"
#include "device_atomic_functions.h"
#include "math_functions.h"

/* ---- The system headers nvcc's cuda_runtime.h includes (only where they exist) --------- */
#if defined(__has_include)
#if __has_include(<string.h>)
#include <string.h>
#endif
#if __has_include(<time.h>)
#include <time.h>
#endif
#if __has_include(<stdio.h>)
#include <stdio.h>
#endif
#if __has_include(<stdlib.h>)
#include <stdlib.h>
#endif
#if __has_include(<assert.h>)
#include <assert.h>
#endif
#if __has_include(<math.h>)
#include <math.h>
#endif
#ifdef __cplusplus
#if __has_include(<new>)
#include <new>
#endif
#if __has_include(<cmath>)
#include <cmath>
#endif
#if __has_include(<cstdlib>)
#include <cstdlib>
#endif
#endif /* __cplusplus */
#endif /* __has_include */

/* ---- The rest of the runtime --------------------------------------------------------- */
#include "cuda_runtime.h"

#endif /* __CUDALINT_PRELUDE_H */
