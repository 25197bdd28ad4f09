/* cudalint: <cub/device/device_spmv.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
