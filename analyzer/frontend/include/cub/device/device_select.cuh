/* cudalint: <cub/device/device_select.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
