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

/* nvcc's built-in atomics with a memory order and a thread scope (CUDA 12.8,
 * __nv_atomic_*): like GCC's __atomic_* built-ins, any arithmetic type; the value operand does
 * not take part in deduction (an int literal on an unsigned pointer is fine). */
enum {
  __NV_ATOMIC_RELAXED,
  __NV_ATOMIC_CONSUME,
  __NV_ATOMIC_ACQUIRE,
  __NV_ATOMIC_RELEASE,
  __NV_ATOMIC_ACQ_REL,
  __NV_ATOMIC_SEQ_CST
};
enum {
  __NV_THREAD_SCOPE_THREAD,
  __NV_THREAD_SCOPE_BLOCK,
  __NV_THREAD_SCOPE_CLUSTER,
  __NV_THREAD_SCOPE_DEVICE,
  __NV_THREAD_SCOPE_SYSTEM
};
template <class T> struct __cudalint_same { typedef T type; };
#define __CUDALINT_NV_RMW(OP)                                                                       \
  template <class T> __device__ T __nv_atomic_fetch_##OP(volatile T *ptr, typename __cudalint_same<T>::type val, \
                                                      int order, int scope = __NV_THREAD_SCOPE_SYSTEM); \
  template <class T> __device__ void __nv_atomic_##OP(volatile T *ptr, typename __cudalint_same<T>::type val, \
                                                   int order, int scope = __NV_THREAD_SCOPE_SYSTEM);
__CUDALINT_NV_RMW(add)
__CUDALINT_NV_RMW(sub)
__CUDALINT_NV_RMW(min)
__CUDALINT_NV_RMW(max)
__CUDALINT_NV_RMW(and)
__CUDALINT_NV_RMW(or)
__CUDALINT_NV_RMW(xor)
#undef __CUDALINT_NV_RMW
template <class T> __device__ T __nv_atomic_load_n(volatile T *ptr, int order,
                                                   int scope = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ void __nv_atomic_load(volatile T *ptr, T *ret, int order,
                                                    int scope = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ void __nv_atomic_store_n(volatile T *ptr, typename __cudalint_same<T>::type val,
                                                       int order, int scope = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ void __nv_atomic_store(volatile T *ptr, T *val, int order,
                                                     int scope = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ T __nv_atomic_exchange_n(volatile T *ptr, typename __cudalint_same<T>::type val,
                                                       int order, int scope = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ void __nv_atomic_exchange(volatile T *ptr, T *val, T *ret, int order,
                                                        int scope = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ bool __nv_atomic_compare_exchange_n(volatile T *ptr, T *expected,
                                                                  typename __cudalint_same<T>::type desired,
                                                                  bool weak, int success_order, int failure_order,
                                                                  int scope = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ bool __nv_atomic_compare_exchange(volatile T *ptr, T *expected, T *desired,
                                                                bool weak, int success_order, int failure_order,
                                                                int scope = __NV_THREAD_SCOPE_SYSTEM);
__device__ void __nv_atomic_thread_fence(int order, int scope = __NV_THREAD_SCOPE_SYSTEM);

#endif /* __cplusplus */
#endif /* __DEVICE_ATOMIC_FUNCTIONS_H__ */
