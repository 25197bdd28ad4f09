/* cudalint (pycparser frontend): minimal <math_functions.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_MATH_FUNCTIONS_H
#define __CUDALINT_PYC_MATH_FUNCTIONS_H
/* Everything CUDA declares is in c_prelude.h, which the pycparser frontend always includes. */
#endif
