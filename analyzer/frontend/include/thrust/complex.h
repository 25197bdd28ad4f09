/* cudalint: <thrust/complex.h> -- thrust::complex<T>, usable in host and device code: the
 * constructors, accessors, compound assignments, the arithmetic and comparison operators with
 * complex and scalar operands, and the math functions. Declarations only. Like Thrust's, a
 * complex<T> is two T aligned to their combined size (8 bytes for float, 16 for double). */
#ifndef __CUDALINT_THRUST_COMPLEX_H
#define __CUDALINT_THRUST_COMPLEX_H

#include "cudalint_thrust.h"
#include <complex>

namespace thrust {

template <class T> struct alignas(sizeof(T) * 2) complex {
  typedef T value_type;
  __host__ __device__ complex(const T &re);
  __host__ __device__ complex(const T &re, const T &im);
  complex() = default;
  complex(const complex &z) = default;
  template <class U> __host__ __device__ complex(const complex<U> &z);
  __host__ complex(const std::complex<T> &z);
  template <class U> __host__ complex(const std::complex<U> &z);
  complex &operator=(const complex &z) = default;
  __host__ __device__ complex &operator=(const T &re);
  template <class U> __host__ __device__ complex &operator=(const complex<U> &z);
  __host__ complex &operator=(const std::complex<T> &z);
  __host__ __device__ T real() const volatile;
  __host__ __device__ T imag() const volatile;
  __host__ __device__ T real() const;
  __host__ __device__ T imag() const;
  __host__ __device__ void real(T re);
  __host__ __device__ void imag(T im);
  __host__ __device__ void real(T re) volatile;
  __host__ __device__ void imag(T im) volatile;
  template <class U> __host__ __device__ complex &operator+=(const complex<U> &z);
  template <class U> __host__ __device__ complex &operator-=(const complex<U> &z);
  template <class U> __host__ __device__ complex &operator*=(const complex<U> &z);
  template <class U> __host__ __device__ complex &operator/=(const complex<U> &z);
  template <class U> __host__ __device__ complex &operator+=(const U &z);
  template <class U> __host__ __device__ complex &operator-=(const U &z);
  template <class U> __host__ __device__ complex &operator*=(const U &z);
  template <class U> __host__ __device__ complex &operator/=(const U &z);
  __host__ operator std::complex<T>() const;

 private:
  T __re, __im;
};

#define __CUDALINT_CPLX_BINOP(OP)                                                                      \
  template <class T0, class T1> __host__ __device__ complex<typename std::common_type<T0, T1>::type>  \
  operator OP(const complex<T0> &x, const complex<T1> &y);                                          \
  template <class T0, class T1> __host__ __device__ complex<typename std::common_type<T0, T1>::type>  \
  operator OP(const complex<T0> &x, const T1 &y);                                                   \
  template <class T0, class T1> __host__ __device__ complex<typename std::common_type<T0, T1>::type>  \
  operator OP(const T0 &x, const complex<T1> &y);
__CUDALINT_CPLX_BINOP(+)
__CUDALINT_CPLX_BINOP(-)
__CUDALINT_CPLX_BINOP(*)
__CUDALINT_CPLX_BINOP(/)
#undef __CUDALINT_CPLX_BINOP
template <class T> __host__ __device__ complex<T> operator+(const complex<T> &y);
template <class T> __host__ __device__ complex<T> operator-(const complex<T> &y);
template <class T0, class T1> __host__ __device__ bool operator==(const complex<T0> &x, const complex<T1> &y);
template <class T0, class T1> __host__ __device__ bool operator==(const complex<T0> &x, const T1 &y);
template <class T0, class T1> __host__ __device__ bool operator==(const T0 &x, const complex<T1> &y);
template <class T0, class T1> __host__ __device__ bool operator!=(const complex<T0> &x, const complex<T1> &y);
template <class T0, class T1> __host__ __device__ bool operator!=(const complex<T0> &x, const T1 &y);
template <class T0, class T1> __host__ __device__ bool operator!=(const T0 &x, const complex<T1> &y);

template <class T> __host__ __device__ T abs(const complex<T> &z);
template <class T> __host__ __device__ T arg(const complex<T> &z);
template <class T> __host__ __device__ T norm(const complex<T> &z);
template <class T> __host__ __device__ complex<T> conj(const complex<T> &z);
template <class T0, class T1> __host__ __device__ complex<typename std::common_type<T0, T1>::type> polar(const T0 &m, const T1 &theta = T1());
template <class T> __host__ __device__ complex<T> proj(const T &z);
#define __CUDALINT_CPLX_FN(F) template <class T> __host__ __device__ complex<T> F(const complex<T> &z);
__CUDALINT_CPLX_FN(exp) __CUDALINT_CPLX_FN(log) __CUDALINT_CPLX_FN(log10) __CUDALINT_CPLX_FN(sqrt)
__CUDALINT_CPLX_FN(sin) __CUDALINT_CPLX_FN(cos) __CUDALINT_CPLX_FN(tan) __CUDALINT_CPLX_FN(sinh)
__CUDALINT_CPLX_FN(cosh) __CUDALINT_CPLX_FN(tanh) __CUDALINT_CPLX_FN(asin) __CUDALINT_CPLX_FN(acos)
__CUDALINT_CPLX_FN(atan) __CUDALINT_CPLX_FN(asinh) __CUDALINT_CPLX_FN(acosh) __CUDALINT_CPLX_FN(atanh)
#undef __CUDALINT_CPLX_FN
template <class T0, class T1> __host__ __device__ complex<typename std::common_type<T0, T1>::type> pow(const complex<T0> &x, const complex<T1> &y);
template <class T0, class T1> __host__ __device__ complex<typename std::common_type<T0, T1>::type> pow(const complex<T0> &x, const T1 &y);
template <class T0, class T1> __host__ __device__ complex<typename std::common_type<T0, T1>::type> pow(const T0 &x, const complex<T1> &y);

template <class T, class CharT, class Traits>
std::basic_ostream<CharT, Traits> &operator<<(std::basic_ostream<CharT, Traits> &os, const complex<T> &z);
template <class T, class CharT, class Traits>
std::basic_istream<CharT, Traits> &operator>>(std::basic_istream<CharT, Traits> &is, complex<T> &z);

} // namespace thrust
#endif /* __CUDALINT_THRUST_COMPLEX_H */
