/* cudalint: <cub/device/device_segmented_sort.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
