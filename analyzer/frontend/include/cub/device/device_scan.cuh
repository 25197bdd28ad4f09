/* cudalint: <cub/device/device_scan.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
