/* cudalint: <cub/version.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
