/* cudalint (pycparser frontend): minimal <cuda_runtime_api.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_CUDA_RUNTIME_API_H
#define __CUDALINT_PYC_CUDA_RUNTIME_API_H
/* Everything CUDA declares is in c_prelude.h, which the pycparser frontend always includes. */
#endif
