/* cudalint: <cub/block/block_load.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
