/* cudalint: the built-in variables.
 *
 * Declared as ordinary const __device__ globals of struct type, so `threadIdx.x` is a plain
 * MemberExpr (MEMBER_REF_EXPR) on a DeclRefExpr (DECL_REF_EXPR) of `threadIdx` with type
 * unsigned int -- what the analyzer pattern-matches. (clang's own wrapper uses
 * __declspec(property) getters instead, which would show up as MS property references.) */
#ifndef __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__

#include "vector_types.h"

#ifdef __cplusplus
extern "C" {
#endif
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
#ifdef __cplusplus
}
#endif

/* A compile-time constant, as in clang's CUDA headers (nvcc treats it as a runtime value). */
__device__ const int warpSize = 32;

#endif /* __DEVICE_LAUNCH_PARAMETERS_H__ */
