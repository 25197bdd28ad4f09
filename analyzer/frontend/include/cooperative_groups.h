/* cudalint: Cooperative Groups (namespace cooperative_groups), declarations only.
 *
 * The group types and their members as CUDA 12 documents them: thread_block, grid_group,
 * cluster_group, coalesced_group, thread_block_tile<N> (with the warp collectives shfl*,
 * any/all/ballot, match_*), tiled_partition, labeled/binary_partition, cg::sync(group).
 * Enough for typical kernels to parse with correct types; no behaviour is modelled here. */
#ifndef _COOPERATIVE_GROUPS_H_
#define _COOPERATIVE_GROUPS_H_

#include "cuda_runtime.h"
/* CUDA 12's cooperative_groups.h includes <cuda/std/type_traits> (libcu++), which includes
 * cuda_fp16.h and cuda_bf16.h for its extended floating-point traits: code that includes only
 * <cooperative_groups.h> may use __half and __nv_bfloat16 (llm.c's dev/cuda does). */
#include "cuda_fp16.h"
#include "cuda_bf16.h"

#ifdef __cplusplus

namespace cooperative_groups {

namespace details {
struct _group_base {};
} // namespace details

/* Every group converts to the generic thread_group. */
class thread_group {
 protected:
  unsigned int __cudalint_type;
  __device__ thread_group() {}
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ bool is_valid() const;
  __device__ unsigned int get_type() const;
};

class thread_block : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
  __device__ static void barrier_arrive();
  __device__ static void barrier_wait();
};
__device__ thread_block this_thread_block();

/* Scratch memory for tiles larger than a warp (CUDA 11.1+). */
template <unsigned int MaxBlockSize = 1024> struct block_tile_memory {
  char __cudalint_storage[MaxBlockSize];
};
template <unsigned int MaxBlockSize>
__device__ thread_block this_thread_block(block_tile_memory<MaxBlockSize> &scratch);

class grid_group : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ bool is_valid() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
  __device__ unsigned long long block_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ dim3 dim_clusters() const;
  __device__ dim3 cluster_index() const;
  __device__ unsigned long long cluster_rank() const;
  __device__ unsigned long long num_clusters() const;
};
__device__ grid_group this_grid();

class multi_grid_group : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ bool is_valid() const;
  __device__ unsigned int grid_rank() const;
  __device__ unsigned int num_grids() const;
};
__device__ multi_grid_group this_multi_grid();

class cluster_group : public thread_group {
 public:
  __device__ void sync() const;
  __device__ void barrier_arrive() const;
  __device__ void barrier_wait() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int block_rank() const;
  __device__ unsigned int num_blocks() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
  __device__ dim3 dim_threads() const;
  __device__ unsigned int query_shared_rank(const void *addr) const;
  template <typename T> __device__ T *map_shared_rank(T *addr, int rank) const;
  template <typename T> __device__ T *map_shared_rank(T *addr, unsigned int rank) const;
  __device__ bool is_valid() const;
};
__device__ cluster_group this_cluster();

/* Warp-level collectives shared by coalesced_group and thread_block_tile. */
class __cudalint_warp_collectives {
 public:
  template <typename T> __device__ T shfl(T var, int srcRank) const;
  template <typename T> __device__ T shfl(T var, unsigned int srcRank) const;
  template <typename T> __device__ T shfl_down(T var, unsigned int delta) const;
  template <typename T> __device__ T shfl_up(T var, unsigned int delta) const;
  template <typename T> __device__ T shfl_xor(T var, unsigned int laneMask) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
  __device__ unsigned int ballot(int predicate) const;
  template <typename T> __device__ unsigned int match_any(T val) const;
  template <typename T> __device__ unsigned int match_all(T val, int &pred) const;
};

class coalesced_group : public thread_group, public __cudalint_warp_collectives {
 public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
};
__device__ coalesced_group coalesced_threads();

namespace details {
template <unsigned int Size> class tile_base : public thread_group, public __cudalint_warp_collectives {
 public:
  static constexpr unsigned int numThreads = Size;
  __device__ void sync() const;
  __device__ static constexpr unsigned int size() { return Size; }
  __device__ static constexpr unsigned int num_threads() { return Size; }
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_index() const;
};
} // namespace details

/* thread_block_tile<N, Parent> derives from thread_block_tile<N> (Parent = void), as in CUDA,
 * so `thread_block_tile<32> t = tiled_partition<32>(block);` works. */
template <unsigned int Size, typename ParentT = void> class thread_block_tile;

template <unsigned int Size> class thread_block_tile<Size, void> : public details::tile_base<Size> {
 public:
  __device__ thread_block_tile() {}
};

template <unsigned int Size, typename ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  __device__ thread_block_tile() {}
};

template <unsigned int Size, typename ParentT>
__device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &g);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);
__device__ thread_group tiled_partition(const thread_block &parent, unsigned int tilesz);
__device__ coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tilesz);

__device__ coalesced_group labeled_partition(const coalesced_group &g, int label);
__device__ coalesced_group labeled_partition(const coalesced_group &g, unsigned int label);
template <unsigned int Size, typename ParentT>
__device__ coalesced_group labeled_partition(const thread_block_tile<Size, ParentT> &g, int label);
__device__ coalesced_group binary_partition(const coalesced_group &g, bool pred);
template <unsigned int Size, typename ParentT>
__device__ coalesced_group binary_partition(const thread_block_tile<Size, ParentT> &g, bool pred);

/* Free-function forms. */
template <class GroupT> __device__ void sync(GroupT const &g);
template <class GroupT> __device__ unsigned long long thread_rank(GroupT const &g);
template <class GroupT> __device__ unsigned long long group_size(GroupT const &g);
template <class GroupT> __device__ unsigned long long num_threads(GroupT const &g);

/* Run fn(args...) by one thread of the group (CUDA 12). */
template <class GroupT, class Fn, class... Args>
__device__ void invoke_one(const GroupT &g, Fn &&fn, Args &&...args);
template <class GroupT, class Fn, class... Args>
__device__ auto invoke_one_broadcast(const GroupT &g, Fn &&fn, Args &&...args) -> decltype(fn(args...));

} // namespace cooperative_groups

#endif /* __cplusplus */
#endif /* _COOPERATIVE_GROUPS_H_ */
