/* cudalint: <cub/util_device.cuh>; CUB is modelled in cub.cuh. */
#include "cub.cuh"
