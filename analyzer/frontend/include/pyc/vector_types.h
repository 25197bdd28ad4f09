/* cudalint (pycparser frontend): minimal <vector_types.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_VECTOR_TYPES_H
#define __CUDALINT_PYC_VECTOR_TYPES_H
/* Everything CUDA declares is in c_prelude.h, which the pycparser frontend always includes. */
#endif
