/* cudalint: atomic functions, one overload per type CUDA provides, each also in the
 * _block (CTA scope) and _system (host+peer scope) flavours of sm_60+. */
#ifndef __DEVICE_ATOMIC_FUNCTIONS_H__
#define __DEVICE_ATOMIC_FUNCTIONS_H__

#include "host_defines.h"
#include "vector_types.h"

#ifdef __cplusplus

#define __CUDALINT_ATOMIC2(name, T)              \
  __device__ T name(T *address, T val);          \
  __device__ T name##_block(T *address, T val);  \
  __device__ T name##_system(T *address, T val);

/* atomicAdd */
__CUDALINT_ATOMIC2(atomicAdd, int)
__CUDALINT_ATOMIC2(atomicAdd, unsigned int)
__CUDALINT_ATOMIC2(atomicAdd, unsigned long long int)
__CUDALINT_ATOMIC2(atomicAdd, float)
__CUDALINT_ATOMIC2(atomicAdd, double) /* sm_60+ */
__CUDALINT_ATOMIC2(atomicAdd, float2) /* sm_90+ */
__CUDALINT_ATOMIC2(atomicAdd, float4) /* sm_90+ */

/* atomicSub */
__CUDALINT_ATOMIC2(atomicSub, int)
__CUDALINT_ATOMIC2(atomicSub, unsigned int)

/* atomicExch */
__CUDALINT_ATOMIC2(atomicExch, int)
__CUDALINT_ATOMIC2(atomicExch, unsigned int)
__CUDALINT_ATOMIC2(atomicExch, unsigned long long int)
__CUDALINT_ATOMIC2(atomicExch, float)

/* atomicMin / atomicMax */
__CUDALINT_ATOMIC2(atomicMin, int)
__CUDALINT_ATOMIC2(atomicMin, unsigned int)
__CUDALINT_ATOMIC2(atomicMin, long long int)
__CUDALINT_ATOMIC2(atomicMin, unsigned long long int)
__CUDALINT_ATOMIC2(atomicMax, int)
__CUDALINT_ATOMIC2(atomicMax, unsigned int)
__CUDALINT_ATOMIC2(atomicMax, long long int)
__CUDALINT_ATOMIC2(atomicMax, unsigned long long int)

/* atomicInc / atomicDec: wrap-around counters on unsigned int */
__CUDALINT_ATOMIC2(atomicInc, unsigned int)
__CUDALINT_ATOMIC2(atomicDec, unsigned int)

/* bitwise */
__CUDALINT_ATOMIC2(atomicAnd, int)
__CUDALINT_ATOMIC2(atomicAnd, unsigned int)
__CUDALINT_ATOMIC2(atomicAnd, unsigned long long int)
__CUDALINT_ATOMIC2(atomicOr, int)
__CUDALINT_ATOMIC2(atomicOr, unsigned int)
__CUDALINT_ATOMIC2(atomicOr, unsigned long long int)
__CUDALINT_ATOMIC2(atomicXor, int)
__CUDALINT_ATOMIC2(atomicXor, unsigned int)
__CUDALINT_ATOMIC2(atomicXor, unsigned long long int)

#undef __CUDALINT_ATOMIC2

/* atomicCAS */
#define __CUDALINT_CAS(T)                                              \
  __device__ T atomicCAS(T *address, T compare, T val);                \
  __device__ T atomicCAS_block(T *address, T compare, T val);          \
  __device__ T atomicCAS_system(T *address, T compare, T val);
__CUDALINT_CAS(int)
__CUDALINT_CAS(unsigned int)
__CUDALINT_CAS(unsigned long long int)
__CUDALINT_CAS(unsigned short int) /* sm_70+ */
#undef __CUDALINT_CAS

#endif /* __cplusplus */
#endif /* __DEVICE_ATOMIC_FUNCTIONS_H__ */
