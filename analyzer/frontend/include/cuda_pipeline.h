/* cudalint: the pipeline primitives (__pipeline_memcpy_async, __pipeline_commit,
 * __pipeline_wait_prior) and the C++ cuda::pipeline API. */
#ifndef _CUDA_PIPELINE_H_
#define _CUDA_PIPELINE_H_
#include "cuda_runtime.h"
#include "cudalint_libcudacxx.h"
#ifdef __cplusplus
__device__ void __pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size_and_align, size_t zfill = 0);
__device__ void __pipeline_commit();
__device__ void __pipeline_wait_prior(size_t prior);
__device__ void __pipeline_arrive_on(void *barrier);
#endif
#endif
