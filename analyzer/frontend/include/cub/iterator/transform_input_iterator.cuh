/* cudalint: <cub/iterator/transform_input_iterator.cuh>; CUB is modelled in cub.cuh. */
#include "../cub.cuh"
