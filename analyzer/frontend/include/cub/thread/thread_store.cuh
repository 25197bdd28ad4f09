/* cudalint: <cub/thread/thread_store.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
