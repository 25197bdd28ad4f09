/* cudalint: profiler control (cuda_profiler_api.h). */
#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__
#include "cuda_runtime_api.h"
/* cudaProfilerStart / cudaProfilerStop are declared in cuda_runtime_api.h. */
#endif
