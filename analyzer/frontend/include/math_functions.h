/* cudalint: device-side math library.
 *
 * The C functions (sin, sinf, ...) get __device__ extern "C" declarations; the host ones come
 * from the system <math.h>, and clang's CUDA overloading on __host__/__device__ keeps both.
 * The C++ float overloads (sqrt(float), pow(float, int), ...) and the integer min/max/abs
 * overloads are those CUDA's math_functions.hpp provides.
 *
 * Order matters: the prelude includes this BEFORE <cmath>/<math.h>, as clang's own CUDA
 * wrapper does, so libstdc++'s `using ::sqrt;` sees the device overloads and its constexpr
 * float overloads do not turn into conflicting implicit __host__ __device__ ones. */
#ifndef __CUDALINT_MATH_FUNCTIONS_H
#define __CUDALINT_MATH_FUNCTIONS_H

#include "host_defines.h"

#ifdef __cplusplus
#define __CUDALINT_MTHROW noexcept(true)
extern "C" {
#else
#define __CUDALINT_MTHROW
#endif

/* __CUDALINT_Mn(name): double name(n doubles) and float name##f(n floats). */
#define __CUDALINT_M1(name)                                                 \
  __device__ double name(double x) __CUDALINT_MTHROW;                       \
  __device__ float name##f(float x) __CUDALINT_MTHROW;
#define __CUDALINT_M2(name)                                                 \
  __device__ double name(double x, double y) __CUDALINT_MTHROW;             \
  __device__ float name##f(float x, float y) __CUDALINT_MTHROW;
#define __CUDALINT_M3(name)                                                 \
  __device__ double name(double x, double y, double z) __CUDALINT_MTHROW;   \
  __device__ float name##f(float x, float y, float z) __CUDALINT_MTHROW;

/* one argument */
__CUDALINT_M1(acos) __CUDALINT_M1(acosh) __CUDALINT_M1(asin) __CUDALINT_M1(asinh)
__CUDALINT_M1(atan) __CUDALINT_M1(atanh) __CUDALINT_M1(cbrt) __CUDALINT_M1(ceil)
__CUDALINT_M1(cos) __CUDALINT_M1(cosh) __CUDALINT_M1(cospi) __CUDALINT_M1(erf)
__CUDALINT_M1(erfc) __CUDALINT_M1(erfcinv) __CUDALINT_M1(erfcx) __CUDALINT_M1(erfinv)
__CUDALINT_M1(exp) __CUDALINT_M1(exp10) __CUDALINT_M1(exp2) __CUDALINT_M1(expm1)
__CUDALINT_M1(fabs) __CUDALINT_M1(floor) __CUDALINT_M1(j0) __CUDALINT_M1(j1)
__CUDALINT_M1(lgamma) __CUDALINT_M1(log) __CUDALINT_M1(log10) __CUDALINT_M1(log1p)
__CUDALINT_M1(log2) __CUDALINT_M1(logb) __CUDALINT_M1(nearbyint) __CUDALINT_M1(normcdf)
__CUDALINT_M1(normcdfinv) __CUDALINT_M1(rcbrt) __CUDALINT_M1(rint) __CUDALINT_M1(round)
__CUDALINT_M1(rsqrt) __CUDALINT_M1(sin) __CUDALINT_M1(sinh) __CUDALINT_M1(sinpi)
__CUDALINT_M1(sqrt) __CUDALINT_M1(tan) __CUDALINT_M1(tanh) __CUDALINT_M1(tgamma)
__CUDALINT_M1(trunc) __CUDALINT_M1(y0) __CUDALINT_M1(y1) __CUDALINT_M1(cyl_bessel_i0)
__CUDALINT_M1(cyl_bessel_i1)
/* two arguments */
__CUDALINT_M2(atan2) __CUDALINT_M2(copysign) __CUDALINT_M2(fdim) __CUDALINT_M2(fmax)
__CUDALINT_M2(fmin) __CUDALINT_M2(fmod) __CUDALINT_M2(hypot) __CUDALINT_M2(nextafter)
__CUDALINT_M2(pow) __CUDALINT_M2(remainder) __CUDALINT_M2(rhypot)
/* three and four */
__CUDALINT_M3(fma) __CUDALINT_M3(norm3d) __CUDALINT_M3(rnorm3d)
__device__ double norm4d(double a, double b, double c, double d) __CUDALINT_MTHROW;
__device__ float norm4df(float a, float b, float c, float d) __CUDALINT_MTHROW;
__device__ double rnorm4d(double a, double b, double c, double d) __CUDALINT_MTHROW;
__device__ float rnorm4df(float a, float b, float c, float d) __CUDALINT_MTHROW;
__device__ double norm(int dim, const double *p) __CUDALINT_MTHROW;
__device__ float normf(int dim, const float *p) __CUDALINT_MTHROW;
__device__ double rnorm(int dim, const double *p) __CUDALINT_MTHROW;
__device__ float rnormf(int dim, const float *p) __CUDALINT_MTHROW;
/* mixed signatures */
__device__ double frexp(double x, int *nptr) __CUDALINT_MTHROW;
__device__ float frexpf(float x, int *nptr) __CUDALINT_MTHROW;
__device__ double ldexp(double x, int exp) __CUDALINT_MTHROW;
__device__ float ldexpf(float x, int exp) __CUDALINT_MTHROW;
__device__ double modf(double x, double *iptr) __CUDALINT_MTHROW;
__device__ float modff(float x, float *iptr) __CUDALINT_MTHROW;
__device__ double remquo(double x, double y, int *quo) __CUDALINT_MTHROW;
__device__ float remquof(float x, float y, int *quo) __CUDALINT_MTHROW;
__device__ double scalbn(double x, int n) __CUDALINT_MTHROW;
__device__ float scalbnf(float x, int n) __CUDALINT_MTHROW;
__device__ double scalbln(double x, long n) __CUDALINT_MTHROW;
__device__ float scalblnf(float x, long n) __CUDALINT_MTHROW;
__device__ int ilogb(double x) __CUDALINT_MTHROW;
__device__ int ilogbf(float x) __CUDALINT_MTHROW;
__device__ long lrint(double x) __CUDALINT_MTHROW;
__device__ long lrintf(float x) __CUDALINT_MTHROW;
__device__ long lround(double x) __CUDALINT_MTHROW;
__device__ long lroundf(float x) __CUDALINT_MTHROW;
__device__ long long llrint(double x) __CUDALINT_MTHROW;
__device__ long long llrintf(float x) __CUDALINT_MTHROW;
__device__ long long llround(double x) __CUDALINT_MTHROW;
__device__ long long llroundf(float x) __CUDALINT_MTHROW;
__device__ double nan(const char *tagp) __CUDALINT_MTHROW;
__device__ float nanf(const char *tagp) __CUDALINT_MTHROW;
__device__ double jn(int n, double x) __CUDALINT_MTHROW;
__device__ float jnf(int n, float x) __CUDALINT_MTHROW;
__device__ double yn(int n, double x) __CUDALINT_MTHROW;
__device__ float ynf(int n, float x) __CUDALINT_MTHROW;
__device__ void sincos(double x, double *sptr, double *cptr) __CUDALINT_MTHROW;
__device__ void sincosf(float x, float *sptr, float *cptr) __CUDALINT_MTHROW;
__device__ void sincospi(double x, double *sptr, double *cptr) __CUDALINT_MTHROW;
__device__ void sincospif(float x, float *sptr, float *cptr) __CUDALINT_MTHROW;
__device__ float fdividef(float x, float y) __CUDALINT_MTHROW;
__device__ double fdivide(double x, double y) __CUDALINT_MTHROW;
/* classification helpers CUDA's math_functions.h declares (glibc's host ones share the names) */
__device__ int __isnanf(float x) __CUDALINT_MTHROW;
__device__ int __isnan(double x) __CUDALINT_MTHROW;
__device__ int __isinff(float x) __CUDALINT_MTHROW;
__device__ int __isinf(double x) __CUDALINT_MTHROW;
__device__ int __finitef(float x) __CUDALINT_MTHROW;
__device__ int __finite(double x) __CUDALINT_MTHROW;
__device__ int __signbitf(float x) __CUDALINT_MTHROW;
__device__ int __signbit(double x) __CUDALINT_MTHROW;

/* integer helpers. abs/labs/llabs exist on the host in libc; min/max and friends do not, and
 * CUDA makes them __host__ __device__ (host code such as `blocks = min(maxBlocks, n)` relies
 * on it). */
__device__ int abs(int a) __CUDALINT_MTHROW;
__device__ long labs(long a) __CUDALINT_MTHROW;
__device__ long long llabs(long long a) __CUDALINT_MTHROW;
__host__ __device__ int min(int a, int b) __CUDALINT_MTHROW;
__host__ __device__ unsigned int umin(unsigned int a, unsigned int b) __CUDALINT_MTHROW;
__host__ __device__ long long llmin(long long a, long long b) __CUDALINT_MTHROW;
__host__ __device__ unsigned long long ullmin(unsigned long long a, unsigned long long b) __CUDALINT_MTHROW;
__host__ __device__ int max(int a, int b) __CUDALINT_MTHROW;
__host__ __device__ unsigned int umax(unsigned int a, unsigned int b) __CUDALINT_MTHROW;
__host__ __device__ long long llmax(long long a, long long b) __CUDALINT_MTHROW;
__host__ __device__ unsigned long long ullmax(unsigned long long a, unsigned long long b) __CUDALINT_MTHROW;

#undef __CUDALINT_M1
#undef __CUDALINT_M2
#undef __CUDALINT_M3

#ifdef __cplusplus
} /* extern "C" */

/* C++ overloads CUDA adds (math_functions.hpp). min/max are __host__ __device__ in CUDA. */
__host__ __device__ unsigned int min(unsigned int a, unsigned int b);
__host__ __device__ unsigned int min(int a, unsigned int b);
__host__ __device__ unsigned int min(unsigned int a, int b);
__host__ __device__ long min(long a, long b);
__host__ __device__ unsigned long min(unsigned long a, unsigned long b);
__host__ __device__ unsigned long min(long a, unsigned long b);
__host__ __device__ unsigned long min(unsigned long a, long b);
__host__ __device__ long long min(long long a, long long b);
__host__ __device__ unsigned long long min(unsigned long long a, unsigned long long b);
__host__ __device__ unsigned long long min(long long a, unsigned long long b);
__host__ __device__ unsigned long long min(unsigned long long a, long long b);
__host__ __device__ float min(float a, float b);
__host__ __device__ double min(double a, double b);
__host__ __device__ double min(float a, double b);
__host__ __device__ double min(double a, float b);
__host__ __device__ unsigned int max(unsigned int a, unsigned int b);
__host__ __device__ unsigned int max(int a, unsigned int b);
__host__ __device__ unsigned int max(unsigned int a, int b);
__host__ __device__ long max(long a, long b);
__host__ __device__ unsigned long max(unsigned long a, unsigned long b);
__host__ __device__ unsigned long max(long a, unsigned long b);
__host__ __device__ unsigned long max(unsigned long a, long b);
__host__ __device__ long long max(long long a, long long b);
__host__ __device__ unsigned long long max(unsigned long long a, unsigned long long b);
__host__ __device__ unsigned long long max(long long a, unsigned long long b);
__host__ __device__ unsigned long long max(unsigned long long a, long long b);
__host__ __device__ float max(float a, float b);
__host__ __device__ double max(double a, double b);
__host__ __device__ double max(float a, double b);
__host__ __device__ double max(double a, float b);

__device__ long abs(long a) __CUDALINT_MTHROW;
__device__ long long abs(long long a) __CUDALINT_MTHROW;
__device__ float abs(float a) __CUDALINT_MTHROW;
__device__ double abs(double a) __CUDALINT_MTHROW;

#define __CUDALINT_F1(name) __device__ float name(float x) __CUDALINT_MTHROW;
#define __CUDALINT_F2(name) __device__ float name(float x, float y) __CUDALINT_MTHROW;
__CUDALINT_F1(acos) __CUDALINT_F1(acosh) __CUDALINT_F1(asin) __CUDALINT_F1(asinh)
__CUDALINT_F1(atan) __CUDALINT_F1(atanh) __CUDALINT_F1(cbrt) __CUDALINT_F1(ceil)
__CUDALINT_F1(cos) __CUDALINT_F1(cosh) __CUDALINT_F1(erf) __CUDALINT_F1(erfc)
__CUDALINT_F1(exp) __CUDALINT_F1(exp2) __CUDALINT_F1(expm1) __CUDALINT_F1(fabs)
__CUDALINT_F1(floor) __CUDALINT_F1(lgamma) __CUDALINT_F1(log) __CUDALINT_F1(log10)
__CUDALINT_F1(log1p) __CUDALINT_F1(log2) __CUDALINT_F1(logb) __CUDALINT_F1(nearbyint)
__CUDALINT_F1(rint) __CUDALINT_F1(round) __CUDALINT_F1(rsqrt) __CUDALINT_F1(sin)
__CUDALINT_F1(sinh) __CUDALINT_F1(sqrt) __CUDALINT_F1(tan) __CUDALINT_F1(tanh)
__CUDALINT_F1(tgamma) __CUDALINT_F1(trunc)
__CUDALINT_F2(atan2) __CUDALINT_F2(copysign) __CUDALINT_F2(fdim) __CUDALINT_F2(fmax)
__CUDALINT_F2(fmin) __CUDALINT_F2(fmod) __CUDALINT_F2(hypot) __CUDALINT_F2(nextafter)
__CUDALINT_F2(pow) __CUDALINT_F2(remainder)
#undef __CUDALINT_F1
#undef __CUDALINT_F2
__device__ float fma(float x, float y, float z) __CUDALINT_MTHROW;
__device__ float pow(float x, int y) __CUDALINT_MTHROW;
__device__ double pow(double x, int y) __CUDALINT_MTHROW;
__device__ float frexp(float x, int *nptr) __CUDALINT_MTHROW;
__device__ float ldexp(float x, int exp) __CUDALINT_MTHROW;
__device__ float modf(float x, float *iptr) __CUDALINT_MTHROW;
__device__ float remquo(float x, float y, int *quo) __CUDALINT_MTHROW;
__device__ float scalbn(float x, int n) __CUDALINT_MTHROW;
__device__ float scalbln(float x, long n) __CUDALINT_MTHROW;
__device__ int ilogb(float x) __CUDALINT_MTHROW;
__device__ long lrint(float x) __CUDALINT_MTHROW;
__device__ long lround(float x) __CUDALINT_MTHROW;
__device__ long long llrint(float x) __CUDALINT_MTHROW;
__device__ long long llround(float x) __CUDALINT_MTHROW;
__device__ void sincos(float x, float *sptr, float *cptr) __CUDALINT_MTHROW;
__device__ void sincospi(float x, float *sptr, float *cptr) __CUDALINT_MTHROW;
#endif /* __cplusplus */

#undef __CUDALINT_MTHROW
#endif /* __CUDALINT_MATH_FUNCTIONS_H */
