/* cudalint: <cub/block/block_reduce.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
