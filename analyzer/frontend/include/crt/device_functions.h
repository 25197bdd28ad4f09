/* cudalint: CUDA keeps the intrinsics in crt/device_functions.h; same content. */
#include "../device_functions.h"
