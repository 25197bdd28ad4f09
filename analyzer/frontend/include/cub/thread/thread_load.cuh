/* cudalint: <cub/thread/thread_load.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
