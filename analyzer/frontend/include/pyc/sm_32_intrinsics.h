/* cudalint (pycparser frontend): minimal <sm_32_intrinsics.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_SM_32_INTRINSICS_H
#define __CUDALINT_PYC_SM_32_INTRINSICS_H
/* Everything CUDA declares is in c_prelude.h, which the pycparser frontend always includes. */
#endif
