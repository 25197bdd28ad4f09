/* cudalint: <cub/util_debug.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
