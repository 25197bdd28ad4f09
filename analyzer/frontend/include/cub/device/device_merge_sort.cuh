/* cudalint: <cub/device/device_merge_sort.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
