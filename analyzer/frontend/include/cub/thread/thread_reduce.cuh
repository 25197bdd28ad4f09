/* cudalint: <cub/thread/thread_reduce.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
