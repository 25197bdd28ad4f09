/* cudalint: <cub/util_arch.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
