/* cudalint: <cub/block/block_raking_layout.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
