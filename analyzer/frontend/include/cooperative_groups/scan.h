/* cudalint: cooperative_groups::inclusive_scan / exclusive_scan (CUDA 11+). */
#ifndef _COOPERATIVE_GROUPS_SCAN_H
#define _COOPERATIVE_GROUPS_SCAN_H

#include "reduce.h"

#ifdef __cplusplus
namespace cooperative_groups {
template <class GroupT, class T> __device__ T inclusive_scan(const GroupT &group, T val);
template <class GroupT, class T, class Op> __device__ T inclusive_scan(const GroupT &group, T val, Op &&op);
template <class GroupT, class T> __device__ T exclusive_scan(const GroupT &group, T val);
template <class GroupT, class T, class Op> __device__ T exclusive_scan(const GroupT &group, T val, Op &&op);
template <class GroupT, class T, class Dst, class Op>
__device__ T inclusive_scan_update(const GroupT &group, Dst &dst, T val, Op &&op);
template <class GroupT, class T, class Dst, class Op>
__device__ T exclusive_scan_update(const GroupT &group, Dst &dst, T val, Op &&op);
} // namespace cooperative_groups
#endif
#endif /* _COOPERATIVE_GROUPS_SCAN_H */
