/* cudalint: 8-bit floating point (cuda_fp8.h): __nv_fp8_e4m3, __nv_fp8_e5m2 and their x2/x4
 * packs (1, 2, 4 bytes), conversions to and from float/half/bfloat16 and the integer types,
 * the constructors and conversion operators of CUDA's cuda_fp8.hpp. */
#ifndef __CUDA_FP8_H__
#define __CUDA_FP8_H__
#include "cuda_fp16.h"
#include "cuda_bf16.h"
#include "device_functions.h"

#ifdef __cplusplus
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short int __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

#define __CUDALINT_FP8(NAME, NAMEX2, NAMEX4)                                                      \
  struct __attribute__((aligned(1))) NAME {                                       \
    __nv_fp8_storage_t __x;                                                       \
    NAME() = default;                                                             \
    __host__ __device__ explicit NAME(const __half f);                            \
    __host__ __device__ explicit NAME(const __nv_bfloat16 f);                     \
    __host__ __device__ explicit NAME(const float f);                             \
    __host__ __device__ explicit NAME(const double f);                            \
    __host__ __device__ explicit NAME(const unsigned short int v);                \
    __host__ __device__ explicit NAME(const unsigned int v);                      \
    __host__ __device__ explicit NAME(const unsigned long int v);                 \
    __host__ __device__ explicit NAME(const unsigned long long int v);            \
    __host__ __device__ explicit NAME(const short int v);                         \
    __host__ __device__ explicit NAME(const int v);                               \
    __host__ __device__ explicit NAME(const long int v);                          \
    __host__ __device__ explicit NAME(const long long int v);                     \
    __host__ __device__ explicit operator __half() const;                         \
    __host__ __device__ explicit operator float() const;                          \
    __host__ __device__ explicit operator __nv_bfloat16() const;                  \
    __host__ __device__ explicit operator double() const;                         \
    __host__ __device__ explicit operator unsigned char() const;                  \
    __host__ __device__ explicit operator unsigned short int() const;             \
    __host__ __device__ explicit operator unsigned int() const;                   \
    __host__ __device__ explicit operator unsigned long int() const;              \
    __host__ __device__ explicit operator unsigned long long int() const;         \
    __host__ __device__ explicit operator signed char() const;                    \
    __host__ __device__ explicit operator char() const;                           \
    __host__ __device__ explicit operator short int() const;                      \
    __host__ __device__ explicit operator int() const;                            \
    __host__ __device__ explicit operator long int() const;                       \
    __host__ __device__ explicit operator long long int() const;                  \
    __host__ __device__ explicit operator bool() const;                           \
  };                                                                              \
  struct __attribute__((aligned(2))) NAMEX2 {                                   \
    __nv_fp8x2_storage_t __x;                                                     \
    NAMEX2() = default;                                                         \
    __host__ __device__ explicit NAMEX2(const __half2 f);                       \
    __host__ __device__ explicit NAMEX2(const __nv_bfloat162 f);                \
    __host__ __device__ explicit NAMEX2(const float2 f);                        \
    __host__ __device__ explicit NAMEX2(const double2 f);                       \
    __host__ __device__ explicit operator __half2() const;                        \
    __host__ __device__ explicit operator float2() const;                         \
  };                                                                              \
  struct __attribute__((aligned(4))) NAMEX4 {                                   \
    __nv_fp8x4_storage_t __x;                                                     \
    NAMEX4() = default;                                                         \
    __host__ __device__ explicit NAMEX4(const __half2 flo, const __half2 fhi);  \
    __host__ __device__ explicit NAMEX4(const __nv_bfloat162 flo, const __nv_bfloat162 fhi); \
    __host__ __device__ explicit NAMEX4(const float4 f);                        \
    __host__ __device__ explicit NAMEX4(const double4 f);                       \
    __host__ __device__ explicit operator float4() const;                         \
  };
__CUDALINT_FP8(__nv_fp8_e4m3, __nv_fp8x2_e4m3, __nv_fp8x4_e4m3)
__CUDALINT_FP8(__nv_fp8_e5m2, __nv_fp8x2_e5m2, __nv_fp8x4_e5m2)
#undef __CUDALINT_FP8

__host__ __device__ __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t saturate, __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t saturate, __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t saturate, __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t saturate, __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw x, __nv_saturation_t saturate, __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t fp8_interpretation);
/* The 8-bit exponent-only scale type (CUDA 12.8): E8M0. */
struct __attribute__((aligned(1))) __nv_fp8_e8m0 {
  __nv_fp8_storage_t __x;
  __nv_fp8_e8m0() = default;
  __host__ __device__ explicit __nv_fp8_e8m0(const __half f);
  __host__ __device__ explicit __nv_fp8_e8m0(const __nv_bfloat16 f);
  __host__ __device__ explicit __nv_fp8_e8m0(const float f);
  __host__ __device__ explicit __nv_fp8_e8m0(const double f);
  __host__ __device__ explicit operator __half() const;
  __host__ __device__ explicit operator float() const;
  __host__ __device__ explicit operator __nv_bfloat16() const;
  __host__ __device__ explicit operator double() const;
};
__host__ __device__ __nv_bfloat16_raw __nv_cvt_e8m0_to_bf16raw(const __nv_fp8_storage_t x);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_float_to_e8m0(float x, __nv_saturation_t saturate, enum cudaRoundMode rounding);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_double_to_e8m0(double x, __nv_saturation_t saturate, enum cudaRoundMode rounding);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw x, __nv_saturation_t saturate, enum cudaRoundMode rounding);
#endif /* __cplusplus */
#endif /* __CUDA_FP8_H__ */
