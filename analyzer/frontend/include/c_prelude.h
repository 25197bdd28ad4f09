/* cudalint: C prelude for the pycparser frontend (plain-C CUDA kernels).
 *
 * The file to analyse is run through the system C preprocessor (gcc -E / cpp) with
 * "-include c_prelude.h -nostdinc -I include/pyc", then parsed by pycparser. pycparser knows no
 * CUDA and no GNU attributes, so every CUDA qualifier becomes a C11 alignment specifier whose
 * operand is a marker identifier: `__global__` -> `_Alignas(__cudalint_global)`. _Alignas is
 * legal anywhere among declaration specifiers (before or after `static`, `extern`, `inline`,
 * the type), pycparser keeps it on the Decl (`Decl.align`), and lower_c.py reads the markers
 * back and drops them: __cudalint_global/device/host/shared/constant/managed, and
 * __cudalint_launch_bounds(maxThreads[, minBlocks[, maxBlocksPerCluster]]).
 *
 * The built-in variables, uint3/dim3, the vector types, barriers, warp intrinsics, atomics,
 * math functions and the host runtime API are declared so that expressions can be typed.
 * Overloaded CUDA functions (atomicAdd, __shfl_sync, __ldg, min, max, ...) cannot be overloaded
 * in C: they are declared without a prototype and lower_c.py types their calls from the
 * arguments, the way overload resolution would.
 */
#ifndef __CUDALINT_C_PRELUDE_H
#define __CUDALINT_C_PRELUDE_H

/* ----------------------------------------------------------------- qualifiers */
#define __global__ _Alignas(__cudalint_global)
#define __device__ _Alignas(__cudalint_device)
#define __host__ _Alignas(__cudalint_host)
#define __shared__ _Alignas(__cudalint_shared)
#define __constant__ _Alignas(__cudalint_constant)
#define __managed__ _Alignas(__cudalint_managed)
#define __launch_bounds__(...) _Alignas(__cudalint_launch_bounds(__VA_ARGS__))
#define __forceinline__ inline
#define __inline__ inline
#define __inline inline
#define __noinline__
#define __restrict__ restrict
#define __restrict restrict
#define __volatile__ volatile
#define __const const
#define __signed__ signed
#define __align__(n)
#define __builtin_align__(n)
#define __grid_constant__
#define __cluster_dims__(...)
#define __maxnreg__(n)
#define __device_builtin__
#define __cudart_builtin__
#define __attribute__(x)
#define __extension__
#define __declspec(x)
#define CUDARTAPI
#define CUDART_CB
#define __CUDA_ARCH_LIST__

/* ----------------------------------------------------------------- types */
typedef unsigned long size_t;
typedef long ptrdiff_t;

typedef struct char1 { signed char x; } char1;
typedef struct char2 { signed char x, y; } char2;
typedef struct char3 { signed char x, y, z; } char3;
typedef struct char4 { signed char x, y, z, w; } char4;
typedef struct uchar1 { unsigned char x; } uchar1;
typedef struct uchar2 { unsigned char x, y; } uchar2;
typedef struct uchar3 { unsigned char x, y, z; } uchar3;
typedef struct uchar4 { unsigned char x, y, z, w; } uchar4;
typedef struct short1 { short x; } short1;
typedef struct short2 { short x, y; } short2;
typedef struct short3 { short x, y, z; } short3;
typedef struct short4 { short x, y, z, w; } short4;
typedef struct ushort1 { unsigned short x; } ushort1;
typedef struct ushort2 { unsigned short x, y; } ushort2;
typedef struct ushort3 { unsigned short x, y, z; } ushort3;
typedef struct ushort4 { unsigned short x, y, z, w; } ushort4;
typedef struct int1 { int x; } int1;
typedef struct int2 { int x, y; } int2;
typedef struct int3 { int x, y, z; } int3;
typedef struct int4 { int x, y, z, w; } int4;
typedef struct uint1 { unsigned int x; } uint1;
typedef struct uint2 { unsigned int x, y; } uint2;
typedef struct uint3 { unsigned int x, y, z; } uint3;
typedef struct uint4 { unsigned int x, y, z, w; } uint4;
typedef struct long1 { long x; } long1;
typedef struct long2 { long x, y; } long2;
typedef struct long3 { long x, y, z; } long3;
typedef struct long4 { long x, y, z, w; } long4;
typedef struct ulong1 { unsigned long x; } ulong1;
typedef struct ulong2 { unsigned long x, y; } ulong2;
typedef struct ulong3 { unsigned long x, y, z; } ulong3;
typedef struct ulong4 { unsigned long x, y, z, w; } ulong4;
typedef struct longlong1 { long long x; } longlong1;
typedef struct longlong2 { long long x, y; } longlong2;
typedef struct longlong3 { long long x, y, z; } longlong3;
typedef struct longlong4 { long long x, y, z, w; } longlong4;
typedef struct ulonglong1 { unsigned long long x; } ulonglong1;
typedef struct ulonglong2 { unsigned long long x, y; } ulonglong2;
typedef struct ulonglong3 { unsigned long long x, y, z; } ulonglong3;
typedef struct ulonglong4 { unsigned long long x, y, z, w; } ulonglong4;
typedef struct float1 { float x; } float1;
typedef struct float2 { float x, y; } float2;
typedef struct float3 { float x, y, z; } float3;
typedef struct float4 { float x, y, z, w; } float4;
typedef struct double1 { double x; } double1;
typedef struct double2 { double x, y; } double2;
typedef struct double3 { double x, y, z; } double3;
typedef struct double4 { double x, y, z, w; } double4;
typedef struct dim3 { unsigned int x, y, z; } dim3;

/* ----------------------------------------------------------------- built-in variables */
extern const uint3 threadIdx;
extern const uint3 blockIdx;
extern const dim3 blockDim;
extern const dim3 gridDim;
extern const int warpSize;

/* ----------------------------------------------------------------- vector constructors */
char1 make_char1(signed char x);
char2 make_char2(signed char x, signed char y);
char3 make_char3(signed char x, signed char y, signed char z);
char4 make_char4(signed char x, signed char y, signed char z, signed char w);
uchar1 make_uchar1(unsigned char x);
uchar2 make_uchar2(unsigned char x, unsigned char y);
uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z);
uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w);
short1 make_short1(short x);
short2 make_short2(short x, short y);
short3 make_short3(short x, short y, short z);
short4 make_short4(short x, short y, short z, short w);
ushort1 make_ushort1(unsigned short x);
ushort2 make_ushort2(unsigned short x, unsigned short y);
ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z);
ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w);
int1 make_int1(int x);
int2 make_int2(int x, int y);
int3 make_int3(int x, int y, int z);
int4 make_int4(int x, int y, int z, int w);
uint1 make_uint1(unsigned int x);
uint2 make_uint2(unsigned int x, unsigned int y);
uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z);
uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w);
long1 make_long1(long x);
long2 make_long2(long x, long y);
long3 make_long3(long x, long y, long z);
long4 make_long4(long x, long y, long z, long w);
ulong1 make_ulong1(unsigned long x);
ulong2 make_ulong2(unsigned long x, unsigned long y);
ulong3 make_ulong3(unsigned long x, unsigned long y, unsigned long z);
ulong4 make_ulong4(unsigned long x, unsigned long y, unsigned long z, unsigned long w);
longlong1 make_longlong1(long long x);
longlong2 make_longlong2(long long x, long long y);
longlong3 make_longlong3(long long x, long long y, long long z);
longlong4 make_longlong4(long long x, long long y, long long z, long long w);
ulonglong1 make_ulonglong1(unsigned long long x);
ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y);
ulonglong3 make_ulonglong3(unsigned long long x, unsigned long long y, unsigned long long z);
ulonglong4 make_ulonglong4(unsigned long long x, unsigned long long y, unsigned long long z, unsigned long long w);
float1 make_float1(float x);
float2 make_float2(float x, float y);
float3 make_float3(float x, float y, float z);
float4 make_float4(float x, float y, float z, float w);
double1 make_double1(double x);
double2 make_double2(double x, double y);
double3 make_double3(double x, double y, double z);
double4 make_double4(double x, double y, double z, double w);

/* ----------------------------------------------------------------- barriers and fences */
void __syncthreads(void);
int __syncthreads_count(int predicate);
int __syncthreads_and(int predicate);
int __syncthreads_or(int predicate);
void __syncwarp(unsigned int mask);
void __threadfence(void);
void __threadfence_block(void);
void __threadfence_system(void);
void __nanosleep(unsigned int ns);

/* ----------------------------------------------------------------- warp intrinsics */
unsigned int __ballot_sync(unsigned int mask, int predicate);
int __all_sync(unsigned int mask, int predicate);
int __any_sync(unsigned int mask, int predicate);
unsigned int __activemask(void);
int __shfl_sync();        /* overloaded: typed from the value argument */
int __shfl_up_sync();
int __shfl_down_sync();
int __shfl_xor_sync();
unsigned int __match_any_sync();
int __reduce_add_sync();

/* ----------------------------------------------------------------- atomics (overloaded) */
int atomicAdd();
int atomicSub();
int atomicExch();
int atomicMin();
int atomicMax();
int atomicInc();
int atomicDec();
int atomicCAS();
int atomicAnd();
int atomicOr();
int atomicXor();
int atomicAdd_block();
int atomicAdd_system();

/* ----------------------------------------------------------------- loads, bits, timers */
int __ldg();              /* overloaded: returns the pointee type */
int __ldcg();
int __ldcs();
int __popc(unsigned int x);
int __popcll(unsigned long long x);
int __clz(int x);
int __clzll(long long x);
int __ffs(int x);
int __ffsll(long long x);
unsigned int __brev(unsigned int x);
int __mul24(int x, int y);
unsigned int __umul24(unsigned int x, unsigned int y);
int __mulhi(int x, int y);
unsigned int __umulhi(unsigned int x, unsigned int y);
long long clock64(void);
long clock(void);
int min();                /* overloaded: typed from the arguments */
int max();
int abs(int x);
int printf(const char *format, ...);
void __trap(void);
void __brkpt(void);
void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);

/* ----------------------------------------------------------------- math (single precision) */
float sqrtf(float x); float rsqrtf(float x); float cbrtf(float x); float rcbrtf(float x);
float expf(float x); float exp2f(float x); float exp10f(float x); float expm1f(float x);
float logf(float x); float log2f(float x); float log10f(float x); float log1pf(float x);
float sinf(float x); float cosf(float x); float tanf(float x);
float asinf(float x); float acosf(float x); float atanf(float x); float atan2f(float y, float x);
float sinhf(float x); float coshf(float x); float tanhf(float x);
float powf(float x, float y); float fabsf(float x); float floorf(float x); float ceilf(float x);
float truncf(float x); float roundf(float x); float rintf(float x); float fmodf(float x, float y);
float fminf(float x, float y); float fmaxf(float x, float y); float fmaf(float x, float y, float z);
float erff(float x); float erfcf(float x); float hypotf(float x, float y); float copysignf(float x, float y);
void sincosf(float x, float *s, float *c);
float __expf(float x); float __exp10f(float x); float __logf(float x); float __log2f(float x);
float __log10f(float x); float __sinf(float x); float __cosf(float x); float __tanf(float x);
float __powf(float x, float y); float __fdividef(float x, float y); float __saturatef(float x);
void __sincosf(float x, float *s, float *c);
float __fadd_rn(float x, float y); float __fadd_rz(float x, float y);
float __fsub_rn(float x, float y); float __fmul_rn(float x, float y); float __fmul_rz(float x, float y);
float __fdiv_rn(float x, float y); float __fmaf_rn(float x, float y, float z);
float __frcp_rn(float x); float __fsqrt_rn(float x); float __frsqrt_rn(float x);
int __float2int_rn(float x); int __float2int_rz(float x); unsigned int __float2uint_rn(float x);
float __int2float_rn(int x); float __uint2float_rn(unsigned int x);
int __float_as_int(float x); float __int_as_float(int x);
unsigned int __float_as_uint(float x); float __uint_as_float(unsigned int x);

/* ----------------------------------------------------------------- math (double precision) */
double sqrt(double x); double rsqrt(double x); double cbrt(double x);
double exp(double x); double exp2(double x); double expm1(double x);
double log(double x); double log2(double x); double log10(double x); double log1p(double x);
double sin(double x); double cos(double x); double tan(double x);
double asin(double x); double acos(double x); double atan(double x); double atan2(double y, double x);
double sinh(double x); double cosh(double x); double tanh(double x);
double pow(double x, double y); double fabs(double x); double floor(double x); double ceil(double x);
double trunc(double x); double round(double x); double rint(double x); double fmod(double x, double y);
double fmin(double x, double y); double fmax(double x, double y); double fma(double x, double y, double z);
double erf(double x); double erfc(double x); double hypot(double x, double y);
double __dadd_rn(double x, double y); double __dmul_rn(double x, double y); double __fma_rn(double x, double y, double z);
long long __double_as_longlong(double x); double __longlong_as_double(long long x);

/* ----------------------------------------------------------------- host runtime API */
typedef enum cudaError {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3, cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101, cudaErrorNoDevice = 100, cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719, cudaErrorUnknown = 999
} cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
struct cudaDeviceProp {
  char name[256]; size_t totalGlobalMem; size_t sharedMemPerBlock; int regsPerBlock;
  int warpSize; int maxThreadsPerBlock; int maxThreadsDim[3]; int maxGridSize[3];
  size_t totalConstMem; int major; int minor; int multiProcessorCount;
  int maxThreadsPerMultiProcessor; size_t sharedMemPerMultiprocessor; int regsPerMultiprocessor;
  int clockRate; int memoryClockRate; int memoryBusWidth; int l2CacheSize;
};
typedef struct cudaDeviceProp cudaDeviceProp;

cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaMemcpyToSymbol();     /* C++ templates with default arguments in CUDA */
cudaError_t cudaMemcpyFromSymbol();
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, int attr, int device);
cudaError_t cudaFuncSetCacheConfig();
cudaError_t cudaFuncSetAttribute();
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor();

#endif /* __CUDALINT_C_PRELUDE_H */
