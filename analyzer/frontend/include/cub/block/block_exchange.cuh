/* cudalint: <cub/block/block_exchange.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
