/* cudalint: <cub/util_type.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
