/* cudalint: <cub/device/device_histogram.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
