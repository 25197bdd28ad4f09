/* cudalint: CUDA keeps the math declarations in crt/math_functions.h; same content. */
#include "../math_functions.h"
