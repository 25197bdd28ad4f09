/* cudalint: bfloat16 (__nv_bfloat16, __nv_bfloat162) -- the types with CUDA's size (2 and 4
 * bytes), conversions, operators and the common intrinsics; generated from cuda_fp16.h's list. */
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__

#include "cuda_runtime.h"
#include "cuda_fp16.h"

#ifdef __cplusplus

typedef struct __attribute__((aligned(2))) { unsigned short x; } __nv_bfloat16_raw;
typedef struct __attribute__((aligned(4))) { unsigned short x, y; } __nv_bfloat162_raw;

struct __attribute__((aligned(2))) __nv_bfloat16 {
 protected:
  unsigned short __x;
 public:
  __nv_bfloat16() = default;
  __host__ __device__ __nv_bfloat16(const __nv_bfloat16_raw &hr) : __x(hr.x) {}
  __host__ __device__ __nv_bfloat16(float f);
  __host__ __device__ __nv_bfloat16(double f);
  __host__ __device__ __nv_bfloat16(short v);
  __host__ __device__ __nv_bfloat16(unsigned short v);
  __host__ __device__ __nv_bfloat16(int v);
  __host__ __device__ __nv_bfloat16(unsigned int v);
  __host__ __device__ __nv_bfloat16(long v);
  __host__ __device__ __nv_bfloat16(unsigned long v);
  __host__ __device__ __nv_bfloat16(long long v);
  __host__ __device__ __nv_bfloat16(unsigned long long v);
  __host__ __device__ operator float() const;
  __host__ __device__ operator __nv_bfloat16_raw() const;
  __host__ __device__ __nv_bfloat16 &operator=(const __nv_bfloat16_raw &hr);
  __host__ __device__ __nv_bfloat16 &operator=(float f);
  __host__ __device__ __nv_bfloat16 &operator=(double f);
  __host__ __device__ explicit operator bool() const;
  __host__ __device__ explicit operator short() const;
  __host__ __device__ explicit operator unsigned short() const;
  __host__ __device__ explicit operator int() const;
  __host__ __device__ explicit operator unsigned int() const;
  __host__ __device__ explicit operator long long() const;
  __host__ __device__ explicit operator unsigned long long() const;
};

struct __attribute__((aligned(4))) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __host__ __device__ __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
  __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw &h2r);
  __host__ __device__ operator __nv_bfloat162_raw() const;
  /* No operator=(const __nv_bfloat162_raw &) of its own (CUDA declares one): assigning a raw value still
   * works through the converting constructor, and `v = {}` (HeCBench quant3MatMul), which nvcc
   * accepts, is not ambiguous for clang between the raw and the __nv_bfloat162 assignment. */
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* Arithmetic and comparison operators (device code, as in CUDA). */
__device__ __nv_bfloat16 operator+(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat16 operator-(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat16 operator*(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat16 operator/(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat16 &operator+=(__nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat16 &operator-=(__nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat16 &operator*=(__nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat16 &operator/=(__nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat16 operator-(const __nv_bfloat16 &h);
__device__ __nv_bfloat16 operator+(const __nv_bfloat16 &h);
__device__ bool operator==(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ bool operator!=(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ bool operator<(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ bool operator>(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ bool operator<=(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ bool operator>=(const __nv_bfloat16 &a, const __nv_bfloat16 &b);
__device__ __nv_bfloat162 operator+(const __nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ __nv_bfloat162 operator-(const __nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ __nv_bfloat162 operator*(const __nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ __nv_bfloat162 operator/(const __nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ __nv_bfloat162 &operator+=(__nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ __nv_bfloat162 &operator-=(__nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ __nv_bfloat162 &operator*=(__nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ __nv_bfloat162 &operator/=(__nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ __nv_bfloat162 operator-(const __nv_bfloat162 &h);
__device__ bool operator==(const __nv_bfloat162 &a, const __nv_bfloat162 &b);
__device__ bool operator!=(const __nv_bfloat162 &a, const __nv_bfloat162 &b);

/* Conversions. */
__host__ __device__ __nv_bfloat16 __float2bfloat16(const float a);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rn(const float a);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rz(const float a);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rd(const float a);
__host__ __device__ __nv_bfloat16 __float2bfloat16_ru(const float a);
__host__ __device__ __nv_bfloat16 __double2bfloat16(const double a);
__host__ __device__ float __bfloat162float(const __nv_bfloat16 a);
__host__ __device__ __nv_bfloat162 __float2bfloat162_rn(const float a);
__host__ __device__ __nv_bfloat162 __floats2bfloat162_rn(const float a, const float b);
__host__ __device__ __nv_bfloat162 __float22bfloat162_rn(const float2 a);
__host__ __device__ float2 __bfloat1622float2(const __nv_bfloat162 a);
__host__ __device__ float __low2float(const __nv_bfloat162 a);
__host__ __device__ float __high2float(const __nv_bfloat162 a);
__host__ __device__ __nv_bfloat16 __low2bfloat16(const __nv_bfloat162 a);
__host__ __device__ __nv_bfloat16 __high2bfloat16(const __nv_bfloat162 a);
__host__ __device__ __nv_bfloat162 __halves2bfloat162(const __nv_bfloat16 a, const __nv_bfloat16 b);
__host__ __device__ __nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 a);
__host__ __device__ __nv_bfloat162 __lows2bfloat162(const __nv_bfloat162 a, const __nv_bfloat162 b);
__host__ __device__ __nv_bfloat162 __highs2bfloat162(const __nv_bfloat162 a, const __nv_bfloat162 b);
__host__ __device__ __nv_bfloat162 __low2bfloat162(const __nv_bfloat162 a);
__host__ __device__ __nv_bfloat162 __high2bfloat162(const __nv_bfloat162 a);
__host__ __device__ __nv_bfloat162 __lowhigh2highlow(const __nv_bfloat162 a);
__host__ __device__ __nv_bfloat162 make_bfloat162(const __nv_bfloat16 x, const __nv_bfloat16 y);
__device__ int __bfloat162int_rn(const __nv_bfloat16 h);
__device__ int __bfloat162int_rz(const __nv_bfloat16 h);
__device__ unsigned int __bfloat162uint_rn(const __nv_bfloat16 h);
__device__ unsigned int __bfloat162uint_rz(const __nv_bfloat16 h);
__device__ short __bfloat162short_rn(const __nv_bfloat16 h);
__device__ short __bfloat162short_rz(const __nv_bfloat16 h);
__device__ __nv_bfloat16 __int2bfloat16_rn(const int i);
__device__ __nv_bfloat16 __uint2bfloat16_rn(const unsigned int i);
__device__ __nv_bfloat16 __short2bfloat16_rn(const short i);
__device__ __nv_bfloat16 __ushort2bfloat16_rn(const unsigned short i);
__device__ __nv_bfloat16 __ll2bfloat16_rn(const long long i);
__device__ __nv_bfloat16 __ull2bfloat16_rn(const unsigned long long i);
__host__ __device__ short __bfloat16_as_short(const __nv_bfloat16 h);
__host__ __device__ unsigned short __bfloat16_as_ushort(const __nv_bfloat16 h);
__host__ __device__ __nv_bfloat16 __short_as_bfloat16(const short i);
__host__ __device__ __nv_bfloat16 __ushort_as_bfloat16(const unsigned short i);

/* Arithmetic intrinsics. */
__device__ __nv_bfloat16 __hadd(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hsub(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmul(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hdiv(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hadd_sat(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hsub_sat(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmul_sat(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hfma(const __nv_bfloat16 a, const __nv_bfloat16 b, const __nv_bfloat16 c);
__device__ __nv_bfloat16 __hfma_sat(const __nv_bfloat16 a, const __nv_bfloat16 b, const __nv_bfloat16 c);
__device__ __nv_bfloat16 __hfma_relu(const __nv_bfloat16 a, const __nv_bfloat16 b, const __nv_bfloat16 c);
__device__ __nv_bfloat16 __hneg(const __nv_bfloat16 a);
__device__ __nv_bfloat16 __habs(const __nv_bfloat16 a);
__device__ __nv_bfloat16 __hmax(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmin(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmax_nan(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmin_nan(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ __nv_bfloat162 __hadd2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hsub2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hmul2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __h2div(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hadd2_sat(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hsub2_sat(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hmul2_sat(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hfma2(const __nv_bfloat162 a, const __nv_bfloat162 b, const __nv_bfloat162 c);
__device__ __nv_bfloat162 __hfma2_sat(const __nv_bfloat162 a, const __nv_bfloat162 b, const __nv_bfloat162 c);
__device__ __nv_bfloat162 __hfma2_relu(const __nv_bfloat162 a, const __nv_bfloat162 b, const __nv_bfloat162 c);
__device__ __nv_bfloat162 __hcmadd(const __nv_bfloat162 a, const __nv_bfloat162 b, const __nv_bfloat162 c);
__device__ __nv_bfloat162 __hneg2(const __nv_bfloat162 a);
__device__ __nv_bfloat162 __habs2(const __nv_bfloat162 a);
__device__ __nv_bfloat162 __hmax2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hmin2(const __nv_bfloat162 a, const __nv_bfloat162 b);

/* Comparisons. */
__device__ bool __heq(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ bool __hne(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ bool __hlt(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ bool __hle(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ bool __hgt(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ bool __hge(const __nv_bfloat16 a, const __nv_bfloat16 b);
__device__ bool __hisnan(const __nv_bfloat16 a);
__device__ int __hisinf(const __nv_bfloat16 a);
__device__ __nv_bfloat162 __heq2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hne2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hlt2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hle2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hgt2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hge2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ __nv_bfloat162 __hisnan2(const __nv_bfloat162 a);
__device__ bool __hbeq2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ bool __hbne2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ bool __hblt2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ bool __hble2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ bool __hbgt2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__device__ bool __hbge2(const __nv_bfloat162 a, const __nv_bfloat162 b);

/* Math. */
#define __CUDALINT_B1(f) __device__ __nv_bfloat16 f(const __nv_bfloat16 a); __device__ __nv_bfloat162 h2##f(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hsqrt(const __nv_bfloat16 a);  __device__ __nv_bfloat162 h2sqrt(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hrsqrt(const __nv_bfloat16 a); __device__ __nv_bfloat162 h2rsqrt(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hrcp(const __nv_bfloat16 a);   __device__ __nv_bfloat162 h2rcp(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hexp(const __nv_bfloat16 a);   __device__ __nv_bfloat162 h2exp(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hexp2(const __nv_bfloat16 a);  __device__ __nv_bfloat162 h2exp2(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hexp10(const __nv_bfloat16 a); __device__ __nv_bfloat162 h2exp10(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hlog(const __nv_bfloat16 a);   __device__ __nv_bfloat162 h2log(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hlog2(const __nv_bfloat16 a);  __device__ __nv_bfloat162 h2log2(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hlog10(const __nv_bfloat16 a); __device__ __nv_bfloat162 h2log10(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hsin(const __nv_bfloat16 a);   __device__ __nv_bfloat162 h2sin(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hcos(const __nv_bfloat16 a);   __device__ __nv_bfloat162 h2cos(const __nv_bfloat162 a);
__device__ __nv_bfloat16 htanh(const __nv_bfloat16 a);  __device__ __nv_bfloat162 h2tanh(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hceil(const __nv_bfloat16 a);  __device__ __nv_bfloat162 h2ceil(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hfloor(const __nv_bfloat16 a); __device__ __nv_bfloat162 h2floor(const __nv_bfloat162 a);
__device__ __nv_bfloat16 htrunc(const __nv_bfloat16 a); __device__ __nv_bfloat162 h2trunc(const __nv_bfloat162 a);
__device__ __nv_bfloat16 hrint(const __nv_bfloat16 a);  __device__ __nv_bfloat162 h2rint(const __nv_bfloat162 a);
#undef __CUDALINT_B1

/* Warp shuffles, loads/stores and atomics on nv_bfloat16 types. */
#define __CUDALINT_BSHFL(T)                                                                   \
  __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = warpSize);      \
  __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize); \
  __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize); \
  __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = warpSize); \
  __device__ T __ldg(const T *ptr); __device__ T __ldcg(const T *ptr);                      \
  __device__ T __ldca(const T *ptr); __device__ T __ldcs(const T *ptr);                     \
  __device__ T __ldlu(const T *ptr); __device__ T __ldcv(const T *ptr);                     \
  __device__ void __stwb(T *ptr, T value); __device__ void __stcg(T *ptr, T value);         \
  __device__ void __stcs(T *ptr, T value); __device__ void __stwt(T *ptr, T value);         \
  __device__ T atomicAdd(T *address, T val); __device__ T atomicAdd_block(T *address, T val); \
  __device__ T atomicAdd_system(T *address, T val);
__CUDALINT_BSHFL(__nv_bfloat16)
__CUDALINT_BSHFL(__nv_bfloat162)
#undef __CUDALINT_BSHFL

#endif /* __cplusplus */
#endif /* __CUDA_BF16_H__ */
