/* cudalint: CUDA keeps the qualifier macros in crt/host_defines.h; same content. */
#include "../host_defines.h"
