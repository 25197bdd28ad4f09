/* cudalint: <cub/iterator/discard_output_iterator.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
