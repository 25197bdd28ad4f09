/* cudalint: warp matrix multiply-accumulate (nvcuda::wmma), declarations only.
 * fragment<Use, M, N, K, T, Layout> carries num_elements and x[] like CUDA's, so element-wise
 * loops over a fragment parse. */
#ifndef __CUDA_MMA_H__
#define __CUDA_MMA_H__

#include "cuda_runtime.h"
#include "cuda_fp16.h"
#include "cuda_bf16.h"

#ifdef __cplusplus
namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace precision {
struct u4 {};
struct s4 {};
struct b1 {};
struct tf32 {};
} // namespace precision
namespace experimental {
namespace precision {
struct u4 {};
struct s4 {};
struct b1 {};
} // namespace precision
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
} // namespace experimental

/* Storage element type of a fragment for a given element type. */
template <typename T> struct __storage { typedef T type; };
template <> struct __storage<precision::tf32> { typedef float type; };
template <> struct __storage<precision::u4> { typedef int type; };
template <> struct __storage<precision::s4> { typedef int type; };
template <> struct __storage<precision::b1> { typedef int type; };
template <> struct __storage<experimental::precision::u4> { typedef int type; };
template <> struct __storage<experimental::precision::s4> { typedef int type; };
template <> struct __storage<experimental::precision::b1> { typedef int type; };

template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment {
 public:
  typedef typename __storage<T>::type storage_element_type;
  typedef storage_element_type element_type;
  enum { num_elements = 8 };
  storage_element_type x[num_elements];
};

template <typename Use, int m, int n, int k, typename T, typename Layout, typename Value>
__device__ void fill_fragment(fragment<Use, m, n, k, T, Layout> &a, const Value &v);

template <typename Use, int m, int n, int k, typename T, typename Layout, typename P>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, Layout> &a, const P *mptr, unsigned ldm);
template <typename Use, int m, int n, int k, typename T, typename P>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, void> &a, const P *mptr, unsigned ldm,
                                 layout_t layout);

template <int m, int n, int k, typename T, typename P>
__device__ void store_matrix_sync(P *mptr, const fragment<accumulator, m, n, k, T, void> &a,
                                  unsigned ldm, layout_t layout);

template <int m, int n, int k, typename Ta, typename La, typename Tb, typename Lb, typename Tc,
          typename Td>
__device__ void mma_sync(fragment<accumulator, m, n, k, Td, void> &d,
                         const fragment<matrix_a, m, n, k, Ta, La> &a,
                         const fragment<matrix_b, m, n, k, Tb, Lb> &b,
                         const fragment<accumulator, m, n, k, Tc, void> &c, bool satf = false);

template <int m, int n, int k, typename La, typename Lb>
__device__ void bmma_sync(fragment<accumulator, m, n, k, int, void> &d,
                          const fragment<matrix_a, m, n, k, experimental::precision::b1, La> &a,
                          const fragment<matrix_b, m, n, k, experimental::precision::b1, Lb> &b,
                          const fragment<accumulator, m, n, k, int, void> &c,
                          experimental::bmmaBitOp = experimental::bmmaBitOpXOR,
                          experimental::bmmaAccumulateOp = experimental::bmmaAccumulateOpPOPC);

__device__ float __float_to_tf32(float in);

} // namespace wmma
} // namespace nvcuda
#endif /* __cplusplus */
#endif /* __CUDA_MMA_H__ */
