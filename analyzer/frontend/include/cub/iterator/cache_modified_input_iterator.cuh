/* cudalint: <cub/iterator/cache_modified_input_iterator.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
