/* cudalint: <cub/iterator/arg_index_input_iterator.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
