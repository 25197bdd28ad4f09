/* cudalint: make_<vector>() constructors for every CUDA vector type (host and device). */
#ifndef __VECTOR_FUNCTIONS_H__ /* CUDA's own include guard: code such as helper_cuda.h tests it */
#define __VECTOR_FUNCTIONS_H__

#include "vector_types.h"

#define __CUDALINT_MK1(V, T) \
  static __inline__ __host__ __device__ V make_##V(T x) { V r; r.x = x; return r; }
#define __CUDALINT_MK2(V, T) \
  static __inline__ __host__ __device__ V make_##V(T x, T y) { V r; r.x = x; r.y = y; return r; }
#define __CUDALINT_MK3(V, T)                                          \
  static __inline__ __host__ __device__ V make_##V(T x, T y, T z) {   \
    V r; r.x = x; r.y = y; r.z = z; return r;                         \
  }
#define __CUDALINT_MK4(V, T)                                               \
  static __inline__ __host__ __device__ V make_##V(T x, T y, T z, T w) {   \
    V r; r.x = x; r.y = y; r.z = z; r.w = w; return r;                     \
  }
#define __CUDALINT_MKALL(P, T) \
  __CUDALINT_MK1(P##1, T) __CUDALINT_MK2(P##2, T) __CUDALINT_MK3(P##3, T) __CUDALINT_MK4(P##4, T)

__CUDALINT_MKALL(char, signed char)
__CUDALINT_MKALL(uchar, unsigned char)
__CUDALINT_MKALL(short, short)
__CUDALINT_MKALL(ushort, unsigned short)
__CUDALINT_MKALL(int, int)
__CUDALINT_MKALL(uint, unsigned int)
__CUDALINT_MKALL(long, long)
__CUDALINT_MKALL(ulong, unsigned long)
__CUDALINT_MKALL(longlong, long long)
__CUDALINT_MKALL(ulonglong, unsigned long long)
__CUDALINT_MKALL(float, float)
__CUDALINT_MKALL(double, double)
__CUDALINT_MK4(long4_16a, long)
__CUDALINT_MK4(long4_32a, long)
__CUDALINT_MK4(ulong4_16a, unsigned long)
__CUDALINT_MK4(ulong4_32a, unsigned long)
__CUDALINT_MK4(longlong4_16a, long long)
__CUDALINT_MK4(longlong4_32a, long long)
__CUDALINT_MK4(ulonglong4_16a, unsigned long long)
__CUDALINT_MK4(ulonglong4_32a, unsigned long long)
__CUDALINT_MK4(double4_16a, double)
__CUDALINT_MK4(double4_32a, double)

#undef __CUDALINT_MK1
#undef __CUDALINT_MK2
#undef __CUDALINT_MK3
#undef __CUDALINT_MK4
#undef __CUDALINT_MKALL

#endif /* __VECTOR_FUNCTIONS_H__ */
