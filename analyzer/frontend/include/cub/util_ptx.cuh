/* cudalint: <cub/util_ptx.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
