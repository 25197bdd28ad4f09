/* cudalint: <cub/device/device_run_length_encode.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
