/* cudalint: <cub/block/block_store.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
