/* cudalint: CUDA device intrinsics -- barriers and fences, warp-level primitives, bit and
 * integer intrinsics, fast-math float intrinsics, type-punning/rounding conversions, cache-hinted
 * loads and stores, clocks, and device-side libc (printf, malloc, assert).
 *
 * Declarations only (the analyzer never generates code). Overloaded intrinsics (__ldg,
 * __shfl_sync, ...) are C++ overload sets, one per type CUDA accepts. */
#ifndef __DEVICE_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_H__

#include "host_defines.h"
#include "vector_types.h"
#include "device_launch_parameters.h"
#include <stddef.h>

#ifdef __cplusplus
#define __CUDALINT_THROW noexcept(true)
#define __CUDALINT_EXTERN_C_BEGIN extern "C" {
#define __CUDALINT_EXTERN_C_END }
#else
#define __CUDALINT_THROW
#define __CUDALINT_EXTERN_C_BEGIN
#define __CUDALINT_EXTERN_C_END
#endif

/* Rounding modes of the conversion intrinsics (CUDA's crt/device_functions.h). */
enum cudaRoundMode { cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf };

__CUDALINT_EXTERN_C_BEGIN

/* ---- Barriers and memory fences ------------------------------------------------------ */
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ void __barrier_sync(unsigned int id);
__device__ void __barrier_sync_count(unsigned int id, unsigned int count);
__device__ void __nanosleep(unsigned int ns);
__device__ void __trap(void) __attribute__((noreturn));
__device__ void __brkpt(void);
__device__ void __prof_trigger(int counter);
__device__ unsigned int __activemask(void);
/* Programmatic dependent launch (sm_90+, CUDA's cuda_device_runtime_api.h): wait for the
 * preceding grid in the stream / let the next one start. Grid-level ordering only: neither is a
 * barrier among the threads of a block. */
__device__ void cudaGridDependencySynchronize(void);
__device__ void cudaTriggerProgrammaticLaunchCompletion(void);

/* ---- Clocks and special registers ----------------------------------------------------- */
__device__ long long clock64(void);
__device__ unsigned long long __globaltimer(void);
__device__ int __clock(void);

/* ---- Address-space predicates and conversions ----------------------------------------- */
__device__ unsigned int __isGlobal(const void *ptr);
__device__ unsigned int __isShared(const void *ptr);
__device__ unsigned int __isConstant(const void *ptr);
__device__ unsigned int __isLocal(const void *ptr);
__device__ unsigned int __isGridConstant(const void *ptr);
__device__ unsigned int __isClusterShared(const void *ptr);
__device__ size_t __cvta_generic_to_global(const void *ptr);
__device__ size_t __cvta_generic_to_shared(const void *ptr);
__device__ size_t __cvta_generic_to_constant(const void *ptr);
__device__ size_t __cvta_generic_to_local(const void *ptr);
__device__ void *__cvta_global_to_generic(size_t rawbits);
__device__ void *__cvta_shared_to_generic(size_t rawbits);
__device__ void *__cvta_constant_to_generic(size_t rawbits);
__device__ void *__cvta_local_to_generic(size_t rawbits);

/* ---- Bit manipulation ----------------------------------------------------------------- */
__device__ int __popc(unsigned int x);
__device__ int __popcll(unsigned long long x);
__device__ int __clz(int x);
__device__ int __clzll(long long x);
__device__ int __ffs(int x);
__device__ int __ffsll(long long x);
__device__ unsigned int __brev(unsigned int x);
__device__ unsigned long long __brevll(unsigned long long x);
__device__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s);
__device__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __fns(unsigned int mask, unsigned int base, int offset);
__device__ unsigned int __bfe(unsigned int x, unsigned int pos, unsigned int len);

/* ---- Integer arithmetic --------------------------------------------------------------- */
__device__ int __mul24(int x, int y);
__device__ unsigned int __umul24(unsigned int x, unsigned int y);
__device__ int __mulhi(int x, int y);
__device__ unsigned int __umulhi(unsigned int x, unsigned int y);
__device__ long long __mul64hi(long long x, long long y);
__device__ unsigned long long __umul64hi(unsigned long long x, unsigned long long y);
__device__ int __hadd(int x, int y);
__device__ int __rhadd(int x, int y);
__device__ unsigned int __uhadd(unsigned int x, unsigned int y);
__device__ unsigned int __urhadd(unsigned int x, unsigned int y);
__device__ unsigned int __sad(int x, int y, unsigned int z);
__device__ unsigned int __usad(unsigned int x, unsigned int y, unsigned int z);
__device__ int __dp2a_lo(int srcA, int srcB, int c);
__device__ int __dp2a_hi(int srcA, int srcB, int c);

/* SIMD-within-a-word (video) intrinsics. */
__device__ unsigned int __vabs2(unsigned int a);
__device__ unsigned int __vabs4(unsigned int a);
__device__ unsigned int __vadd2(unsigned int a, unsigned int b);
__device__ unsigned int __vadd4(unsigned int a, unsigned int b);
__device__ unsigned int __vaddss2(unsigned int a, unsigned int b);
__device__ unsigned int __vaddss4(unsigned int a, unsigned int b);
__device__ unsigned int __vaddus2(unsigned int a, unsigned int b);
__device__ unsigned int __vaddus4(unsigned int a, unsigned int b);
__device__ unsigned int __vsub2(unsigned int a, unsigned int b);
__device__ unsigned int __vsub4(unsigned int a, unsigned int b);
__device__ unsigned int __vsubss4(unsigned int a, unsigned int b);
__device__ unsigned int __vsubus4(unsigned int a, unsigned int b);
__device__ unsigned int __vabsdiffs2(unsigned int a, unsigned int b);
__device__ unsigned int __vabsdiffs4(unsigned int a, unsigned int b);
__device__ unsigned int __vabsdiffu2(unsigned int a, unsigned int b);
__device__ unsigned int __vabsdiffu4(unsigned int a, unsigned int b);
__device__ unsigned int __vavgs2(unsigned int a, unsigned int b);
__device__ unsigned int __vavgu2(unsigned int a, unsigned int b);
__device__ unsigned int __vavgu4(unsigned int a, unsigned int b);
__device__ unsigned int __vmaxs2(unsigned int a, unsigned int b);
__device__ unsigned int __vmaxs4(unsigned int a, unsigned int b);
__device__ unsigned int __vmaxu2(unsigned int a, unsigned int b);
__device__ unsigned int __vmaxu4(unsigned int a, unsigned int b);
__device__ unsigned int __vmins2(unsigned int a, unsigned int b);
__device__ unsigned int __vmins4(unsigned int a, unsigned int b);
__device__ unsigned int __vminu2(unsigned int a, unsigned int b);
__device__ unsigned int __vminu4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpeq2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpeq4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpgtu4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpltu4(unsigned int a, unsigned int b);
__device__ unsigned int __vsads2(unsigned int a, unsigned int b);
__device__ unsigned int __vsadu2(unsigned int a, unsigned int b);
__device__ unsigned int __vsadu4(unsigned int a, unsigned int b);
__device__ unsigned int __vseteq4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetgtu4(unsigned int a, unsigned int b);
__device__ unsigned int __vabsss2(unsigned int a);
__device__ unsigned int __vhaddu2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpges2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpgeu2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpgts2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpgtu2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmples2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpleu2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmplts2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpltu2(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpne2(unsigned int a, unsigned int b);
__device__ unsigned int __vseteq2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetges2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetgeu2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetgts2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetgtu2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetles2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetleu2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetlts2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetltu2(unsigned int a, unsigned int b);
__device__ unsigned int __vsetne2(unsigned int a, unsigned int b);
__device__ unsigned int __vsubss2(unsigned int a, unsigned int b);
__device__ unsigned int __vsubus2(unsigned int a, unsigned int b);
__device__ unsigned int __vneg2(unsigned int a);
__device__ unsigned int __vnegss2(unsigned int a);
__device__ unsigned int __vabsss4(unsigned int a);
__device__ unsigned int __vavgs4(unsigned int a, unsigned int b);
__device__ unsigned int __vhaddu4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpges4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpgeu4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpgts4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmples4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpleu4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmplts4(unsigned int a, unsigned int b);
__device__ unsigned int __vcmpne4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetles4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetleu4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetlts4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetltu4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetges4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetgeu4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetgts4(unsigned int a, unsigned int b);
__device__ unsigned int __vsetne4(unsigned int a, unsigned int b);
__device__ unsigned int __vneg4(unsigned int a);
__device__ unsigned int __vnegss4(unsigned int a);
__device__ unsigned int __vsads4(unsigned int a, unsigned int b);
/* DPX (sm_90; emulated elsewhere): integer max/min of three, add-then-max/min, with ReLU
 * and the predicate-returning forms. */
__host__ __device__ int __vimax_s32_relu(const int a, const int b);
__host__ __device__ unsigned int __vimax_s16x2_relu(const unsigned int a, const unsigned int b);
__host__ __device__ int __vimin_s32_relu(const int a, const int b);
__host__ __device__ unsigned int __vimin_s16x2_relu(const unsigned int a, const unsigned int b);
__host__ __device__ int __vimax3_s32(const int a, const int b, const int c);
__host__ __device__ unsigned int __vimax3_s16x2(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ unsigned int __vimax3_u32(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ unsigned int __vimax3_u16x2(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ int __vimin3_s32(const int a, const int b, const int c);
__host__ __device__ unsigned int __vimin3_s16x2(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ unsigned int __vimin3_u32(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ unsigned int __vimin3_u16x2(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ int __vimax3_s32_relu(const int a, const int b, const int c);
__host__ __device__ unsigned int __vimax3_s16x2_relu(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ int __vimin3_s32_relu(const int a, const int b, const int c);
__host__ __device__ unsigned int __vimin3_s16x2_relu(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ int __viaddmax_s32(const int a, const int b, const int c);
__host__ __device__ unsigned int __viaddmax_s16x2(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ unsigned int __viaddmax_u32(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ unsigned int __viaddmax_u16x2(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ int __viaddmin_s32(const int a, const int b, const int c);
__host__ __device__ unsigned int __viaddmin_s16x2(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ unsigned int __viaddmin_u32(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ unsigned int __viaddmin_u16x2(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ int __viaddmax_s32_relu(const int a, const int b, const int c);
__host__ __device__ unsigned int __viaddmax_s16x2_relu(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ int __viaddmin_s32_relu(const int a, const int b, const int c);
__host__ __device__ unsigned int __viaddmin_s16x2_relu(const unsigned int a, const unsigned int b, const unsigned int c);
__host__ __device__ int __vibmax_s32(const int a, const int b, bool* const pred);
__host__ __device__ unsigned int __vibmax_u32(const unsigned int a, const unsigned int b, bool* const pred);
__host__ __device__ int __vibmin_s32(const int a, const int b, bool* const pred);
__host__ __device__ unsigned int __vibmin_u32(const unsigned int a, const unsigned int b, bool* const pred);
__host__ __device__ unsigned int __vibmax_s16x2(const unsigned int a, const unsigned int b, bool* const pred_hi, bool* const pred_lo);
__host__ __device__ unsigned int __vibmax_u16x2(const unsigned int a, const unsigned int b, bool* const pred_hi, bool* const pred_lo);
__host__ __device__ unsigned int __vibmin_s16x2(const unsigned int a, const unsigned int b, bool* const pred_hi, bool* const pred_lo);
__host__ __device__ unsigned int __vibmin_u16x2(const unsigned int a, const unsigned int b, bool* const pred_hi, bool* const pred_lo);

/* ---- Fast / explicitly rounded floating-point intrinsics ------------------------------ */
__device__ float __fdividef(float x, float y) __CUDALINT_THROW;
__device__ float __sinf(float x) __CUDALINT_THROW;
__device__ float __cosf(float x) __CUDALINT_THROW;
__device__ float __tanf(float x) __CUDALINT_THROW;
__device__ void __sincosf(float x, float *sptr, float *cptr) __CUDALINT_THROW;
__device__ float __expf(float x) __CUDALINT_THROW;
__device__ float __exp10f(float x) __CUDALINT_THROW;
__device__ float __logf(float x) __CUDALINT_THROW;
__device__ float __log2f(float x) __CUDALINT_THROW;
__device__ float __log10f(float x) __CUDALINT_THROW;
__device__ float __powf(float x, float y) __CUDALINT_THROW;
__device__ float __saturatef(float x);
__device__ float __tanhf(float x);
#define __CUDALINT_ROUNDED_F(op)                   \
  __device__ float op##_rn(float x, float y);      \
  __device__ float op##_rz(float x, float y);      \
  __device__ float op##_ru(float x, float y);      \
  __device__ float op##_rd(float x, float y);
#define __CUDALINT_ROUNDED_D(op)                   \
  __device__ double op##_rn(double x, double y);   \
  __device__ double op##_rz(double x, double y);   \
  __device__ double op##_ru(double x, double y);   \
  __device__ double op##_rd(double x, double y);
__CUDALINT_ROUNDED_F(__fadd)
__CUDALINT_ROUNDED_F(__fsub)
__CUDALINT_ROUNDED_F(__fmul)
__CUDALINT_ROUNDED_F(__fdiv)
__CUDALINT_ROUNDED_D(__dadd)
__CUDALINT_ROUNDED_D(__dsub)
__CUDALINT_ROUNDED_D(__dmul)
__CUDALINT_ROUNDED_D(__ddiv)
#undef __CUDALINT_ROUNDED_F
#undef __CUDALINT_ROUNDED_D
#define __CUDALINT_ROUNDED_UNARY(T, op)          \
  __device__ T op##_rn(T x); __device__ T op##_rz(T x); \
  __device__ T op##_ru(T x); __device__ T op##_rd(T x);
__CUDALINT_ROUNDED_UNARY(float, __frcp)
__CUDALINT_ROUNDED_UNARY(float, __fsqrt)
__CUDALINT_ROUNDED_UNARY(double, __drcp)
__CUDALINT_ROUNDED_UNARY(double, __dsqrt)
__device__ float __frsqrt_rn(float x);
__device__ float __fmaf_rn(float x, float y, float z);
__device__ float __fmaf_rz(float x, float y, float z);
__device__ float __fmaf_ru(float x, float y, float z);
__device__ float __fmaf_rd(float x, float y, float z);
__device__ float __fmaf_ieee_rn(float x, float y, float z);
__device__ float __fmaf_ieee_rz(float x, float y, float z);
__device__ float __fmaf_ieee_ru(float x, float y, float z);
__device__ float __fmaf_ieee_rd(float x, float y, float z);
__device__ double __fma_rn(double x, double y, double z);
__device__ double __fma_rz(double x, double y, double z);
__device__ double __fma_ru(double x, double y, double z);
__device__ double __fma_rd(double x, double y, double z);

/* ---- Conversions and reinterpretation -------------------------------------------------- */
#define __CUDALINT_CVT(R, name, A) \
  __device__ R name##_rn(A x); __device__ R name##_rz(A x); \
  __device__ R name##_ru(A x); __device__ R name##_rd(A x);
__CUDALINT_CVT(int, __float2int, float)
__CUDALINT_CVT(unsigned int, __float2uint, float)
__CUDALINT_CVT(long long, __float2ll, float)
__CUDALINT_CVT(unsigned long long, __float2ull, float)
__CUDALINT_CVT(float, __int2float, int)
__CUDALINT_CVT(float, __uint2float, unsigned int)
__CUDALINT_CVT(float, __ll2float, long long)
__CUDALINT_CVT(float, __ull2float, unsigned long long)
__CUDALINT_CVT(float, __double2float, double)
__CUDALINT_CVT(int, __double2int, double)
__CUDALINT_CVT(unsigned int, __double2uint, double)
__CUDALINT_CVT(long long, __double2ll, double)
__CUDALINT_CVT(unsigned long long, __double2ull, double)
__CUDALINT_CVT(double, __ll2double, long long)
__CUDALINT_CVT(double, __ull2double, unsigned long long)
#undef __CUDALINT_CVT
__device__ double __int2double_rn(int x);
__device__ double __uint2double_rn(unsigned int x);
__device__ int __float_as_int(float x);
__device__ float __int_as_float(int x);
__device__ unsigned int __float_as_uint(float x);
__device__ float __uint_as_float(unsigned int x);
__device__ long long __double_as_longlong(double x);
__device__ double __longlong_as_double(long long x);
__device__ int __double2hiint(double x);
__device__ int __double2loint(double x);
__device__ double __hiloint2double(int hi, int lo);

/* ---- Warp vote / match / reduce -------------------------------------------------------- */
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ int __uni_sync(unsigned int mask, int predicate);
__device__ unsigned int __ballot(int predicate); /* deprecated pre-Volta forms */
__device__ int __any(int predicate);
__device__ int __all(int predicate);
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_and_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_or_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_xor_sync(unsigned int mask, unsigned int value);

/* ---- Device-side libc ------------------------------------------------------------------- */
__device__ int printf(const char *format, ...);
__device__ int vprintf(const char *format, const char *args);
__device__ void *malloc(size_t size) __CUDALINT_THROW;
__device__ void free(void *ptr) __CUDALINT_THROW;
__device__ void *memcpy(void *dest, const void *src, size_t n) __CUDALINT_THROW;
__device__ void *memset(void *s, int c, size_t n) __CUDALINT_THROW;
/* What assert() expands to with glibc, and CUDA's own form. */
__device__ void __assert_fail(const char *assertion, const char *file, unsigned int line,
                              const char *function) __CUDALINT_THROW __attribute__((noreturn));
__device__ void __assertfail(const char *message, const char *file, unsigned int line,
                             const char *function, size_t charSize) __attribute__((noreturn));
__device__ void _wassert(const wchar_t *message, const wchar_t *file, unsigned line);

__CUDALINT_EXTERN_C_END

#ifdef __cplusplus
/* clock() is also a host libc function; the device overload returns the SM clock. */
extern "C" __device__ long clock(void) __CUDALINT_THROW;

/* ---- Overloaded warp intrinsics -------------------------------------------------------- */
__device__ unsigned int __match_any_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __match_any_sync(unsigned int mask, int value);
__device__ unsigned int __match_any_sync(unsigned int mask, unsigned long value);
__device__ unsigned int __match_any_sync(unsigned int mask, long value);
__device__ unsigned int __match_any_sync(unsigned int mask, unsigned long long value);
__device__ unsigned int __match_any_sync(unsigned int mask, long long value);
__device__ unsigned int __match_any_sync(unsigned int mask, float value);
__device__ unsigned int __match_any_sync(unsigned int mask, double value);
__device__ unsigned int __match_all_sync(unsigned int mask, unsigned int value, int *pred);
__device__ unsigned int __match_all_sync(unsigned int mask, int value, int *pred);
__device__ unsigned int __match_all_sync(unsigned int mask, unsigned long value, int *pred);
__device__ unsigned int __match_all_sync(unsigned int mask, long value, int *pred);
__device__ unsigned int __match_all_sync(unsigned int mask, unsigned long long value, int *pred);
__device__ unsigned int __match_all_sync(unsigned int mask, long long value, int *pred);
__device__ unsigned int __match_all_sync(unsigned int mask, float value, int *pred);
__device__ unsigned int __match_all_sync(unsigned int mask, double value, int *pred);
__device__ int __reduce_add_sync(unsigned int mask, int value);
__device__ int __reduce_min_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_min_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_max_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_max_sync(unsigned int mask, unsigned int value);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);

#define __CUDALINT_SHFL(T)                                                                   \
  __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = warpSize);     \
  __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta,                  \
                              int width = warpSize);                                         \
  __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta,                \
                                int width = warpSize);                                       \
  __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = warpSize); \
  __device__ T __shfl(T var, int srcLane, int width = warpSize);                             \
  __device__ T __shfl_up(T var, unsigned int delta, int width = warpSize);                   \
  __device__ T __shfl_down(T var, unsigned int delta, int width = warpSize);                 \
  __device__ T __shfl_xor(T var, int laneMask, int width = warpSize);
__CUDALINT_SHFL(int)
__CUDALINT_SHFL(unsigned int)
__CUDALINT_SHFL(long)
__CUDALINT_SHFL(unsigned long)
__CUDALINT_SHFL(long long)
__CUDALINT_SHFL(unsigned long long)
__CUDALINT_SHFL(float)
__CUDALINT_SHFL(double)
#undef __CUDALINT_SHFL

/* ---- Cache-hinted loads and stores (sm_32+) ------------------------------------------- */
#define __CUDALINT_LDST(T)                                                     \
  __device__ T __ldg(const T *ptr);                                            \
  __device__ T __ldcg(const T *ptr);                                           \
  __device__ T __ldca(const T *ptr);                                           \
  __device__ T __ldcs(const T *ptr);                                           \
  __device__ T __ldlu(const T *ptr);                                           \
  __device__ T __ldcv(const T *ptr);                                           \
  __device__ void __stwb(T *ptr, T value);                                     \
  __device__ void __stcg(T *ptr, T value);                                     \
  __device__ void __stcs(T *ptr, T value);                                     \
  __device__ void __stwt(T *ptr, T value);
__CUDALINT_LDST(char)
__CUDALINT_LDST(signed char)
__CUDALINT_LDST(unsigned char)
__CUDALINT_LDST(short)
__CUDALINT_LDST(unsigned short)
__CUDALINT_LDST(int)
__CUDALINT_LDST(unsigned int)
__CUDALINT_LDST(long)
__CUDALINT_LDST(unsigned long)
__CUDALINT_LDST(long long)
__CUDALINT_LDST(unsigned long long)
__CUDALINT_LDST(float)
__CUDALINT_LDST(double)
__CUDALINT_LDST(char2)
__CUDALINT_LDST(char4)
__CUDALINT_LDST(uchar2)
__CUDALINT_LDST(uchar4)
__CUDALINT_LDST(short2)
__CUDALINT_LDST(short4)
__CUDALINT_LDST(ushort2)
__CUDALINT_LDST(ushort4)
__CUDALINT_LDST(int2)
__CUDALINT_LDST(int4)
__CUDALINT_LDST(uint2)
__CUDALINT_LDST(uint4)
__CUDALINT_LDST(longlong2)
__CUDALINT_LDST(ulonglong2)
__CUDALINT_LDST(float2)
__CUDALINT_LDST(float4)
__CUDALINT_LDST(double2)
#undef __CUDALINT_LDST

/* ---- dp4a (sm_61+) ------------------------------------------------------------------- */
__device__ int __dp4a(int srcA, int srcB, int c);
__device__ unsigned int __dp4a(unsigned int srcA, unsigned int srcB, unsigned int c);
__device__ int __dp4a(char4 srcA, char4 srcB, int c);
__device__ unsigned int __dp4a(uchar4 srcA, uchar4 srcB, unsigned int c);

/* ---- Device-side operator new/delete -------------------------------------------------- */
__device__ void *operator new(size_t size);
__device__ void *operator new[](size_t size);
__device__ void operator delete(void *ptr) noexcept;
__device__ void operator delete[](void *ptr) noexcept;
__device__ void operator delete(void *ptr, size_t size) noexcept;
__device__ void operator delete[](void *ptr, size_t size) noexcept;
__device__ inline void *operator new(size_t, void *ptr) noexcept { return ptr; }
__device__ inline void *operator new[](size_t, void *ptr) noexcept { return ptr; }
__device__ inline void operator delete(void *, void *) noexcept {}
__device__ inline void operator delete[](void *, void *) noexcept {}
#endif /* __cplusplus */

#endif /* __DEVICE_FUNCTIONS_H__ */
