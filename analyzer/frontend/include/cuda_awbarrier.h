/* cudalint: arrive-wait barrier primitives (sm_70+), declarations only. */
#ifndef _CUDA_AWBARRIER_H_
#define _CUDA_AWBARRIER_H_
#include "cuda_runtime.h"
#include "cudalint_libcudacxx.h"
#ifdef __cplusplus
typedef unsigned long long __mbarrier_t;
typedef unsigned long long __mbarrier_token_t;
__device__ void __mbarrier_init(__mbarrier_t *barrier, unsigned int expected_count);
__device__ void __mbarrier_inval(__mbarrier_t *barrier);
__device__ __mbarrier_token_t __mbarrier_arrive(__mbarrier_t *barrier);
__device__ __mbarrier_token_t __mbarrier_arrive_and_drop(__mbarrier_t *barrier);
__device__ bool __mbarrier_test_wait(__mbarrier_t *barrier, __mbarrier_token_t token);
__device__ unsigned int __mbarrier_token_pending_count(__mbarrier_token_t token);
namespace nvcuda { namespace experimental {
class awbarrier {
 public:
  typedef unsigned long long arrival_token;
  awbarrier() = default;
  __device__ arrival_token arrive();
  __device__ arrival_token arrive_and_drop();
  __device__ bool timed_wait(arrival_token token, unsigned int hint_cycles);
  __device__ void wait(arrival_token token);
  __device__ void arrive_and_wait();
  __device__ static constexpr unsigned int max() { return (1u << 20) - 1; }
 private:
  unsigned long long __cudalint_state;
};
__device__ void init(awbarrier *barrier, unsigned int expected_count);
}} // namespace nvcuda::experimental
#endif
#endif
