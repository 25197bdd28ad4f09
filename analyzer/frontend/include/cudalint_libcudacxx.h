/* cudalint: the parts of libcu++ (namespace cuda) that CUDA kernels use for asynchronous
 * copies: thread scopes, cuda::barrier, cuda::pipeline, cuda::memcpy_async,
 * cuda::aligned_size_t, cuda::atomic / atomic_ref. Declarations only; reached through
 * <cuda/barrier>, <cuda/pipeline>, <cuda/atomic>, <cuda/std/...>. */
#ifndef __CUDALINT_LIBCUDACXX_H
#define __CUDALINT_LIBCUDACXX_H

#include "cuda_runtime.h"
#include "cooperative_groups.h"
#include <stddef.h>

#ifdef __cplusplus
namespace std {} /* so `using namespace ::std` below is valid even without a C++ library */
namespace cuda {

enum thread_scope {
  thread_scope_system = 0,
  thread_scope_device = 1,
  thread_scope_block = 2,
  thread_scope_thread = 3
};

template <size_t Alignment> struct aligned_size_t {
  static constexpr size_t align = Alignment;
  size_t value;
  __host__ __device__ constexpr explicit aligned_size_t(size_t size) : value(size) {}
  __host__ __device__ constexpr operator size_t() const { return value; }
};

/* Trivially default-constructible, so `__shared__ cuda::barrier<...> bar;` is valid; set up
 * with init(&bar, expected). */
template <thread_scope Scope, class CompletionF = void> class barrier {
 public:
  typedef unsigned long long arrival_token;
  barrier() = default;
  barrier(const barrier &) = delete;
  barrier &operator=(const barrier &) = delete;
  __host__ __device__ constexpr barrier(ptrdiff_t expected) : __cudalint_state(expected) {}
  __host__ __device__ arrival_token arrive(ptrdiff_t update = 1);
  __host__ __device__ void wait(arrival_token &&token) const;
  __host__ __device__ void arrive_and_wait();
  __host__ __device__ void arrive_and_drop();
  __host__ __device__ static constexpr ptrdiff_t max() { return 0x7fffffff; }
  template <thread_scope S, class F> friend __host__ __device__ void init(barrier<S, F> *bar, ptrdiff_t expected);
 private:
  long long __cudalint_state;
};
template <thread_scope Scope, class F> __host__ __device__ void init(barrier<Scope, F> *bar, ptrdiff_t expected);

enum class pipeline_role { producer, consumer };

template <thread_scope Scope, unsigned char StagesCount = 2> class pipeline_shared_state {
 public:
  pipeline_shared_state() = default;
  pipeline_shared_state(const pipeline_shared_state &) = delete;
 private:
  unsigned long long __cudalint_state[StagesCount + 1];
};

template <thread_scope Scope> class pipeline {
 public:
  __host__ __device__ void producer_acquire();
  __host__ __device__ void producer_commit();
  __host__ __device__ void consumer_wait();
  template <class Rep, class Period> __host__ __device__ bool consumer_wait_for(const Rep &, const Period &);
  __host__ __device__ void consumer_release();
  __host__ __device__ bool quit();
};

__host__ __device__ pipeline<thread_scope_thread> make_pipeline();
template <class Group, thread_scope Scope, unsigned char StagesCount>
__device__ pipeline<Scope> make_pipeline(const Group &group, pipeline_shared_state<Scope, StagesCount> *shared_state);
template <class Group, thread_scope Scope, unsigned char StagesCount>
__device__ pipeline<Scope> make_pipeline(const Group &group, pipeline_shared_state<Scope, StagesCount> *shared_state, size_t producer_count);
template <class Group, thread_scope Scope, unsigned char StagesCount>
__device__ pipeline<Scope> make_pipeline(const Group &group, pipeline_shared_state<Scope, StagesCount> *shared_state, pipeline_role role);

template <unsigned char Prior> __host__ __device__ void pipeline_consumer_wait_prior(pipeline<thread_scope_thread> &pipe);
__host__ __device__ void pipeline_producer_commit(pipeline<thread_scope_thread> &pipe, barrier<thread_scope_block> &bar);

/* memcpy_async: by a thread or a cooperative group, completing on a barrier or a pipeline. */
template <class SizeT, thread_scope Scope, class F>
__host__ __device__ void memcpy_async(void *dst, const void *src, SizeT size, barrier<Scope, F> &bar);
template <class SizeT, thread_scope Scope>
__host__ __device__ void memcpy_async(void *dst, const void *src, SizeT size, pipeline<Scope> &pipe);
template <class Group, class SizeT, thread_scope Scope, class F>
__host__ __device__ void memcpy_async(const Group &group, void *dst, const void *src, SizeT size, barrier<Scope, F> &bar);
template <class Group, class SizeT, thread_scope Scope>
__host__ __device__ void memcpy_async(const Group &group, void *dst, const void *src, SizeT size, pipeline<Scope> &pipe);

/* Atomics (scoped). */
enum memory_order {
  memory_order_relaxed, memory_order_consume, memory_order_acquire,
  memory_order_release, memory_order_acq_rel, memory_order_seq_cst
};
template <class T, thread_scope Scope = thread_scope_system> class atomic {
 public:
  atomic() = default;
  __host__ __device__ constexpr atomic(T v) : __cudalint_v(v) {}
  __host__ __device__ T load(memory_order = memory_order_seq_cst) const;
  __host__ __device__ void store(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ T exchange(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ bool compare_exchange_strong(T &expected, T desired, memory_order = memory_order_seq_cst);
  __host__ __device__ bool compare_exchange_weak(T &expected, T desired, memory_order = memory_order_seq_cst);
  __host__ __device__ T fetch_add(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ T fetch_sub(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ T fetch_and(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ T fetch_or(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ T fetch_xor(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ T fetch_min(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ T fetch_max(T v, memory_order = memory_order_seq_cst);
  __host__ __device__ operator T() const;
  __host__ __device__ T operator=(T v);
  __host__ __device__ T operator++();
  __host__ __device__ T operator++(int);
  __host__ __device__ T operator--();
  __host__ __device__ T operator--(int);
  __host__ __device__ T operator+=(T v);
  __host__ __device__ T operator-=(T v);
 private:
  T __cudalint_v;
};
template <class T, thread_scope Scope = thread_scope_system> class atomic_ref {
 public:
  __host__ __device__ explicit atomic_ref(T &ref);
  __host__ __device__ T load(memory_order = memory_order_seq_cst) const;
  __host__ __device__ void store(T v, memory_order = memory_order_seq_cst) const;
  __host__ __device__ T exchange(T v, memory_order = memory_order_seq_cst) const;
  __host__ __device__ bool compare_exchange_strong(T &expected, T desired, memory_order = memory_order_seq_cst) const;
  __host__ __device__ T fetch_add(T v, memory_order = memory_order_seq_cst) const;
  __host__ __device__ T fetch_sub(T v, memory_order = memory_order_seq_cst) const;
  __host__ __device__ T fetch_min(T v, memory_order = memory_order_seq_cst) const;
  __host__ __device__ T fetch_max(T v, memory_order = memory_order_seq_cst) const;
  __host__ __device__ T fetch_and(T v, memory_order = memory_order_seq_cst) const;
  __host__ __device__ T fetch_or(T v, memory_order = memory_order_seq_cst) const;
  __host__ __device__ operator T() const;
  __host__ __device__ T operator=(T v) const;
};
__host__ __device__ void atomic_thread_fence(memory_order order, thread_scope scope = thread_scope_system);

namespace std {
/* Everything else in cuda::std is the host standard library's. */
using namespace ::std;
using ::cuda::memory_order;
using ::cuda::memory_order_relaxed;
using ::cuda::memory_order_acquire;
using ::cuda::memory_order_release;
using ::cuda::memory_order_acq_rel;
using ::cuda::memory_order_seq_cst;
template <class T> using atomic = ::cuda::atomic<T, thread_scope_system>;
template <class T> using atomic_ref = ::cuda::atomic_ref<T, thread_scope_system>;
struct identity {
  template <class T> __host__ __device__ constexpr T &&operator()(T &&t) const noexcept { return static_cast<T &&>(t); }
};
template <class T> struct plus { __host__ __device__ constexpr T operator()(const T &a, const T &b) const { return a + b; } };
template <class T> struct minus { __host__ __device__ constexpr T operator()(const T &a, const T &b) const { return a - b; } };
template <class T> struct multiplies { __host__ __device__ constexpr T operator()(const T &a, const T &b) const { return a * b; } };
template <class T> __host__ __device__ constexpr const T &min(const T &a, const T &b) { return b < a ? b : a; }
template <class T> __host__ __device__ constexpr const T &max(const T &a, const T &b) { return a < b ? b : a; }
} // namespace std

} // namespace cuda
#endif /* __cplusplus */
#endif /* __CUDALINT_LIBCUDACXX_H */
