/* cudalint: a declaration-level stand-in for Thrust, enough for host code that uses the common
 * containers, iterators and algorithms to parse with the right types (device_vector,
 * host_vector, device_ptr, counting/transform/zip/discard iterators, tuple, the functors,
 * random engines, and sort/copy/fill/sequence/transform/reduce/scan/... with or without an
 * execution policy). Nothing here runs; every thrust/<x>.h includes this one file. */
#ifndef __CUDALINT_THRUST_H
#define __CUDALINT_THRUST_H

#include "../cuda_runtime.h"
#include <cstddef>
#include <iterator>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <stdexcept>
#include <string>
#include <iostream> /* Thrust's headers bring in <iostream>; code relies on it */

#define THRUST_VERSION 200800
#define THRUST_MAJOR_VERSION 2
#define THRUST_MINOR_VERSION 8
#define THRUST_DEVICE_SYSTEM_CUDA 1
#define THRUST_HOST_SYSTEM_CPP 1
#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_CUDA

namespace thrust {

/* ---- execution policies --------------------------------------------------------------- */
namespace detail {
struct execution_policy_marker {};
} // namespace detail
template <class Derived> struct execution_policy : detail::execution_policy_marker {};
struct host_t : execution_policy<host_t> {};
struct device_t : execution_policy<device_t> {
  template <class Stream> device_t on(const Stream &) const { return *this; }
};
struct sequenced_t : execution_policy<sequenced_t> {};
static const host_t host = host_t();
static const device_t device = device_t();
static const sequenced_t seq = sequenced_t();
namespace cuda {
struct par_t : execution_policy<par_t> {
  par_t on(cudaStream_t) const { return *this; }
};
static const par_t par = par_t();
static const par_t par_nosync = par_t();
} // namespace cuda
namespace system { namespace cuda { using thrust::cuda::par; using thrust::cuda::par_nosync; } }
namespace cuda_cub = cuda;

template <class T> struct is_execution_policy
    : std::is_base_of<detail::execution_policy_marker, typename std::decay<T>::type> {};
#define __CUDALINT_IF_POLICY(P, R) typename std::enable_if<is_execution_policy<P>::value, R>::type
#define __CUDALINT_IF_NOT_POLICY(P, R) typename std::enable_if<!is_execution_policy<P>::value, R>::type

/* ---- tuple / pair ------------------------------------------------------------------------ */
using std::tuple;
using std::make_tuple;
using std::get;
/* thrust::tie: Thrust's tuple of references is __host__ __device__ and takes a pair or a
 * tuple (`thrust::tie(m1, m2) = op.project(v)` in a kernel); std::tuple's assignments are not
 * constexpr before C++20, so device code could not call them (clang: no viable '='). */
namespace detail {
template <class... Ts> struct tie_tuple : std::tuple<Ts &...> {
  __host__ __device__ tie_tuple(Ts &...ts);
  template <class P> __host__ __device__ tie_tuple &operator=(const P &p);
};
} // namespace detail
template <class... Ts> __host__ __device__ detail::tie_tuple<Ts...> tie(Ts &...ts);
using std::pair;
using std::make_pair;
using std::tuple_element;
using std::tuple_size;

/* ---- errors -------------------------------------------------------------------------------- */
class system_error : public std::runtime_error {
 public:
  explicit system_error(const std::string &what) : std::runtime_error(what) {}
  system_error(int ev, const std::string &what) : std::runtime_error(what) { (void)ev; }
};

/* ---- device_ptr and memory ---------------------------------------------------------------- */
template <class T> class device_ptr {
 public:
  typedef T value_type;
  typedef T &reference;
  typedef T *pointer;
  typedef std::ptrdiff_t difference_type;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ device_ptr() : p_(0) {}
  __host__ __device__ explicit device_ptr(T *p) : p_(p) {}
  template <class U> __host__ __device__ device_ptr(const device_ptr<U> &o) : p_(o.get()) {}
  __host__ __device__ T *get() const { return p_; }
  __host__ __device__ T &operator*() const { return *p_; }
  __host__ __device__ T &operator[](difference_type i) const { return p_[i]; }
  __host__ __device__ T *operator->() const { return p_; }
  __host__ __device__ device_ptr &operator++() { ++p_; return *this; }
  __host__ __device__ device_ptr operator++(int) { device_ptr t(*this); ++p_; return t; }
  __host__ __device__ device_ptr &operator--() { --p_; return *this; }
  __host__ __device__ device_ptr operator--(int) { device_ptr t(*this); --p_; return t; }
  __host__ __device__ device_ptr &operator+=(difference_type n) { p_ += n; return *this; }
  __host__ __device__ device_ptr &operator-=(difference_type n) { p_ -= n; return *this; }
  __host__ __device__ device_ptr operator+(difference_type n) const { return device_ptr(p_ + n); }
  __host__ __device__ device_ptr operator-(difference_type n) const { return device_ptr(p_ - n); }
  __host__ __device__ difference_type operator-(const device_ptr &o) const { return p_ - o.p_; }
  __host__ __device__ bool operator==(const device_ptr &o) const { return p_ == o.p_; }
  __host__ __device__ bool operator!=(const device_ptr &o) const { return p_ != o.p_; }
  __host__ __device__ bool operator<(const device_ptr &o) const { return p_ < o.p_; }
  __host__ __device__ bool operator>(const device_ptr &o) const { return p_ > o.p_; }
  __host__ __device__ bool operator<=(const device_ptr &o) const { return p_ <= o.p_; }
  __host__ __device__ bool operator>=(const device_ptr &o) const { return p_ >= o.p_; }
 private:
  T *p_;
};
template <> class device_ptr<void> {
 public:
  __host__ __device__ device_ptr() : p_(0) {}
  __host__ __device__ explicit device_ptr(void *p) : p_(p) {}
  template <class U> __host__ __device__ device_ptr(const device_ptr<U> &o) : p_(o.get()) {}
  __host__ __device__ void *get() const { return p_; }
 private:
  void *p_;
};
template <class T> using device_reference = T &;
template <class T> __host__ __device__ device_ptr<T> device_pointer_cast(T *p) { return device_ptr<T>(p); }
template <class T> __host__ __device__ device_ptr<T> device_pointer_cast(const device_ptr<T> &p) { return p; }
template <class T> __host__ __device__ T *raw_pointer_cast(const device_ptr<T> &p) { return p.get(); }
template <class T> __host__ __device__ T *raw_pointer_cast(T *p) { return p; }
template <class T> device_ptr<T> device_malloc(std::size_t n);
device_ptr<void> device_malloc(std::size_t n_bytes);
template <class T> void device_free(device_ptr<T> p);
template <class T> device_ptr<T> device_new(std::size_t n = 1);
template <class T> void device_delete(device_ptr<T> p, std::size_t n = 1);
template <class T> class device_allocator : public std::allocator<T> {};

/* ---- containers ----------------------------------------------------------------------------- */
template <class T, class Alloc = std::allocator<T>> class host_vector;
template <class T, class Alloc = device_allocator<T>> class device_vector {
 public:
  typedef T value_type;
  typedef T &reference;
  typedef const T &const_reference;
  typedef device_ptr<T> pointer;
  typedef device_ptr<const T> const_pointer;
  typedef device_ptr<T> iterator;
  typedef device_ptr<const T> const_iterator;
  typedef std::reverse_iterator<iterator> reverse_iterator;
  typedef std::size_t size_type;
  typedef std::ptrdiff_t difference_type;
  device_vector() {}
  explicit device_vector(size_type n) { (void)n; }
  device_vector(size_type n, const T &value) { (void)n; (void)value; }
  device_vector(const device_vector &) {}
  template <class A2> device_vector(const device_vector<T, A2> &) {}
  template <class A2> device_vector(const host_vector<T, A2> &) {}
  template <class U, class A2> device_vector(const std::vector<U, A2> &) {}
  template <class It, class = typename std::enable_if<!std::is_integral<It>::value>::type>
  device_vector(It first, It last) { (void)first; (void)last; }
  device_vector &operator=(const device_vector &) { return *this; }
  template <class V> device_vector &operator=(const V &) { return *this; }
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;
  const_iterator cbegin() const;
  const_iterator cend() const;
  reverse_iterator rbegin();
  reverse_iterator rend();
  size_type size() const;
  size_type capacity() const;
  size_type max_size() const;
  bool empty() const;
  void resize(size_type n);
  void resize(size_type n, const T &value);
  void reserve(size_type n);
  void shrink_to_fit();
  void clear();
  void push_back(const T &x);
  void pop_back();
  void swap(device_vector &v);
  pointer data();
  const_pointer data() const;
  reference operator[](size_type n);
  const_reference operator[](size_type n) const;
  reference front();
  reference back();
  iterator erase(iterator pos);
  iterator erase(iterator first, iterator last);
  iterator insert(iterator pos, const T &x);
  template <class It> void insert(iterator pos, It first, It last);
  template <class It> void assign(It first, It last);
  void assign(size_type n, const T &x);
};
template <class T, class Alloc> class host_vector : public std::vector<T, Alloc> {
  typedef std::vector<T, Alloc> base;
 public:
  using base::base;
  host_vector() {}
  template <class A2> host_vector(const device_vector<T, A2> &) {}
  template <class A2> host_vector &operator=(const device_vector<T, A2> &) { return *this; }
};
template <class T, class A> void swap(device_vector<T, A> &a, device_vector<T, A> &b) { a.swap(b); }
template <class T> __host__ __device__ void swap(T &a, T &b) { T t = a; a = b; b = t; }
template <class T, class Alloc = std::allocator<T>> using universal_vector = device_vector<T, Alloc>;

/* ---- iterators ------------------------------------------------------------------------------ */
template <class T> class counting_iterator {
 public:
  typedef T value_type;
  typedef T reference;
  typedef const T *pointer;
  typedef std::ptrdiff_t difference_type;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ counting_iterator() : v_() {}
  __host__ __device__ explicit counting_iterator(T v) : v_(v) {}
  __host__ __device__ T operator*() const { return v_; }
  __host__ __device__ T operator[](difference_type n) const { return v_ + n; }
  __host__ __device__ counting_iterator &operator++() { ++v_; return *this; }
  __host__ __device__ counting_iterator operator++(int) { counting_iterator t(*this); ++v_; return t; }
  __host__ __device__ counting_iterator operator+(difference_type n) const { return counting_iterator(v_ + n); }
  __host__ __device__ counting_iterator operator-(difference_type n) const { return counting_iterator(v_ - n); }
  __host__ __device__ difference_type operator-(const counting_iterator &o) const { return v_ - o.v_; }
  __host__ __device__ bool operator==(const counting_iterator &o) const { return v_ == o.v_; }
  __host__ __device__ bool operator!=(const counting_iterator &o) const { return v_ != o.v_; }
 private:
  T v_;
};
template <class T> __host__ __device__ counting_iterator<T> make_counting_iterator(T v) { return counting_iterator<T>(v); }

template <class T> class constant_iterator {
 public:
  typedef T value_type;
  typedef T reference;
  typedef const T *pointer;
  typedef std::ptrdiff_t difference_type;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ explicit constant_iterator(T v) : v_(v) {}
  __host__ __device__ T operator*() const { return v_; }
  __host__ __device__ T operator[](difference_type) const { return v_; }
  __host__ __device__ constant_iterator &operator++() { return *this; }
  __host__ __device__ constant_iterator operator+(difference_type) const { return *this; }
  __host__ __device__ difference_type operator-(const constant_iterator &) const { return 0; }
  __host__ __device__ bool operator!=(const constant_iterator &) const { return false; }
 private:
  T v_;
};
template <class T> __host__ __device__ constant_iterator<T> make_constant_iterator(T v) { return constant_iterator<T>(v); }

template <class F, class It> class transform_iterator {
 public:
  typedef typename std::decay<decltype(std::declval<F>()(*std::declval<It>()))>::type value_type;
  typedef value_type reference;
  typedef const value_type *pointer;
  typedef std::ptrdiff_t difference_type;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ transform_iterator(It it, F f) : it_(it), f_(f) {}
  __host__ __device__ value_type operator*() const { return f_(*it_); }
  __host__ __device__ value_type operator[](difference_type n) const { return f_(it_[n]); }
  __host__ __device__ transform_iterator &operator++() { ++it_; return *this; }
  __host__ __device__ transform_iterator operator+(difference_type n) const { return transform_iterator(it_ + n, f_); }
  __host__ __device__ difference_type operator-(const transform_iterator &o) const { return it_ - o.it_; }
  __host__ __device__ bool operator!=(const transform_iterator &o) const { return it_ != o.it_; }
  __host__ __device__ bool operator==(const transform_iterator &o) const { return it_ == o.it_; }
 private:
  It it_;
  F f_;
};
template <class It, class F> __host__ __device__ transform_iterator<F, It> make_transform_iterator(It it, F f) { return transform_iterator<F, It>(it, f); }

template <class Tuple> class zip_iterator;
template <class... Its> class zip_iterator<std::tuple<Its...>> {
 public:
  typedef std::tuple<typename std::iterator_traits<Its>::value_type...> value_type;
  typedef std::tuple<typename std::iterator_traits<Its>::reference...> reference;
  typedef const value_type *pointer;
  typedef std::ptrdiff_t difference_type;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ zip_iterator() {}
  __host__ __device__ explicit zip_iterator(const std::tuple<Its...> &its) : its_(its) {}
  __host__ __device__ reference operator*() const;
  __host__ __device__ reference operator[](difference_type n) const;
  __host__ __device__ zip_iterator &operator++();
  __host__ __device__ zip_iterator operator++(int);
  __host__ __device__ zip_iterator operator+(difference_type n) const;
  __host__ __device__ zip_iterator operator-(difference_type n) const;
  __host__ __device__ difference_type operator-(const zip_iterator &o) const;
  __host__ __device__ bool operator==(const zip_iterator &o) const;
  __host__ __device__ bool operator!=(const zip_iterator &o) const;
  __host__ __device__ const std::tuple<Its...> &get_iterator_tuple() const { return its_; }
 private:
  std::tuple<Its...> its_;
};
template <class... Its> __host__ __device__ zip_iterator<std::tuple<Its...>> make_zip_iterator(const std::tuple<Its...> &t) { return zip_iterator<std::tuple<Its...>>(t); }
template <class It, class... Its> __host__ __device__ zip_iterator<std::tuple<It, Its...>> make_zip_iterator(It it, Its... its) { return zip_iterator<std::tuple<It, Its...>>(std::make_tuple(it, its...)); }

struct __cudalint_discard_ref {
  template <class T> __host__ __device__ const __cudalint_discard_ref &operator=(const T &) const { return *this; }
};
template <class System = void> class discard_iterator {
 public:
  typedef __cudalint_discard_ref value_type;
  typedef __cudalint_discard_ref reference;
  typedef void pointer;
  typedef std::ptrdiff_t difference_type;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ reference operator*() const { return reference(); }
  __host__ __device__ reference operator[](difference_type) const { return reference(); }
  __host__ __device__ discard_iterator &operator++() { return *this; }
  __host__ __device__ discard_iterator operator+(difference_type) const { return *this; }
  __host__ __device__ difference_type operator-(const discard_iterator &) const { return 0; }
};
__host__ __device__ inline discard_iterator<> make_discard_iterator(std::ptrdiff_t = 0) { return discard_iterator<>(); }

template <class ElemIt, class IndexIt> class permutation_iterator {
 public:
  typedef typename std::iterator_traits<ElemIt>::value_type value_type;
  typedef typename std::iterator_traits<ElemIt>::reference reference;
  typedef typename std::iterator_traits<ElemIt>::pointer pointer;
  typedef std::ptrdiff_t difference_type;
  typedef std::random_access_iterator_tag iterator_category;
  __host__ __device__ permutation_iterator(ElemIt e, IndexIt i) : e_(e), i_(i) {}
  __host__ __device__ reference operator*() const { return e_[*i_]; }
  __host__ __device__ permutation_iterator &operator++() { ++i_; return *this; }
  __host__ __device__ permutation_iterator operator+(difference_type n) const { return permutation_iterator(e_, i_ + n); }
  __host__ __device__ difference_type operator-(const permutation_iterator &o) const { return i_ - o.i_; }
  __host__ __device__ bool operator!=(const permutation_iterator &o) const { return i_ != o.i_; }
 private:
  ElemIt e_;
  IndexIt i_;
};
template <class E, class I> __host__ __device__ permutation_iterator<E, I> make_permutation_iterator(E e, I i) { return permutation_iterator<E, I>(e, i); }

template <class It> struct iterator_traits : std::iterator_traits<It> {};
template <class It> struct iterator_value { typedef typename std::iterator_traits<It>::value_type type; };
template <class It> struct iterator_difference { typedef typename std::iterator_traits<It>::difference_type type; };

/* ---- functors ------------------------------------------------------------------------------- */
#define __CUDALINT_BINOP(name, expr, R)                                                        \
  template <class T = void> struct name {                                                      \
    typedef T first_argument_type;                                                             \
    typedef T second_argument_type;                                                            \
    typedef R result_type;                                                                     \
    __host__ __device__ constexpr R operator()(const T &a, const T &b) const { return expr; } \
  };
__CUDALINT_BINOP(plus, a + b, T)
__CUDALINT_BINOP(minus, a - b, T)
__CUDALINT_BINOP(multiplies, a * b, T)
__CUDALINT_BINOP(divides, a / b, T)
__CUDALINT_BINOP(modulus, a % b, T)
__CUDALINT_BINOP(maximum, a < b ? b : a, T)
__CUDALINT_BINOP(minimum, a < b ? a : b, T)
__CUDALINT_BINOP(equal_to, a == b, bool)
__CUDALINT_BINOP(not_equal_to, a != b, bool)
__CUDALINT_BINOP(greater, a > b, bool)
__CUDALINT_BINOP(less, a < b, bool)
__CUDALINT_BINOP(greater_equal, a >= b, bool)
__CUDALINT_BINOP(less_equal, a <= b, bool)
__CUDALINT_BINOP(logical_and, a && b, bool)
__CUDALINT_BINOP(logical_or, a || b, bool)
__CUDALINT_BINOP(bit_and, a & b, T)
__CUDALINT_BINOP(bit_or, a | b, T)
__CUDALINT_BINOP(bit_xor, a ^ b, T)
#undef __CUDALINT_BINOP
template <class T = void> struct negate { __host__ __device__ constexpr T operator()(const T &a) const { return -a; } };
template <class T = void> struct logical_not { __host__ __device__ constexpr bool operator()(const T &a) const { return !a; } };
template <class T = void> struct identity { __host__ __device__ constexpr const T &operator()(const T &a) const { return a; } };
template <class T = void> struct square { __host__ __device__ constexpr T operator()(const T &a) const { return a * a; } };

/* ---- random --------------------------------------------------------------------------------- */
namespace random {
template <class UInt, UInt a, UInt c, UInt m> class linear_congruential_engine {
 public:
  typedef UInt result_type;
  __host__ __device__ explicit linear_congruential_engine(result_type s = 1) : x_(s) {}
  __host__ __device__ void seed(result_type s = 1) { x_ = s; }
  __host__ __device__ result_type operator()(void);
  __host__ __device__ void discard(unsigned long long z);
  __host__ __device__ static constexpr result_type min() { return c == 0u ? 1u : 0u; }
  __host__ __device__ static constexpr result_type max() { return m - 1u; }
 private:
  UInt x_;
};
typedef linear_congruential_engine<unsigned int, 16807, 0, 2147483647> minstd_rand0;
typedef linear_congruential_engine<unsigned int, 48271, 0, 2147483647> minstd_rand;
typedef minstd_rand default_random_engine;
typedef minstd_rand taus88;
typedef minstd_rand ranlux24;
typedef minstd_rand ranlux48;
template <class T = double> class uniform_real_distribution {
 public:
  typedef T result_type;
  __host__ __device__ explicit uniform_real_distribution(T a = 0, T b = 1) : a_(a), b_(b) {}
  template <class E> __host__ __device__ T operator()(E &urng);
  __host__ __device__ T a() const { return a_; }
  __host__ __device__ T b() const { return b_; }
 private:
  T a_, b_;
};
template <class T = int> class uniform_int_distribution {
 public:
  typedef T result_type;
  __host__ __device__ explicit uniform_int_distribution(T a = 0, T b = 0x7fffffff) : a_(a), b_(b) {}
  template <class E> __host__ __device__ T operator()(E &urng);
 private:
  T a_, b_;
};
template <class T = double> class normal_distribution {
 public:
  typedef T result_type;
  __host__ __device__ explicit normal_distribution(T mean = 0, T stddev = 1) : m_(mean), s_(stddev) {}
  template <class E> __host__ __device__ T operator()(E &urng);
 private:
  T m_, s_;
};
} // namespace random
using random::default_random_engine;
using random::minstd_rand;
using random::minstd_rand0;
using random::uniform_real_distribution;
using random::uniform_int_distribution;
using random::normal_distribution;

/* ---- algorithms ----------------------------------------------------------------------------- */
template <class It> struct __cudalint_value { typedef typename std::iterator_traits<It>::value_type type; };

/* Each algorithm with and without a leading execution policy (told apart with enable_if). */
#define __CUDALINT_COMMA ,

template <class It> __CUDALINT_IF_NOT_POLICY(It, void) sort(It first, It last);
template <class It, class Cmp> __CUDALINT_IF_NOT_POLICY(It, void) sort(It first, It last, Cmp comp);
template <class P, class It> __CUDALINT_IF_POLICY(P, void) sort(const P &policy, It first, It last);
template <class P, class It, class Cmp> __CUDALINT_IF_POLICY(P, void) sort(const P &policy, It first, It last, Cmp comp);
template <class It> __CUDALINT_IF_NOT_POLICY(It, void) stable_sort(It first, It last);
template <class It, class Cmp> __CUDALINT_IF_NOT_POLICY(It, void) stable_sort(It first, It last, Cmp comp);
template <class P, class It> __CUDALINT_IF_POLICY(P, void) stable_sort(const P &policy, It first, It last);
template <class K, class V> __CUDALINT_IF_NOT_POLICY(K, void) sort_by_key(K kf, K kl, V vf);
template <class K, class V, class Cmp> __CUDALINT_IF_NOT_POLICY(K, void) sort_by_key(K kf, K kl, V vf, Cmp comp);
template <class P, class K, class V> __CUDALINT_IF_POLICY(P, void) sort_by_key(const P &policy, K kf, K kl, V vf);
template <class P, class K, class V, class Cmp> __CUDALINT_IF_POLICY(P, void) sort_by_key(const P &policy, K kf, K kl, V vf, Cmp comp);
template <class K, class V> __CUDALINT_IF_NOT_POLICY(K, void) stable_sort_by_key(K kf, K kl, V vf);
template <class P, class K, class V> __CUDALINT_IF_POLICY(P, void) stable_sort_by_key(const P &policy, K kf, K kl, V vf);
template <class It> __CUDALINT_IF_NOT_POLICY(It, bool) is_sorted(It first, It last);
template <class It, class Cmp> __CUDALINT_IF_NOT_POLICY(It, bool) is_sorted(It first, It last, Cmp comp);
template <class P, class It> __CUDALINT_IF_POLICY(P, bool) is_sorted(const P &policy, It first, It last);

template <class I, class O> __CUDALINT_IF_NOT_POLICY(I, O) copy(I first, I last, O result);
template <class P, class I, class O> __CUDALINT_IF_POLICY(P, O) copy(const P &policy, I first, I last, O result);
template <class I, class S, class O> __CUDALINT_IF_NOT_POLICY(I, O) copy_n(I first, S n, O result);
template <class P, class I, class S, class O> __CUDALINT_IF_POLICY(P, O) copy_n(const P &policy, I first, S n, O result);
template <class I, class O, class Pred> __CUDALINT_IF_NOT_POLICY(I, O) copy_if(I first, I last, O result, Pred pred);
template <class I, class S, class O, class Pred> __CUDALINT_IF_NOT_POLICY(I, O) copy_if(I first, I last, S stencil, O result, Pred pred);
template <class P, class I, class O, class Pred> __CUDALINT_IF_POLICY(P, O) copy_if(const P &policy, I first, I last, O result, Pred pred);

template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, void) fill(It first, It last, const T &value);
template <class P, class It, class T> __CUDALINT_IF_POLICY(P, void) fill(const P &policy, It first, It last, const T &value);
template <class It, class S, class T> __CUDALINT_IF_NOT_POLICY(It, It) fill_n(It first, S n, const T &value);
template <class It> __CUDALINT_IF_NOT_POLICY(It, void) sequence(It first, It last);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, void) sequence(It first, It last, T init);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, void) sequence(It first, It last, T init, T step);
template <class P, class It> __CUDALINT_IF_POLICY(P, void) sequence(const P &policy, It first, It last);
template <class P, class It, class T> __CUDALINT_IF_POLICY(P, void) sequence(const P &policy, It first, It last, T init);
template <class It, class G> __CUDALINT_IF_NOT_POLICY(It, void) generate(It first, It last, G gen);
template <class P, class It, class G> __CUDALINT_IF_POLICY(P, void) generate(const P &policy, It first, It last, G gen);
template <class It, class S, class G> __CUDALINT_IF_NOT_POLICY(It, It) generate_n(It first, S n, G gen);
template <class It, class F> __CUDALINT_IF_NOT_POLICY(It, void) tabulate(It first, It last, F op);
template <class It, class F> __CUDALINT_IF_NOT_POLICY(It, It) for_each(It first, It last, F f);
template <class P, class It, class F> __CUDALINT_IF_POLICY(P, It) for_each(const P &policy, It first, It last, F f);
template <class It, class S, class F> __CUDALINT_IF_NOT_POLICY(It, It) for_each_n(It first, S n, F f);

template <class I, class O, class F> __CUDALINT_IF_NOT_POLICY(I, O) transform(I first, I last, O result, F op);
template <class I1, class I2, class O, class F>
__CUDALINT_IF_NOT_POLICY(I1, O) transform(I1 first1, I1 last1, I2 first2, O result, F op);
template <class P, class I, class O, class F> __CUDALINT_IF_POLICY(P, O) transform(const P &policy, I first, I last, O result, F op);
template <class P, class I1, class I2, class O, class F>
__CUDALINT_IF_POLICY(P, O) transform(const P &policy, I1 first1, I1 last1, I2 first2, O result, F op);

template <class It> __CUDALINT_IF_NOT_POLICY(It, typename __cudalint_value<It>::type) reduce(It first, It last);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, T) reduce(It first, It last, T init);
template <class It, class T, class Op> __CUDALINT_IF_NOT_POLICY(It, T) reduce(It first, It last, T init, Op op);
template <class P, class It> __CUDALINT_IF_POLICY(P, typename __cudalint_value<It>::type) reduce(const P &policy, It first, It last);
template <class P, class It, class T> __CUDALINT_IF_POLICY(P, T) reduce(const P &policy, It first, It last, T init);
template <class P, class It, class T, class Op> __CUDALINT_IF_POLICY(P, T) reduce(const P &policy, It first, It last, T init, Op op);
template <class It, class F, class T, class Op> __CUDALINT_IF_NOT_POLICY(It, T) transform_reduce(It first, It last, F f, T init, Op op);
template <class P, class It, class F, class T, class Op> __CUDALINT_IF_POLICY(P, T) transform_reduce(const P &policy, It first, It last, F f, T init, Op op);
template <class I1, class I2, class T> __CUDALINT_IF_NOT_POLICY(I1, T) inner_product(I1 first1, I1 last1, I2 first2, T init);
template <class I1, class I2, class T, class Op1, class Op2> __CUDALINT_IF_NOT_POLICY(I1, T) inner_product(I1 first1, I1 last1, I2 first2, T init, Op1 op1, Op2 op2);
template <class KI, class VI, class KO, class VO>
__CUDALINT_IF_NOT_POLICY(KI, std::pair<KO __CUDALINT_COMMA VO>) reduce_by_key(KI kf, KI kl, VI vf, KO ko, VO vo);
template <class KI, class VI, class KO, class VO, class Pred, class Op>
__CUDALINT_IF_NOT_POLICY(KI, std::pair<KO __CUDALINT_COMMA VO>) reduce_by_key(KI kf, KI kl, VI vf, KO ko, VO vo, Pred pred, Op op);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, std::ptrdiff_t) count(It first, It last, const T &value);
template <class It, class Pred> __CUDALINT_IF_NOT_POLICY(It, std::ptrdiff_t) count_if(It first, It last, Pred pred);
template <class It> __CUDALINT_IF_NOT_POLICY(It, It) min_element(It first, It last);
template <class It> __CUDALINT_IF_NOT_POLICY(It, It) max_element(It first, It last);
template <class It> __CUDALINT_IF_NOT_POLICY(It, std::pair<It __CUDALINT_COMMA It>) minmax_element(It first, It last);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, It) find(It first, It last, const T &value);
template <class It, class Pred> __CUDALINT_IF_NOT_POLICY(It, It) find_if(It first, It last, Pred pred);
template <class P, class It, class Pred> __CUDALINT_IF_POLICY(P, It) find_if(const P &policy, It first, It last, Pred pred);
template <class I1, class I2> __CUDALINT_IF_NOT_POLICY(I1, bool) equal(I1 first1, I1 last1, I2 first2);
template <class It, class Pred> __CUDALINT_IF_NOT_POLICY(It, bool) all_of(It first, It last, Pred pred);
template <class It, class Pred> __CUDALINT_IF_NOT_POLICY(It, bool) any_of(It first, It last, Pred pred);

template <class I, class O> __CUDALINT_IF_NOT_POLICY(I, O) inclusive_scan(I first, I last, O result);
template <class I, class O, class Op> __CUDALINT_IF_NOT_POLICY(I, O) inclusive_scan(I first, I last, O result, Op op);
template <class P, class I, class O> __CUDALINT_IF_POLICY(P, O) inclusive_scan(const P &policy, I first, I last, O result);
template <class P, class I, class O, class Op> __CUDALINT_IF_POLICY(P, O) inclusive_scan(const P &policy, I first, I last, O result, Op op);
template <class I, class O> __CUDALINT_IF_NOT_POLICY(I, O) exclusive_scan(I first, I last, O result);
template <class I, class O, class T> __CUDALINT_IF_NOT_POLICY(I, O) exclusive_scan(I first, I last, O result, T init);
template <class I, class O, class T, class Op> __CUDALINT_IF_NOT_POLICY(I, O) exclusive_scan(I first, I last, O result, T init, Op op);
template <class P, class I, class O> __CUDALINT_IF_POLICY(P, O) exclusive_scan(const P &policy, I first, I last, O result);
template <class P, class I, class O, class T> __CUDALINT_IF_POLICY(P, O) exclusive_scan(const P &policy, I first, I last, O result, T init);
template <class K, class V, class O> __CUDALINT_IF_NOT_POLICY(K, O) inclusive_scan_by_key(K kf, K kl, V vf, O result);
template <class K, class V, class O, class Pred> __CUDALINT_IF_NOT_POLICY(K, O) inclusive_scan_by_key(K kf, K kl, V vf, O result, Pred pred);
template <class K, class V, class O, class Pred, class Op> __CUDALINT_IF_NOT_POLICY(K, O) inclusive_scan_by_key(K kf, K kl, V vf, O result, Pred pred, Op op);
template <class K, class V, class O> __CUDALINT_IF_NOT_POLICY(K, O) exclusive_scan_by_key(K kf, K kl, V vf, O result);
template <class K, class V, class O, class T> __CUDALINT_IF_NOT_POLICY(K, O) exclusive_scan_by_key(K kf, K kl, V vf, O result, T init);
template <class I, class O> __CUDALINT_IF_NOT_POLICY(I, O) adjacent_difference(I first, I last, O result);
template <class I, class O, class Op> __CUDALINT_IF_NOT_POLICY(I, O) adjacent_difference(I first, I last, O result, Op op);
template <class P, class I, class O> __CUDALINT_IF_POLICY(P, O) adjacent_difference(const P &policy, I first, I last, O result);

template <class It> __CUDALINT_IF_NOT_POLICY(It, It) unique(It first, It last);
template <class It, class Pred> __CUDALINT_IF_NOT_POLICY(It, It) unique(It first, It last, Pred pred);
template <class I, class O> __CUDALINT_IF_NOT_POLICY(I, O) unique_copy(I first, I last, O result);
template <class K, class V> __CUDALINT_IF_NOT_POLICY(K, std::pair<K __CUDALINT_COMMA V>) unique_by_key(K kf, K kl, V vf);
template <class KI, class VI, class KO, class VO>
__CUDALINT_IF_NOT_POLICY(KI, std::pair<KO __CUDALINT_COMMA VO>) unique_by_key_copy(KI kf, KI kl, VI vf, KO ko, VO vo);
template <class KI, class VI, class KO, class VO, class Pred>
__CUDALINT_IF_NOT_POLICY(KI, std::pair<KO __CUDALINT_COMMA VO>) unique_by_key_copy(KI kf, KI kl, VI vf, KO ko, VO vo, Pred pred);
template <class It, class Pred> __CUDALINT_IF_NOT_POLICY(It, It) remove_if(It first, It last, Pred pred);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, It) remove(It first, It last, const T &value);
template <class It, class Pred> __CUDALINT_IF_NOT_POLICY(It, It) partition(It first, It last, Pred pred);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, void) replace(It first, It last, const T &old_value, const T &new_value);
template <class It> __CUDALINT_IF_NOT_POLICY(It, void) reverse(It first, It last);
template <class M, class I, class O> __CUDALINT_IF_NOT_POLICY(M, O) gather(M map_first, M map_last, I input_first, O result);
template <class I, class M, class O> __CUDALINT_IF_NOT_POLICY(I, void) scatter(I first, I last, M map, O result);
template <class I1, class I2, class O> __CUDALINT_IF_NOT_POLICY(I1, O) merge(I1 first1, I1 last1, I2 first2, I2 last2, O result);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, It) lower_bound(It first, It last, const T &value);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, It) upper_bound(It first, It last, const T &value);
template <class It, class T> __CUDALINT_IF_NOT_POLICY(It, bool) binary_search(It first, It last, const T &value);
template <class I, class V, class O> __CUDALINT_IF_NOT_POLICY(I, O) lower_bound(I first, I last, V vfirst, V vlast, O result);
template <class I, class V, class O> __CUDALINT_IF_NOT_POLICY(I, O) upper_bound(I first, I last, V vfirst, V vlast, O result);

#undef __CUDALINT_COMMA
} // namespace thrust

#endif /* __CUDALINT_THRUST_H */
