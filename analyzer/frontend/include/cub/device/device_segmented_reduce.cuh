/* cudalint: <cub/device/device_segmented_reduce.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
