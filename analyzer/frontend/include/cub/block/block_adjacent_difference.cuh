/* cudalint: <cub/block/block_adjacent_difference.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
