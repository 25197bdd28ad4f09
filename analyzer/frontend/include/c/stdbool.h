/* cudalint: freestanding <stdbool.h>. */
#ifndef __STDBOOL_H
#define __STDBOOL_H
#define __bool_true_false_are_defined 1
#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#else
/* GNU extension: _Bool in C++. */
#define _Bool bool
#endif
#endif
