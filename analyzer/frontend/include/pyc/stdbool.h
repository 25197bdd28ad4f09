/* cudalint (pycparser frontend): minimal <stdbool.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_STDBOOL_H
#define __CUDALINT_PYC_STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#define __bool_true_false_are_defined 1
#endif
