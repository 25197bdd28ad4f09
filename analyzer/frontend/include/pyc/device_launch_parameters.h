/* cudalint (pycparser frontend): minimal <device_launch_parameters.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_DEVICE_LAUNCH_PARAMETERS_H
#define __CUDALINT_PYC_DEVICE_LAUNCH_PARAMETERS_H
/* Everything CUDA declares is in c_prelude.h, which the pycparser frontend always includes. */
#endif
