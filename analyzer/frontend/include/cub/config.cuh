/* cudalint: <cub/config.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
