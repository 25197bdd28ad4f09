/* cudalint: <cub/thread/thread_scan.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
