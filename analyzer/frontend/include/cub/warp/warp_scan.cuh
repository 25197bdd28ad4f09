/* cudalint: <cub/warp/warp_scan.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
