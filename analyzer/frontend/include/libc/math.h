/* cudalint fallback <math.h> (only when the system has none; see stdio.h): the C99 math
 * library for the host. (Device overloads come from the prelude's math_functions.h.) */
#ifndef __CUDALINT_FALLBACK_MATH_H
#define __CUDALINT_FALLBACK_MATH_H
#ifdef __cplusplus
extern "C" {
#endif
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define __CUDALINT_HM1(name) double name(double x); float name##f(float x); long double name##l(long double x);
#define __CUDALINT_HM2(name) double name(double x, double y); float name##f(float x, float y); long double name##l(long double x, long double y);
__CUDALINT_HM1(acos) __CUDALINT_HM1(asin) __CUDALINT_HM1(atan) __CUDALINT_HM1(cos) __CUDALINT_HM1(sin)
__CUDALINT_HM1(tan) __CUDALINT_HM1(cosh) __CUDALINT_HM1(sinh) __CUDALINT_HM1(tanh) __CUDALINT_HM1(acosh)
__CUDALINT_HM1(asinh) __CUDALINT_HM1(atanh) __CUDALINT_HM1(exp) __CUDALINT_HM1(exp2) __CUDALINT_HM1(expm1)
__CUDALINT_HM1(log) __CUDALINT_HM1(log10) __CUDALINT_HM1(log2) __CUDALINT_HM1(log1p) __CUDALINT_HM1(logb)
__CUDALINT_HM1(sqrt) __CUDALINT_HM1(cbrt) __CUDALINT_HM1(fabs) __CUDALINT_HM1(ceil) __CUDALINT_HM1(floor)
__CUDALINT_HM1(round) __CUDALINT_HM1(trunc) __CUDALINT_HM1(rint) __CUDALINT_HM1(nearbyint)
__CUDALINT_HM1(erf) __CUDALINT_HM1(erfc) __CUDALINT_HM1(tgamma) __CUDALINT_HM1(lgamma)
__CUDALINT_HM2(atan2) __CUDALINT_HM2(pow) __CUDALINT_HM2(fmod) __CUDALINT_HM2(hypot) __CUDALINT_HM2(fmin)
__CUDALINT_HM2(fmax) __CUDALINT_HM2(fdim) __CUDALINT_HM2(copysign) __CUDALINT_HM2(remainder)
__CUDALINT_HM2(nextafter)
#undef __CUDALINT_HM1
#undef __CUDALINT_HM2
double fma(double x, double y, double z); float fmaf(float x, float y, float z);
double frexp(double x, int *e); float frexpf(float x, int *e);
double ldexp(double x, int e); float ldexpf(float x, int e);
double modf(double x, double *i); float modff(float x, float *i);
double scalbn(double x, int n); float scalbnf(float x, int n);
int ilogb(double x); int ilogbf(float x);
long lround(double x); long lroundf(float x); long long llround(double x); long long llroundf(float x);
long lrint(double x); long lrintf(float x); long long llrint(double x); long long llrintf(float x);
double nan(const char *tag); float nanf(const char *tag);
double remquo(double x, double y, int *q); float remquof(float x, float y, int *q);
#ifdef __cplusplus
}
#else
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)
#define isnormal(x) __builtin_isnormal(x)
#define fpclassify(x) __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
#endif
#ifdef __cplusplus
/* <math.h> in C++ also offers the overloads <cmath> puts in std. */
#include <cmath>
#endif
#endif
