/* cudalint: <cub/device/device_radix_sort.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
