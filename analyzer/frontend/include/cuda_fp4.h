/* cudalint: 4-bit floating point (cuda_fp4.h, CUDA 12.8): __nv_fp4_e2m1 and its x2/x4 packs
 * (1, 1, 2 bytes), conversions to and from float/half/bfloat16, the constructors and conversion
 * operators of CUDA's cuda_fp4.hpp. */
#ifndef __CUDA_FP4_H__
#define __CUDA_FP4_H__
#include "cuda_fp16.h"
#include "cuda_bf16.h"
#include "device_functions.h"

#ifdef __cplusplus
typedef unsigned char __nv_fp4_storage_t;
typedef unsigned char __nv_fp4x2_storage_t;
typedef unsigned short int __nv_fp4x4_storage_t;
typedef enum __nv_fp4_interpretation_t { __NV_E2M1 } __nv_fp4_interpretation_t;

struct __attribute__((aligned(1))) __nv_fp4_e2m1 {
  __nv_fp4_storage_t __x;
  __nv_fp4_e2m1() = default;
  __host__ __device__ explicit __nv_fp4_e2m1(const __half f);
  __host__ __device__ explicit __nv_fp4_e2m1(const __nv_bfloat16 f);
  __host__ __device__ explicit __nv_fp4_e2m1(const float f);
  __host__ __device__ explicit __nv_fp4_e2m1(const double f);
  __host__ __device__ explicit __nv_fp4_e2m1(const int v);
  __host__ __device__ explicit __nv_fp4_e2m1(const unsigned int v);
  __host__ __device__ explicit operator __half() const;
  __host__ __device__ explicit operator float() const;
  __host__ __device__ explicit operator __nv_bfloat16() const;
  __host__ __device__ explicit operator double() const;
  __host__ __device__ explicit operator int() const;
  __host__ __device__ explicit operator bool() const;
};
struct __attribute__((aligned(1))) __nv_fp4x2_e2m1 {
  __nv_fp4x2_storage_t __x;
  __nv_fp4x2_e2m1() = default;
  __host__ __device__ explicit __nv_fp4x2_e2m1(const __half2 f);
  __host__ __device__ explicit __nv_fp4x2_e2m1(const __nv_bfloat162 f);
  __host__ __device__ explicit __nv_fp4x2_e2m1(const float2 f);
  __host__ __device__ explicit __nv_fp4x2_e2m1(const double2 f);
  __host__ __device__ explicit operator __half2() const;
  __host__ __device__ explicit operator float2() const;
};
struct __attribute__((aligned(2))) __nv_fp4x4_e2m1 {
  __nv_fp4x4_storage_t __x;
  __nv_fp4x4_e2m1() = default;
  __host__ __device__ explicit __nv_fp4x4_e2m1(const __half2 flo, const __half2 fhi);
  __host__ __device__ explicit __nv_fp4x4_e2m1(const __nv_bfloat162 flo, const __nv_bfloat162 fhi);
  __host__ __device__ explicit __nv_fp4x4_e2m1(const float4 f);
  __host__ __device__ explicit __nv_fp4x4_e2m1(const double4 f);
  __host__ __device__ explicit operator float4() const;
};

__host__ __device__ __nv_fp4_storage_t __nv_cvt_float_to_fp4(float x, __nv_fp4_interpretation_t fp4_interpretation, enum cudaRoundMode rounding);
__host__ __device__ __nv_fp4x2_storage_t __nv_cvt_float2_to_fp4x2(float2 x, __nv_fp4_interpretation_t fp4_interpretation, enum cudaRoundMode rounding);
__host__ __device__ __nv_fp4_storage_t __nv_cvt_double_to_fp4(double x, __nv_fp4_interpretation_t fp4_interpretation, enum cudaRoundMode rounding);
__host__ __device__ __nv_fp4_storage_t __nv_cvt_halfraw_to_fp4(__half_raw x, __nv_fp4_interpretation_t fp4_interpretation, enum cudaRoundMode rounding);
__host__ __device__ __nv_fp4_storage_t __nv_cvt_bfloat16raw_to_fp4(__nv_bfloat16_raw x, __nv_fp4_interpretation_t fp4_interpretation, enum cudaRoundMode rounding);
__host__ __device__ __half_raw __nv_cvt_fp4_to_halfraw(__nv_fp4_storage_t x, __nv_fp4_interpretation_t fp4_interpretation);
__host__ __device__ __half2_raw __nv_cvt_fp4x2_to_halfraw2(__nv_fp4x2_storage_t x, __nv_fp4_interpretation_t fp4_interpretation);
#endif /* __cplusplus */
#endif /* __CUDA_FP4_H__ */
