/* cudalint: <cub/thread/thread_operators.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
