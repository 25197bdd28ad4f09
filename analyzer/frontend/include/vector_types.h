/* cudalint: CUDA's built-in vector types and dim3.
 *
 * Sizes and alignments match CUDA's vector_types.h so that clang's sizeof/alignof (and the
 * analyzer's access widths) are right: e.g. float2 is 8 bytes aligned 8, float3 is 12 bytes
 * aligned 4, float4 is 16 aligned 16, double2 16 aligned 16. */
#ifndef __VECTOR_TYPES_H__ /* CUDA's own include guard: code such as helper_cuda.h tests it */
#define __VECTOR_TYPES_H__

#include "host_defines.h"

#define __CUDALINT_VEC1(name, T) struct name { T x; };
#define __CUDALINT_VEC2(name, T, A) struct __attribute__((aligned(A))) name { T x, y; };
#define __CUDALINT_VEC3(name, T) struct name { T x, y, z; };
#define __CUDALINT_VEC4(name, T, A) struct __attribute__((aligned(A))) name { T x, y, z, w; };
#define __CUDALINT_TYPEDEFS(name) typedef struct name name;

/*            type                element              align */
__CUDALINT_VEC1(char1, signed char)
__CUDALINT_VEC1(uchar1, unsigned char)
__CUDALINT_VEC2(char2, signed char, 2)
__CUDALINT_VEC2(uchar2, unsigned char, 2)
__CUDALINT_VEC3(char3, signed char)
__CUDALINT_VEC3(uchar3, unsigned char)
__CUDALINT_VEC4(char4, signed char, 4)
__CUDALINT_VEC4(uchar4, unsigned char, 4)

__CUDALINT_VEC1(short1, short)
__CUDALINT_VEC1(ushort1, unsigned short)
__CUDALINT_VEC2(short2, short, 4)
__CUDALINT_VEC2(ushort2, unsigned short, 4)
__CUDALINT_VEC3(short3, short)
__CUDALINT_VEC3(ushort3, unsigned short)
__CUDALINT_VEC4(short4, short, 8)
__CUDALINT_VEC4(ushort4, unsigned short, 8)

__CUDALINT_VEC1(int1, int)
__CUDALINT_VEC1(uint1, unsigned int)
__CUDALINT_VEC2(int2, int, 8)
__CUDALINT_VEC2(uint2, unsigned int, 8)
__CUDALINT_VEC3(int3, int)
__CUDALINT_VEC3(uint3, unsigned int)
__CUDALINT_VEC4(int4, int, 16)
__CUDALINT_VEC4(uint4, unsigned int, 16)

__CUDALINT_VEC1(long1, long)
__CUDALINT_VEC1(ulong1, unsigned long)
__CUDALINT_VEC2(long2, long, 2 * sizeof(long))
__CUDALINT_VEC2(ulong2, unsigned long, 2 * sizeof(unsigned long))
__CUDALINT_VEC3(long3, long)
__CUDALINT_VEC3(ulong3, unsigned long)
__CUDALINT_VEC4(long4, long, 16)
__CUDALINT_VEC4(ulong4, unsigned long, 16)

__CUDALINT_VEC1(float1, float)
__CUDALINT_VEC2(float2, float, 8)
__CUDALINT_VEC3(float3, float)
__CUDALINT_VEC4(float4, float, 16)

__CUDALINT_VEC1(longlong1, long long)
__CUDALINT_VEC1(ulonglong1, unsigned long long)
__CUDALINT_VEC2(longlong2, long long, 16)
__CUDALINT_VEC2(ulonglong2, unsigned long long, 16)
__CUDALINT_VEC3(longlong3, long long)
__CUDALINT_VEC3(ulonglong3, unsigned long long)
__CUDALINT_VEC4(longlong4, long long, 16)
__CUDALINT_VEC4(ulonglong4, unsigned long long, 16)

__CUDALINT_VEC1(double1, double)
__CUDALINT_VEC2(double2, double, 16)
__CUDALINT_VEC3(double3, double)
__CUDALINT_VEC4(double4, double, 16)

/* CUDA 13 explicit-alignment 4-vectors of 8-byte elements. */
__CUDALINT_VEC4(long4_16a, long, 16)
__CUDALINT_VEC4(ulong4_16a, unsigned long, 16)
__CUDALINT_VEC4(long4_32a, long, 32)
__CUDALINT_VEC4(ulong4_32a, unsigned long, 32)
__CUDALINT_VEC4(longlong4_16a, long long, 16)
__CUDALINT_VEC4(ulonglong4_16a, unsigned long long, 16)
__CUDALINT_VEC4(longlong4_32a, long long, 32)
__CUDALINT_VEC4(ulonglong4_32a, unsigned long long, 32)
__CUDALINT_VEC4(double4_16a, double, 16)
__CUDALINT_VEC4(double4_32a, double, 32)

#ifndef __cplusplus
/* C needs the typedefs; in C++ the struct names are already type names. */
__CUDALINT_TYPEDEFS(char1) __CUDALINT_TYPEDEFS(uchar1) __CUDALINT_TYPEDEFS(char2)
__CUDALINT_TYPEDEFS(uchar2) __CUDALINT_TYPEDEFS(char3) __CUDALINT_TYPEDEFS(uchar3)
__CUDALINT_TYPEDEFS(char4) __CUDALINT_TYPEDEFS(uchar4) __CUDALINT_TYPEDEFS(short1)
__CUDALINT_TYPEDEFS(ushort1) __CUDALINT_TYPEDEFS(short2) __CUDALINT_TYPEDEFS(ushort2)
__CUDALINT_TYPEDEFS(short3) __CUDALINT_TYPEDEFS(ushort3) __CUDALINT_TYPEDEFS(short4)
__CUDALINT_TYPEDEFS(ushort4) __CUDALINT_TYPEDEFS(int1) __CUDALINT_TYPEDEFS(uint1)
__CUDALINT_TYPEDEFS(int2) __CUDALINT_TYPEDEFS(uint2) __CUDALINT_TYPEDEFS(int3)
__CUDALINT_TYPEDEFS(uint3) __CUDALINT_TYPEDEFS(int4) __CUDALINT_TYPEDEFS(uint4)
__CUDALINT_TYPEDEFS(long1) __CUDALINT_TYPEDEFS(ulong1) __CUDALINT_TYPEDEFS(long2)
__CUDALINT_TYPEDEFS(ulong2) __CUDALINT_TYPEDEFS(long3) __CUDALINT_TYPEDEFS(ulong3)
__CUDALINT_TYPEDEFS(long4) __CUDALINT_TYPEDEFS(ulong4) __CUDALINT_TYPEDEFS(float1)
__CUDALINT_TYPEDEFS(float2) __CUDALINT_TYPEDEFS(float3) __CUDALINT_TYPEDEFS(float4)
__CUDALINT_TYPEDEFS(longlong1) __CUDALINT_TYPEDEFS(ulonglong1) __CUDALINT_TYPEDEFS(longlong2)
__CUDALINT_TYPEDEFS(ulonglong2) __CUDALINT_TYPEDEFS(longlong3) __CUDALINT_TYPEDEFS(ulonglong3)
__CUDALINT_TYPEDEFS(longlong4) __CUDALINT_TYPEDEFS(ulonglong4) __CUDALINT_TYPEDEFS(double1)
__CUDALINT_TYPEDEFS(double2) __CUDALINT_TYPEDEFS(double3) __CUDALINT_TYPEDEFS(double4)
#endif

#undef __CUDALINT_VEC1
#undef __CUDALINT_VEC2
#undef __CUDALINT_VEC3
#undef __CUDALINT_VEC4
#undef __CUDALINT_TYPEDEFS

/* dim3: a uint3 with defaults of 1, constructible on host and device. */
struct dim3 {
  unsigned int x, y, z;
#ifdef __cplusplus
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
#ifndef __cplusplus
typedef struct dim3 dim3;
#endif

#endif /* __VECTOR_TYPES_H__ */
