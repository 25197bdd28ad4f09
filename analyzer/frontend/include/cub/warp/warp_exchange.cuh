/* cudalint: <cub/warp/warp_exchange.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
