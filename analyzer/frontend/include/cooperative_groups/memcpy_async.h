/* cudalint: cooperative_groups::memcpy_async / wait / wait_prior (CUDA 11+). The size may be a
 * size_t or a cuda::aligned_size_t<N> (anything convertible to size_t). */
#ifndef _COOPERATIVE_GROUPS_MEMCPY_ASYNC
#define _COOPERATIVE_GROUPS_MEMCPY_ASYNC

#include "../cooperative_groups.h"

#ifdef __cplusplus
namespace cooperative_groups {
template <class GroupT, class SizeT>
__device__ void memcpy_async(const GroupT &group, void *dst, const void *src, SizeT bytes);
template <class GroupT, class T, class DstLayout, class SrcLayout>
__device__ void memcpy_async(const GroupT &group, T *dst, DstLayout dstLayout, const T *src,
                             SrcLayout srcLayout);
template <class GroupT> __device__ void wait(const GroupT &group);
template <unsigned int NumStages, class GroupT> __device__ void wait_prior(const GroupT &group);
} // namespace cooperative_groups
#endif
#endif /* _COOPERATIVE_GROUPS_MEMCPY_ASYNC */
