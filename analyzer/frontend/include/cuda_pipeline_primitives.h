/* cudalint: see cuda_pipeline.h. */
#include "cuda_pipeline.h"
