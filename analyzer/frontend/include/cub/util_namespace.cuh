/* cudalint: <cub/util_namespace.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
