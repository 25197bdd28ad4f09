/* cudalint: cooperative_groups::reduce and the operator functors (CUDA 11+). */
#ifndef _COOPERATIVE_GROUPS_REDUCE_H
#define _COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

#ifdef __cplusplus
namespace cooperative_groups {

template <class T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(T a, T b) const { return a < b ? a : b; } };
template <class T> struct greater { __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const { return a | b; } };

/* The result has the (decayed) type of the value. */
template <class GroupT, class T, class Op>
__device__ T reduce(const GroupT &group, T val, Op &&op);

/* Asynchronous forms (CUDA 12): combine into *dst (atomic_ref-like destinations accepted). */
template <class GroupT, class T, class Dst, class Op>
__device__ void reduce_update_async(const GroupT &group, Dst &dst, const T &val, Op &&op);
template <class GroupT, class T, class Dst, class Op>
__device__ void reduce_store_async(const GroupT &group, Dst &dst, const T &val, Op &&op);
template <class GroupT, class T, class Op>
__device__ void reduce_store_async(const GroupT &group, T *dst, const T &val, Op &&op);

} // namespace cooperative_groups
#endif
#endif /* _COOPERATIVE_GROUPS_REDUCE_H */
