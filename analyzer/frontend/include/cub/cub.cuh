/* cudalint: a declaration-level stand-in for CUB (namespace cub), the block- and warp-wide
 * collectives kernels use (BlockReduce, BlockScan, BlockLoad/BlockStore, BlockExchange,
 * BlockAdjacentDifference, WarpReduce, WarpScan, WarpExchange), the direct load/store helpers,
 * the functors, Traits, and the device-wide algorithms host code calls. Nothing here runs; every
 * cub/<x>.cuh includes this one file.
 *
 * Each collective's TempStorage has CUB's layout (the same members, arrays and padding as
 * CUB's internal specialisations for the chosen algorithm), so `__shared__ typename
 * BlockReduce::TempStorage t;` takes the shared memory it takes with nvcc: the static shared
 * memory and the occupancy computed from it are right. Checked against nvcc's CUB for 1272
 * configurations (tests/test_cub.py keeps a sample). */
#ifndef __CUDALINT_CUB_CUH
#define __CUDALINT_CUB_CUH

#include "../cuda_runtime.h"
#include <stddef.h>
#include <iterator>

#define CUB_VERSION 200800
#define CUB_MAJOR_VERSION 2
#define CUB_MINOR_VERSION 8
#define CUB_NAMESPACE_BEGIN namespace cub {
#define CUB_NAMESPACE_END }
#define CUB_RUNTIME_FUNCTION __host__ __device__
#define CUB_PTX_ARCH __CUDA_ARCH__
#define CUB_PTX_WARP_THREADS 32
#define CUB_PTX_LOG_WARP_THREADS 5
#define CUB_PTX_SMEM_BANKS 32
#define CUB_PTX_LOG_SMEM_BANKS 5
#define CUB_WARP_THREADS(unused) 32
#define CUB_LOG_WARP_THREADS(unused) 5
#define CUB_SMEM_BANKS(unused) 32
#define CUB_LOG_SMEM_BANKS(unused) 5
#define CUB_MAX(a, b) (((b) > (a)) ? (b) : (a))
#define CUB_MIN(a, b) (((b) < (a)) ? (b) : (a))
#define CUB_QUOTIENT_FLOOR(x, y) ((x) / (y))
#define CUB_QUOTIENT_CEILING(x, y) (((x) + (y) - 1) / (y))
#define CUB_ROUND_UP_NEAREST(x, y) ((((x) + (y) - 1) / (y)) * (y))
#define CUB_ROUND_DOWN_NEAREST(x, y) (((x) / (y)) * (y))
#define CUB_STATIC_ASSERT(cond, msg) static_assert(cond, #msg)
#define CubDebug(e) (e)
#define CubDebugExit(e) (e)

#ifdef __cplusplus
namespace cub {

/* ---- utilities --------------------------------------------------------------------------- */
struct NullType {};

template <int N> struct PowerOfTwo { enum { VALUE = ((N & (N - 1)) == 0) }; };
template <int N, int CURRENT_VAL = N, int COUNT = 0> struct Log2 {
  enum { VALUE = Log2<N, (CURRENT_VAL >> 1), COUNT + 1>::VALUE };
};
template <int N, int COUNT> struct Log2<N, 0, COUNT> {
  enum { VALUE = (1 << (COUNT - 1) < N) ? COUNT : COUNT - 1 };
};

template <bool B, class T, class F> struct __cudalint_if { typedef T type; };
template <class T, class F> struct __cudalint_if<false, T, F> { typedef F type; };

/* The word CUB stores a type as (util_type.cuh's UnitWord): the widest of 16/8/4/2/1-byte
 * words whose size divides the type's and whose alignment divides its alignment. */
template <class T> struct UnitWord {
  enum { ALIGN_BYTES = __alignof__(T) };
  template <class U> struct IsMultiple {
    enum { IS_MULTIPLE = (sizeof(T) % sizeof(U) == 0) && (int(ALIGN_BYTES) % int(__alignof__(U)) == 0) };
  };
  typedef typename __cudalint_if<IsMultiple<int>::IS_MULTIPLE, unsigned int,
      typename __cudalint_if<IsMultiple<short>::IS_MULTIPLE, unsigned short, unsigned char>::type>::type ShuffleWord;
  typedef typename __cudalint_if<IsMultiple<long long>::IS_MULTIPLE, unsigned long long, ShuffleWord>::type VolatileWord;
  typedef typename __cudalint_if<IsMultiple<longlong2>::IS_MULTIPLE, ulonglong2, VolatileWord>::type DeviceWord;
  typedef typename __cudalint_if<IsMultiple<int4>::IS_MULTIPLE, uint4,
      typename __cudalint_if<IsMultiple<int2>::IS_MULTIPLE, uint2, ShuffleWord>::type>::type TextureWord;
};

/* Storage for a T without constructing it (util_type.cuh). */
template <class T> struct Uninitialized {
  typedef typename UnitWord<T>::DeviceWord DeviceWord;
  static constexpr size_t DATA_SIZE = sizeof(T);
  static constexpr size_t WORD_SIZE = sizeof(DeviceWord);
  static constexpr size_t WORDS = DATA_SIZE / WORD_SIZE;
  DeviceWord storage[WORDS];
  __host__ __device__ T &Alias();
};

template <class Key, class Value> struct KeyValuePair {
  typedef Key KeyT;
  typedef Value ValueT;
  Key key;
  Value value;
  KeyValuePair() = default;
  __host__ __device__ KeyValuePair(const Key &k, const Value &v) : key(k), value(v) {}
  __host__ __device__ bool operator!=(const KeyValuePair &b);
};

enum Category { NOT_A_NUMBER, SIGNED_INTEGER, UNSIGNED_INTEGER, FLOATING_POINT };

/* Radix-sort traits of the primitive types (util_type.cuh). */
template <class T> struct Traits {
  typedef typename __cudalint_if<sizeof(T) == 1, unsigned char,
      typename __cudalint_if<sizeof(T) == 2, unsigned short,
      typename __cudalint_if<sizeof(T) == 4, unsigned int, unsigned long long>::type>::type>::type UnsignedBits;
  static const Category CATEGORY = NOT_A_NUMBER;
  enum { PRIMITIVE = 1, NULL_TYPE = 0 };
  static const UnsignedBits LOWEST_KEY = UnsignedBits(0);
  static const UnsignedBits MAX_KEY = UnsignedBits(-1);
  static __host__ __device__ UnsignedBits TwiddleIn(UnsignedBits key);
  static __host__ __device__ UnsignedBits TwiddleOut(UnsignedBits key);
  static __host__ __device__ T Max();
  static __host__ __device__ T Lowest();
};
template <> struct Traits<NullType> { enum { PRIMITIVE = 0, NULL_TYPE = 1 }; };

/* ---- functors (thread_operators.cuh) ----------------------------------------------------- */
struct Equality { template <class T, class U> __host__ __device__ bool operator()(const T &a, const U &b) const { return a == b; } };
struct Inequality { template <class T, class U> __host__ __device__ bool operator()(const T &a, const U &b) const { return a != b; } };
struct Sum { template <class T, class U> __host__ __device__ auto operator()(T &&a, U &&b) const -> decltype(a + b) { return a + b; } };
struct Difference { template <class T, class U> __host__ __device__ auto operator()(T &&a, U &&b) const -> decltype(a - b) { return a - b; } };
struct Division { template <class T, class U> __host__ __device__ auto operator()(T &&a, U &&b) const -> decltype(a / b) { return a / b; } };
struct Max { template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
struct Min { template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
struct ArgMax {
  template <class T, class O> __host__ __device__ KeyValuePair<O, T> operator()(const KeyValuePair<O, T> &a, const KeyValuePair<O, T> &b) const;
};
struct ArgMin {
  template <class T, class O> __host__ __device__ KeyValuePair<O, T> operator()(const KeyValuePair<O, T> &a, const KeyValuePair<O, T> &b) const;
};
template <class B> struct CastOp { template <class A> __host__ __device__ B operator()(const A &a) const { return (B)a; } };
template <class ScanOp> struct SwizzleScanOp {
  ScanOp scan_op;
  __host__ __device__ SwizzleScanOp(ScanOp op) : scan_op(op) {}
  template <class T> __host__ __device__ T operator()(const T &a, const T &b);
};

/* ---- thread and warp helpers (util_ptx.cuh, thread_load/store.cuh) ------------------------ */
__device__ unsigned int LaneId();
__device__ unsigned int WarpId();
__device__ unsigned int LaneMaskLt();
__device__ unsigned int LaneMaskLe();
__device__ unsigned int LaneMaskGt();
__device__ unsigned int LaneMaskGe();
__device__ void CTA_SYNC();
__device__ int CTA_SYNC_AND(int p);
__device__ int CTA_SYNC_OR(int p);
__device__ void WARP_SYNC(unsigned int member_mask);
__device__ int WARP_ANY(int predicate, unsigned int member_mask);
__device__ int WARP_ALL(int predicate, unsigned int member_mask);
__device__ int WARP_BALLOT(int predicate, unsigned int member_mask);
__device__ unsigned int SHR_ADD(unsigned int x, unsigned int shift, unsigned int addend);
__device__ unsigned int SHL_ADD(unsigned int x, unsigned int shift, unsigned int addend);
template <class UnsignedBits> __device__ unsigned int BFE(UnsignedBits source, unsigned int bit_start, unsigned int num_bits);
__device__ void BFI(unsigned int &ret, unsigned int x, unsigned int y, unsigned int bit_start, unsigned int num_bits);
__device__ unsigned int IADD3(unsigned int x, unsigned int y, unsigned int z);
__device__ int PRMT(unsigned int a, unsigned int b, unsigned int index);
template <int LOGICAL_WARP_THREADS, class T> __device__ T ShuffleUp(T input, int src_offset, int first_thread, unsigned int member_mask);
template <int LOGICAL_WARP_THREADS, class T> __device__ T ShuffleDown(T input, int src_offset, int last_thread, unsigned int member_mask);
template <int LOGICAL_WARP_THREADS, class T> __device__ T ShuffleIndex(T input, int src_lane, unsigned int member_mask);

enum CacheLoadModifier { LOAD_DEFAULT, LOAD_CA, LOAD_CG, LOAD_CS, LOAD_CV, LOAD_LDG, LOAD_VOLATILE };
enum CacheStoreModifier { STORE_DEFAULT, STORE_WB, STORE_CG, STORE_CS, STORE_WT, STORE_VOLATILE };
template <CacheLoadModifier MODIFIER, class InputIteratorT>
__device__ typename std::iterator_traits<InputIteratorT>::value_type ThreadLoad(InputIteratorT itr);
template <CacheStoreModifier MODIFIER, class OutputIteratorT, class T>
__device__ void ThreadStore(OutputIteratorT itr, T val);

/* Sequential reductions and scans over a thread's items (thread_reduce/scan.cuh). */
template <int LENGTH, class T, class ReductionOp> __device__ T ThreadReduce(T *input, ReductionOp op);
template <int LENGTH, class T, class ReductionOp> __device__ T ThreadReduce(T *input, ReductionOp op, T prefix);
template <int LENGTH, class T, class ReductionOp> __device__ T ThreadReduce(T (&input)[LENGTH], ReductionOp op);
template <int LENGTH, class T, class ReductionOp> __device__ T ThreadReduce(T (&input)[LENGTH], ReductionOp op, T prefix);
template <int LENGTH, class T, class ScanOp> __device__ T ThreadScanInclusive(T (&input)[LENGTH], T (&output)[LENGTH], ScanOp op);
template <int LENGTH, class T, class ScanOp> __device__ T ThreadScanInclusive(T (&input)[LENGTH], T (&output)[LENGTH], ScanOp op, T prefix, bool apply_prefix = true);
template <int LENGTH, class T, class ScanOp> __device__ T ThreadScanExclusive(T (&input)[LENGTH], T (&output)[LENGTH], ScanOp op, T prefix, bool apply_prefix = true);

/* Direct blocked/striped loads and stores (block_load.cuh, block_store.cuh). */
template <class InputT, int N, class It> __device__ void LoadDirectBlocked(int linear_tid, It block_itr, InputT (&items)[N]);
template <class InputT, int N, class It> __device__ void LoadDirectBlocked(int linear_tid, It block_itr, InputT (&items)[N], int valid_items);
template <class InputT, class D, int N, class It> __device__ void LoadDirectBlocked(int linear_tid, It block_itr, InputT (&items)[N], int valid_items, D oob_default);
template <class T, int N> __device__ void LoadDirectBlockedVectorized(int linear_tid, T *block_ptr, T (&items)[N]);
template <int BLOCK_THREADS, class InputT, int N, class It> __device__ void LoadDirectStriped(int linear_tid, It block_itr, InputT (&items)[N]);
template <int BLOCK_THREADS, class InputT, int N, class It> __device__ void LoadDirectStriped(int linear_tid, It block_itr, InputT (&items)[N], int valid_items);
template <int BLOCK_THREADS, class InputT, class D, int N, class It> __device__ void LoadDirectStriped(int linear_tid, It block_itr, InputT (&items)[N], int valid_items, D oob_default);
template <class InputT, int N, class It> __device__ void LoadDirectWarpStriped(int linear_tid, It block_itr, InputT (&items)[N]);
template <class InputT, int N, class It> __device__ void LoadDirectWarpStriped(int linear_tid, It block_itr, InputT (&items)[N], int valid_items);
template <class InputT, class D, int N, class It> __device__ void LoadDirectWarpStriped(int linear_tid, It block_itr, InputT (&items)[N], int valid_items, D oob_default);
template <class T, int N, class It> __device__ void StoreDirectBlocked(int linear_tid, It block_itr, T (&items)[N]);
template <class T, int N, class It> __device__ void StoreDirectBlocked(int linear_tid, It block_itr, T (&items)[N], int valid_items);
template <class T, int N> __device__ void StoreDirectBlockedVectorized(int linear_tid, T *block_ptr, T (&items)[N]);
template <int BLOCK_THREADS, class T, int N, class It> __device__ void StoreDirectStriped(int linear_tid, It block_itr, T (&items)[N]);
template <int BLOCK_THREADS, class T, int N, class It> __device__ void StoreDirectStriped(int linear_tid, It block_itr, T (&items)[N], int valid_items);
template <class T, int N, class It> __device__ void StoreDirectWarpStriped(int linear_tid, It block_itr, T (&items)[N]);
template <class T, int N, class It> __device__ void StoreDirectWarpStriped(int linear_tid, It block_itr, T (&items)[N], int valid_items);

/* ---- warp-wide collectives ---------------------------------------------------------------- */
/* WarpReduce: shuffles for a power-of-two logical warp (no storage: NullType), else shared
 * memory (WarpReduceSmem: a warp and a half-warp rounded up to a power of two of T, and a byte
 * flag each). */
template <class T, int LOGICAL_WARP_THREADS> struct __cudalint_WarpReduceSmem {
  enum { HALF_WARP_THREADS = 1 << (Log2<LOGICAL_WARP_THREADS>::VALUE - 1),
         WARP_SMEM_ELEMENTS = LOGICAL_WARP_THREADS + HALF_WARP_THREADS };
  struct _TempStorage { T reduce[WARP_SMEM_ELEMENTS]; unsigned char flags[WARP_SMEM_ELEMENTS]; };
  struct TempStorage : Uninitialized<_TempStorage> {};
};
template <class T, int LOGICAL_WARP_THREADS> struct __cudalint_WarpShfl { typedef NullType TempStorage; };
template <class T, int LOGICAL_WARP_THREADS> struct __cudalint_WarpScanSmem {
  enum { HALF_WARP_THREADS = 1 << (Log2<LOGICAL_WARP_THREADS>::VALUE - 1),
         WARP_SMEM_ELEMENTS = LOGICAL_WARP_THREADS + HALF_WARP_THREADS };
  typedef typename __cudalint_if<(sizeof(T) % sizeof(typename UnitWord<T>::ShuffleWord) == 0), T, T>::type CellT;
  typedef CellT _TempStorage[WARP_SMEM_ELEMENTS];
  struct TempStorage : Uninitialized<_TempStorage> {};
};

template <class T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0> class WarpReduce {
 public:
  enum { IS_ARCH_WARP = (LOGICAL_WARP_THREADS == 32), IS_POW_OF_TWO = PowerOfTwo<LOGICAL_WARP_THREADS>::VALUE };
  typedef typename __cudalint_if<IS_POW_OF_TWO, __cudalint_WarpShfl<T, LOGICAL_WARP_THREADS>,
                                 __cudalint_WarpReduceSmem<T, LOGICAL_WARP_THREADS> >::type InternalWarpReduce;
  typedef typename InternalWarpReduce::TempStorage _TempStorage;
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ WarpReduce(TempStorage &temp_storage);
  __device__ T Sum(T input);
  __device__ T Sum(T input, int valid_items);
  template <int N> __device__ T Sum(T (&input)[N]);
  template <class FlagT> __device__ T HeadSegmentedSum(T input, FlagT head_flag);
  template <class FlagT> __device__ T TailSegmentedSum(T input, FlagT tail_flag);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op, int valid_items);
  template <int N, class ReductionOp> __device__ T Reduce(T (&input)[N], ReductionOp reduction_op);
  template <class ReductionOp, class FlagT> __device__ T HeadSegmentedReduce(T input, FlagT head_flag, ReductionOp reduction_op);
  template <class ReductionOp, class FlagT> __device__ T TailSegmentedReduce(T input, FlagT tail_flag, ReductionOp reduction_op);
};

template <class T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0> class WarpScan {
 public:
  enum { IS_ARCH_WARP = (LOGICAL_WARP_THREADS == 32), IS_POW_OF_TWO = PowerOfTwo<LOGICAL_WARP_THREADS>::VALUE };
  typedef typename __cudalint_if<IS_POW_OF_TWO, __cudalint_WarpShfl<T, LOGICAL_WARP_THREADS>,
                                 __cudalint_WarpScanSmem<T, LOGICAL_WARP_THREADS> >::type InternalWarpScan;
  typedef typename InternalWarpScan::TempStorage _TempStorage;
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ WarpScan(TempStorage &temp_storage);
  __device__ void InclusiveSum(T input, T &inclusive_output);
  __device__ void InclusiveSum(T input, T &inclusive_output, T &warp_aggregate);
  __device__ void ExclusiveSum(T input, T &exclusive_output);
  __device__ void ExclusiveSum(T input, T &exclusive_output, T &warp_aggregate);
  template <class ScanOp> __device__ void InclusiveScan(T input, T &inclusive_output, ScanOp scan_op);
  template <class ScanOp> __device__ void InclusiveScan(T input, T &inclusive_output, ScanOp scan_op, T &warp_aggregate);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &exclusive_output, ScanOp scan_op);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &exclusive_output, T initial_value, ScanOp scan_op);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &exclusive_output, ScanOp scan_op, T &warp_aggregate);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &exclusive_output, T initial_value, ScanOp scan_op, T &warp_aggregate);
  template <class ScanOp> __device__ void Scan(T input, T &inclusive_output, T &exclusive_output, ScanOp scan_op);
  template <class ScanOp> __device__ void Scan(T input, T &inclusive_output, T &exclusive_output, T initial_value, ScanOp scan_op);
  __device__ T Broadcast(T input, unsigned int src_lane);
};

enum WarpExchangeAlgorithm { WARP_EXCHANGE_SMEM, WARP_EXCHANGE_SHUFFLE };
template <class InputT, int ITEMS_PER_THREAD, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0,
          WarpExchangeAlgorithm WARP_EXCHANGE_ALGORITHM = WARP_EXCHANGE_SMEM>
class WarpExchange {
 public:
  enum { ITEMS_PER_TILE = ITEMS_PER_THREAD * LOGICAL_WARP_THREADS + 1,
         INSERT_PADDING = (ITEMS_PER_THREAD > 4) && PowerOfTwo<ITEMS_PER_THREAD>::VALUE,
         PADDING_ITEMS = INSERT_PADDING ? (ITEMS_PER_TILE >> 5) : 0 };
  union _TempStorage { InputT items_shared[ITEMS_PER_TILE + PADDING_ITEMS]; };
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ WarpExchange(TempStorage &temp_storage);
  template <class OutputT> __device__ void BlockedToStriped(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD]);
  template <class OutputT> __device__ void StripedToBlocked(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD]);
  template <class OffsetT> __device__ void ScatterToStriped(InputT (&items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD]);
  template <class OutputT, class OffsetT> __device__ void ScatterToStriped(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD]);
};

/* ---- block-wide collectives ---------------------------------------------------------------- */
/* The raking grid of BlockReduceRaking and BlockScanRaking (block_raking_layout.cuh). */
template <class T, int BLOCK_THREADS, int LEGACY_PTX_ARCH = 0> struct BlockRakingLayout {
  enum {
    SHARED_ELEMENTS = BLOCK_THREADS,
    MAX_RAKING_THREADS = CUB_MIN(BLOCK_THREADS, 32),
    SEGMENT_LENGTH = (SHARED_ELEMENTS + MAX_RAKING_THREADS - 1) / MAX_RAKING_THREADS,
    RAKING_THREADS = (SHARED_ELEMENTS + SEGMENT_LENGTH - 1) / SEGMENT_LENGTH,
    HAS_CONFLICTS = (32 % SEGMENT_LENGTH == 0) && (SEGMENT_LENGTH > 2),
    CONFLICT_DEGREE = HAS_CONFLICTS ? (MAX_RAKING_THREADS * SEGMENT_LENGTH) / 32 : 1,
    USE_SEGMENT_PADDING = ((SEGMENT_LENGTH & 1) == 0) && (SEGMENT_LENGTH > 2),
    GRID_ELEMENTS = RAKING_THREADS * (SEGMENT_LENGTH + USE_SEGMENT_PADDING),
    UNGUARDED = (SHARED_ELEMENTS % RAKING_THREADS == 0),
  };
  struct __align__(16) _TempStorage { T buff[GRID_ELEMENTS]; };
  struct TempStorage : Uninitialized<_TempStorage> {};
};

enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };

template <class T, int BLOCK_THREADS> struct __cudalint_BlockReduceRaking {
  typedef BlockRakingLayout<T, BLOCK_THREADS> Layout;
  typedef typename WarpReduce<T, Layout::RAKING_THREADS>::InternalWarpReduce WarpReduceT;
  union _TempStorage { typename WarpReduceT::TempStorage warp_storage; typename Layout::TempStorage raking_grid; };
  struct TempStorage : Uninitialized<_TempStorage> {};
};
template <class T, int BLOCK_THREADS> struct __cudalint_BlockReduceRakingCommutativeOnly {
  enum { USE_FALLBACK = ((BLOCK_THREADS % 32 != 0) || (BLOCK_THREADS <= 32)),
         SHARING_THREADS = CUB_MAX(1, BLOCK_THREADS - 32) };
  typedef __cudalint_BlockReduceRaking<T, BLOCK_THREADS> FallBack;
  typedef typename WarpReduce<T, 32>::InternalWarpReduce WarpReduceT;
  typedef BlockRakingLayout<T, SHARING_THREADS> Layout;
  union _TempStorage {
    struct DefaultStorage { typename WarpReduceT::TempStorage warp_storage; typename Layout::TempStorage raking_grid; } default_storage;
    typename FallBack::TempStorage fallback_storage;
  };
  struct TempStorage : Uninitialized<_TempStorage> {};
};
template <class T, int BLOCK_THREADS> struct __cudalint_BlockReduceWarpReductions {
  enum { WARPS = (BLOCK_THREADS + 31) / 32, LOGICAL_WARP_SIZE = CUB_MIN(BLOCK_THREADS, 32) };
  typedef typename WarpReduce<T, LOGICAL_WARP_SIZE>::InternalWarpReduce WarpReduceT;
  struct _TempStorage {
    typename WarpReduceT::TempStorage warp_reduce[WARPS];
    T warp_aggregates[WARPS];
    T block_prefix;
  };
  struct TempStorage : Uninitialized<_TempStorage> {};
};

template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
 public:
  enum { BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z };
  typedef typename __cudalint_if<ALGORITHM == BLOCK_REDUCE_WARP_REDUCTIONS,
      __cudalint_BlockReduceWarpReductions<T, BLOCK_THREADS>,
      typename __cudalint_if<ALGORITHM == BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
          __cudalint_BlockReduceRakingCommutativeOnly<T, BLOCK_THREADS>,
          __cudalint_BlockReduceRaking<T, BLOCK_THREADS> >::type>::type InternalBlockReduce;
  typedef typename InternalBlockReduce::TempStorage _TempStorage;
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ BlockReduce();
  __device__ BlockReduce(TempStorage &temp_storage);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op);
  template <int N, class ReductionOp> __device__ T Reduce(T (&inputs)[N], ReductionOp reduction_op);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op, int num_valid);
  __device__ T Sum(T input);
  template <int N> __device__ T Sum(T (&inputs)[N]);
  __device__ T Sum(T input, int num_valid);
};

enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

template <class T, int BLOCK_THREADS> struct __cudalint_BlockScanRaking {
  typedef BlockRakingLayout<T, BLOCK_THREADS> Layout;
  typedef WarpScan<T, Layout::RAKING_THREADS> WarpScanT;
  struct _TempStorage {
    typename WarpScanT::TempStorage warp_scan;
    typename Layout::TempStorage raking_grid;
    T block_aggregate;
  };
  struct TempStorage : Uninitialized<_TempStorage> {};
};
template <class T, int BLOCK_THREADS> struct __cudalint_BlockScanWarpScans {
  enum { WARPS = (BLOCK_THREADS + 31) / 32 };
  typedef WarpScan<T, 32> WarpScanT;
  typedef WarpScan<T, WARPS> WarpAggregateScan;
  struct __align__(32) _TempStorage {
    T warp_aggregates[WARPS];
    typename WarpScanT::TempStorage warp_scan[WARPS];
    T block_prefix;
  };
  struct TempStorage : Uninitialized<_TempStorage> {};
};

template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
 public:
  enum { BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z };
  /* warp scans need whole warps; CUB falls back to raking otherwise */
  static const BlockScanAlgorithm SAFE_ALGORITHM =
      ((ALGORITHM == BLOCK_SCAN_WARP_SCANS) && (BLOCK_THREADS % 32 != 0)) ? BLOCK_SCAN_RAKING : ALGORITHM;
  typedef typename __cudalint_if<SAFE_ALGORITHM == BLOCK_SCAN_WARP_SCANS,
      __cudalint_BlockScanWarpScans<T, BLOCK_THREADS>,
      __cudalint_BlockScanRaking<T, BLOCK_THREADS> >::type InternalBlockScan;
  typedef typename InternalBlockScan::TempStorage _TempStorage;
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ BlockScan();
  __device__ BlockScan(TempStorage &temp_storage);

  __device__ void ExclusiveSum(T input, T &output);
  __device__ void ExclusiveSum(T input, T &output, T &block_aggregate);
  template <class PrefixOp> __device__ void ExclusiveSum(T input, T &output, PrefixOp &block_prefix_callback_op);
  template <int N> __device__ void ExclusiveSum(T (&input)[N], T (&output)[N]);
  template <int N> __device__ void ExclusiveSum(T (&input)[N], T (&output)[N], T &block_aggregate);
  template <int N, class PrefixOp> __device__ void ExclusiveSum(T (&input)[N], T (&output)[N], PrefixOp &block_prefix_callback_op);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &output, T initial_value, ScanOp scan_op);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &output, T initial_value, ScanOp scan_op, T &block_aggregate);
  template <class ScanOp, class PrefixOp> __device__ void ExclusiveScan(T input, T &output, ScanOp scan_op, PrefixOp &block_prefix_callback_op);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &output, ScanOp scan_op);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &output, ScanOp scan_op, T &block_aggregate);
  template <int N, class ScanOp> __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value, ScanOp scan_op);
  template <int N, class ScanOp> __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value, ScanOp scan_op, T &block_aggregate);
  template <int N, class ScanOp, class PrefixOp> __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, PrefixOp &block_prefix_callback_op);
  template <int N, class ScanOp> __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op);
  template <int N, class ScanOp> __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, T &block_aggregate);

  __device__ void InclusiveSum(T input, T &output);
  __device__ void InclusiveSum(T input, T &output, T &block_aggregate);
  template <class PrefixOp> __device__ void InclusiveSum(T input, T &output, PrefixOp &block_prefix_callback_op);
  template <int N> __device__ void InclusiveSum(T (&input)[N], T (&output)[N]);
  template <int N> __device__ void InclusiveSum(T (&input)[N], T (&output)[N], T &block_aggregate);
  template <int N, class PrefixOp> __device__ void InclusiveSum(T (&input)[N], T (&output)[N], PrefixOp &block_prefix_callback_op);
  template <class ScanOp> __device__ void InclusiveScan(T input, T &output, ScanOp scan_op);
  template <class ScanOp> __device__ void InclusiveScan(T input, T &output, ScanOp scan_op, T &block_aggregate);
  template <class ScanOp, class PrefixOp> __device__ void InclusiveScan(T input, T &output, ScanOp scan_op, PrefixOp &block_prefix_callback_op);
  template <int N, class ScanOp> __device__ void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op);
  template <int N, class ScanOp> __device__ void InclusiveScan(T (&input)[N], T (&output)[N], T initial_value, ScanOp scan_op);
  template <int N, class ScanOp> __device__ void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, T &block_aggregate);
  template <int N, class ScanOp, class PrefixOp> __device__ void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, PrefixOp &block_prefix_callback_op);
};

template <class InputT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING = false,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockExchange {
 public:
  enum {
    BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z,
    WARPS = (BLOCK_THREADS + 31) / 32,
    TIME_SLICED_THREADS = WARP_TIME_SLICING ? CUB_MIN(BLOCK_THREADS, 32) : BLOCK_THREADS,
    TIME_SLICED_ITEMS = TIME_SLICED_THREADS * ITEMS_PER_THREAD,
    INSERT_PADDING = (ITEMS_PER_THREAD > 4) && PowerOfTwo<ITEMS_PER_THREAD>::VALUE,
    PADDING_ITEMS = INSERT_PADDING ? (TIME_SLICED_ITEMS >> 5) : 0,
  };
  struct __align__(16) _TempStorage { InputT buff[TIME_SLICED_ITEMS + PADDING_ITEMS]; };
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ BlockExchange();
  __device__ BlockExchange(TempStorage &temp_storage);
  template <class OutputT> __device__ void StripedToBlocked(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD]);
  template <class OutputT> __device__ void BlockedToStriped(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD]);
  template <class OutputT> __device__ void WarpStripedToBlocked(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD]);
  template <class OutputT> __device__ void BlockedToWarpStriped(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD]);
  template <class OutputT, class OffsetT> __device__ void ScatterToBlocked(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD]);
  template <class OutputT, class OffsetT> __device__ void ScatterToStriped(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD]);
  template <class OutputT, class OffsetT> __device__ void ScatterToStripedGuarded(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD]);
  template <class OutputT, class OffsetT, class ValidFlag> __device__ void ScatterToStripedFlagged(const InputT (&input_items)[ITEMS_PER_THREAD], OutputT (&output_items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD], ValidFlag (&is_valid)[ITEMS_PER_THREAD]);
  __device__ void StripedToBlocked(InputT (&items)[ITEMS_PER_THREAD]);
  __device__ void BlockedToStriped(InputT (&items)[ITEMS_PER_THREAD]);
  __device__ void WarpStripedToBlocked(InputT (&items)[ITEMS_PER_THREAD]);
  __device__ void BlockedToWarpStriped(InputT (&items)[ITEMS_PER_THREAD]);
  template <class OffsetT> __device__ void ScatterToBlocked(InputT (&items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD]);
  template <class OffsetT> __device__ void ScatterToStriped(InputT (&items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD]);
};

enum BlockLoadAlgorithm { BLOCK_LOAD_DIRECT, BLOCK_LOAD_STRIPED, BLOCK_LOAD_VECTORIZE, BLOCK_LOAD_TRANSPOSE,
                          BLOCK_LOAD_WARP_TRANSPOSE, BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED };
enum BlockStoreAlgorithm { BLOCK_STORE_DIRECT, BLOCK_STORE_STRIPED, BLOCK_STORE_VECTORIZE, BLOCK_STORE_TRANSPOSE,
                           BLOCK_STORE_WARP_TRANSPOSE, BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED };

/* The transposing algorithms exchange through shared memory (a BlockExchange); the others
 * need none. */
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int ALGORITHM, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
struct __cudalint_LoadStoreStorage {
  typedef typename __cudalint_if<(ALGORITHM == BLOCK_LOAD_TRANSPOSE || ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE),
      typename BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, false, BLOCK_DIM_Y, BLOCK_DIM_Z>::TempStorage,
      typename __cudalint_if<ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED,
          typename BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, true, BLOCK_DIM_Y, BLOCK_DIM_Z>::TempStorage,
          NullType>::type>::type type;
};

template <class InputT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
 public:
  typedef typename __cudalint_LoadStoreStorage<InputT, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>::type _TempStorage;
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ BlockLoad();
  __device__ BlockLoad(TempStorage &temp_storage);
  template <class It> __device__ void Load(It block_itr, InputT (&items)[ITEMS_PER_THREAD]);
  template <class It> __device__ void Load(It block_itr, InputT (&items)[ITEMS_PER_THREAD], int valid_items);
  template <class It, class D> __device__ void Load(It block_itr, InputT (&items)[ITEMS_PER_THREAD], int valid_items, D oob_default);
};

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
 public:
  typedef typename __cudalint_LoadStoreStorage<T, BLOCK_DIM_X, ITEMS_PER_THREAD, (int)ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>::type ExchangeStorage;
  /* the transposing stores also keep the guarded store's item count */
  struct __cudalint_TransposeStorage : ExchangeStorage { volatile int valid_items; };
  typedef typename __cudalint_if<(ALGORITHM == BLOCK_STORE_TRANSPOSE || ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE ||
                                  ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED),
                                 __cudalint_TransposeStorage, NullType>::type _TempStorage;
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ BlockStore();
  __device__ BlockStore(TempStorage &temp_storage);
  template <class It> __device__ void Store(It block_itr, T (&items)[ITEMS_PER_THREAD]);
  template <class It> __device__ void Store(It block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items);
};

template <class T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockAdjacentDifference {
 public:
  enum { BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z };
  struct _TempStorage { T first_items[BLOCK_THREADS]; T last_items[BLOCK_THREADS]; };
  struct TempStorage : Uninitialized<_TempStorage> {};
  __device__ BlockAdjacentDifference();
  __device__ BlockAdjacentDifference(TempStorage &temp_storage);
  template <int N, class OutputType, class DifferenceOpT>
  __device__ void SubtractLeft(T (&input)[N], OutputType (&output)[N], DifferenceOpT difference_op);
  template <int N, class OutputT, class DifferenceOpT>
  __device__ void SubtractLeft(T (&input)[N], OutputT (&output)[N], DifferenceOpT difference_op, T tile_predecessor_item);
  template <int N, class OutputType, class DifferenceOpT>
  __device__ void SubtractLeftPartialTile(T (&input)[N], OutputType (&output)[N], DifferenceOpT difference_op, int valid_items);
  template <int N, class OutputT, class DifferenceOpT>
  __device__ void SubtractRight(T (&input)[N], OutputT (&output)[N], DifferenceOpT difference_op);
  template <int N, class OutputT, class DifferenceOpT>
  __device__ void SubtractRight(T (&input)[N], OutputT (&output)[N], DifferenceOpT difference_op, T tile_successor_item);
  template <int N, class OutputT, class DifferenceOpT>
  __device__ void SubtractRightPartialTile(T (&input)[N], OutputT (&output)[N], DifferenceOpT difference_op, int valid_items);
};

/* ---- iterators ------------------------------------------------------------------------------- */
template <class ValueType, class OffsetT = ptrdiff_t> class CountingInputIterator {
 public:
  typedef CountingInputIterator self_type;
  typedef OffsetT difference_type;
  typedef ValueType value_type;
  typedef ValueType *pointer;
  typedef ValueType reference;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ CountingInputIterator(const ValueType &val);
  __host__ __device__ self_type operator++(int);
  __host__ __device__ self_type &operator++();
  __host__ __device__ reference operator*() const;
  template <class D> __host__ __device__ self_type operator+(D n) const;
  template <class D> __host__ __device__ self_type operator-(D n) const;
  __host__ __device__ difference_type operator-(self_type other) const;
  template <class D> __host__ __device__ reference operator[](D n) const;
  __host__ __device__ bool operator==(const self_type &rhs) const;
  __host__ __device__ bool operator!=(const self_type &rhs) const;
};
template <class ValueType, class OffsetT = ptrdiff_t> class ConstantInputIterator {
 public:
  typedef ConstantInputIterator self_type;
  typedef OffsetT difference_type;
  typedef ValueType value_type;
  typedef ValueType *pointer;
  typedef ValueType reference;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ ConstantInputIterator(ValueType val, OffsetT offset = 0);
  __host__ __device__ self_type operator++(int);
  __host__ __device__ self_type &operator++();
  __host__ __device__ reference operator*() const;
  template <class D> __host__ __device__ self_type operator+(D n) const;
  template <class D> __host__ __device__ reference operator[](D n) const;
};
template <class ValueType, class ConversionOp, class InputIteratorT, class OffsetT = ptrdiff_t>
class TransformInputIterator {
 public:
  typedef TransformInputIterator self_type;
  typedef OffsetT difference_type;
  typedef ValueType value_type;
  typedef ValueType *pointer;
  typedef ValueType reference;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ TransformInputIterator(InputIteratorT input_itr, ConversionOp conversion_op);
  __host__ __device__ self_type operator++(int);
  __host__ __device__ self_type &operator++();
  __host__ __device__ reference operator*() const;
  template <class D> __host__ __device__ self_type operator+(D n) const;
  template <class D> __host__ __device__ reference operator[](D n) const;
};
template <class InputIteratorT, class OffsetT = ptrdiff_t,
          class OutputValueT = typename std::iterator_traits<InputIteratorT>::value_type>
class ArgIndexInputIterator {
 public:
  typedef ArgIndexInputIterator self_type;
  typedef OffsetT difference_type;
  typedef KeyValuePair<difference_type, OutputValueT> value_type;
  typedef value_type *pointer;
  typedef value_type reference;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ ArgIndexInputIterator(InputIteratorT itr, difference_type offset = 0);
  __host__ __device__ self_type &operator++();
  __host__ __device__ reference operator*() const;
  template <class D> __host__ __device__ reference operator[](D n) const;
};
template <CacheLoadModifier MODIFIER, class ValueType, class OffsetT = ptrdiff_t>
class CacheModifiedInputIterator {
 public:
  typedef CacheModifiedInputIterator self_type;
  typedef OffsetT difference_type;
  typedef ValueType value_type;
  typedef ValueType *pointer;
  typedef ValueType reference;
  typedef std::random_access_iterator_tag iterator_category;
  template <class QualifiedValueType> __host__ __device__ CacheModifiedInputIterator(QualifiedValueType *ptr);
  __host__ __device__ self_type &operator++();
  __device__ reference operator*() const;
  template <class D> __device__ reference operator[](D n) const;
  template <class D> __host__ __device__ self_type operator+(D n) const;
};
template <class OffsetT = ptrdiff_t> class DiscardOutputIterator {
 public:
  typedef DiscardOutputIterator self_type;
  typedef OffsetT difference_type;
  typedef void value_type;
  typedef void pointer;
  typedef void reference;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ DiscardOutputIterator(OffsetT offset = 0);
  __host__ __device__ self_type &operator++();
  __host__ __device__ self_type &operator*();
  template <class D> __host__ __device__ self_type &operator[](D n);
  template <class T> __host__ __device__ void operator=(T const &);
};

/* ---- device-wide algorithms (host calls; two-phase temp-storage protocol) ------------------ */
#define __CUDALINT_CUB_ALGO(NAME) \
  template <class... Args> static CUB_RUNTIME_FUNCTION cudaError_t NAME(void *d_temp_storage, size_t &temp_storage_bytes, Args &&...args);
struct DeviceReduce {
  __CUDALINT_CUB_ALGO(Reduce) __CUDALINT_CUB_ALGO(Sum) __CUDALINT_CUB_ALGO(Min) __CUDALINT_CUB_ALGO(Max)
  __CUDALINT_CUB_ALGO(ArgMin) __CUDALINT_CUB_ALGO(ArgMax) __CUDALINT_CUB_ALGO(ReduceByKey)
  __CUDALINT_CUB_ALGO(TransformReduce)
};
struct DeviceSegmentedReduce {
  __CUDALINT_CUB_ALGO(Reduce) __CUDALINT_CUB_ALGO(Sum) __CUDALINT_CUB_ALGO(Min) __CUDALINT_CUB_ALGO(Max)
  __CUDALINT_CUB_ALGO(ArgMin) __CUDALINT_CUB_ALGO(ArgMax)
};
struct DeviceScan {
  __CUDALINT_CUB_ALGO(ExclusiveSum) __CUDALINT_CUB_ALGO(ExclusiveScan) __CUDALINT_CUB_ALGO(InclusiveSum)
  __CUDALINT_CUB_ALGO(InclusiveScan) __CUDALINT_CUB_ALGO(ExclusiveSumByKey) __CUDALINT_CUB_ALGO(ExclusiveScanByKey)
  __CUDALINT_CUB_ALGO(InclusiveSumByKey) __CUDALINT_CUB_ALGO(InclusiveScanByKey) __CUDALINT_CUB_ALGO(InclusiveScanInit)
};
struct DeviceSelect {
  __CUDALINT_CUB_ALGO(Flagged) __CUDALINT_CUB_ALGO(If) __CUDALINT_CUB_ALGO(Unique) __CUDALINT_CUB_ALGO(UniqueByKey)
  __CUDALINT_CUB_ALGO(FlaggedIf)
};
struct DevicePartition { __CUDALINT_CUB_ALGO(Flagged) __CUDALINT_CUB_ALGO(If) };
struct DeviceRadixSort {
  __CUDALINT_CUB_ALGO(SortPairs) __CUDALINT_CUB_ALGO(SortPairsDescending) __CUDALINT_CUB_ALGO(SortKeys)
  __CUDALINT_CUB_ALGO(SortKeysDescending)
};
struct DeviceSegmentedRadixSort {
  __CUDALINT_CUB_ALGO(SortPairs) __CUDALINT_CUB_ALGO(SortPairsDescending) __CUDALINT_CUB_ALGO(SortKeys)
  __CUDALINT_CUB_ALGO(SortKeysDescending)
};
struct DeviceSegmentedSort {
  __CUDALINT_CUB_ALGO(SortPairs) __CUDALINT_CUB_ALGO(SortPairsDescending) __CUDALINT_CUB_ALGO(SortKeys)
  __CUDALINT_CUB_ALGO(SortKeysDescending) __CUDALINT_CUB_ALGO(StableSortPairs) __CUDALINT_CUB_ALGO(StableSortKeys)
};
struct DeviceMergeSort {
  __CUDALINT_CUB_ALGO(SortPairs) __CUDALINT_CUB_ALGO(SortKeys) __CUDALINT_CUB_ALGO(StableSortPairs)
  __CUDALINT_CUB_ALGO(StableSortKeys) __CUDALINT_CUB_ALGO(SortKeysCopy) __CUDALINT_CUB_ALGO(SortPairsCopy)
};
struct DeviceHistogram {
  __CUDALINT_CUB_ALGO(HistogramEven) __CUDALINT_CUB_ALGO(HistogramRange)
  __CUDALINT_CUB_ALGO(MultiHistogramEven) __CUDALINT_CUB_ALGO(MultiHistogramRange)
};
struct DeviceRunLengthEncode { __CUDALINT_CUB_ALGO(Encode) __CUDALINT_CUB_ALGO(NonTrivialRuns) };
struct DeviceSpmv { __CUDALINT_CUB_ALGO(CsrMV) };
#undef __CUDALINT_CUB_ALGO

} /* namespace cub */
#endif /* __cplusplus */
#endif /* __CUDALINT_CUB_CUH */
