/* cudalint (pycparser frontend): minimal <math.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_MATH_H
#define __CUDALINT_PYC_MATH_H
/* The CUDA math functions are declared by c_prelude.h; these are the C library's extras. */
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354
#define M_SQRT2 1.41421356237309504880
#define INFINITY (1.0f / 0.0f)
#define NAN (0.0f / 0.0f)
#define HUGE_VAL (1.0 / 0.0)
int isnan();
int isinf();
int isfinite();
double ldexp(double x, int e);
double frexp(double x, int *e);
double modf(double x, double *ip);
#endif
