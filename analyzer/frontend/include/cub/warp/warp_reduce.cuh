/* cudalint: <cub/warp/warp_reduce.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
