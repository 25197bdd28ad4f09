/* cudalint: <cub/util_allocator.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
