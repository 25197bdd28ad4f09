/* cudalint: <cub/device/device_partition.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
