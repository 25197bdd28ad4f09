/* cudalint: CUDA's builtin_types.h gathers the runtime's type headers. */
#ifndef __BUILTIN_TYPES_H__ /* CUDA's own include guard: code such as helper_cuda.h tests it */
#define __BUILTIN_TYPES_H__
#include "host_defines.h"
#include "vector_types.h"
#include "driver_types.h"
#include "surface_types.h"
#include "texture_types.h"
#endif
