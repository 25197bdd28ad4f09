/* cudalint: <cub/device/device_reduce.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
