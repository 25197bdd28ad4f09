/* cudalint: <cub/block/block_scan.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
