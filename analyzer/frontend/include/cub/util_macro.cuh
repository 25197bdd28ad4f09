/* cudalint: <cub/util_macro.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
