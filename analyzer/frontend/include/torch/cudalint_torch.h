/* cudalint: a declaration-level stand-in for the parts of LibTorch (torch::, at::, c10::) and
 * pybind11 that the host code of a PyTorch C++/CUDA extension uses around its kernels:
 * torch::Tensor and its accessors (size, dim, data_ptr, options, dtype, ...), the ScalarType
 * and device constants (torch::kFloat32, torch::kHalf, torch::kCUDA, ...), TensorOptions,
 * the factory functions (zeros, empty, ...), TORCH_CHECK, the AT_DISPATCH_* macros, and
 * PYBIND11_MODULE / py::arg. Nothing here runs and nothing here is device code; it exists so
 * that the host functions parse and their kernel launches (grid, block, arguments) are seen.
 * A real LibTorch passed with -I comes first on the include path and replaces all of this.
 * Every torch/, ATen/, c10/ and pybind11/ header of this directory includes this one file. */
#ifndef __CUDALINT_TORCH_H
#define __CUDALINT_TORCH_H

#include "../cuda_runtime.h"
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
#include <initializer_list>
#include <iostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>
#if __cplusplus >= 201703L
#include <optional>
#endif

namespace c10 {

enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble,
  Bool, QInt8, QUInt8, QInt32, BFloat16, QUInt4x2, QUInt2x4, Bits1x8, Bits2x4, Bits4x2, Bits8,
  Bits16, Float8_e5m2, Float8_e4m3fn, Float8_e5m2fnuz, Float8_e4m3fnuz, UInt16, UInt32, UInt64,
  Undefined
};
constexpr ScalarType kByte = ScalarType::Byte, kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char, kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short, kInt16 = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int, kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long, kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half, kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double, kFloat64 = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat8_e5m2 = ScalarType::Float8_e5m2;
constexpr ScalarType kFloat8_e4m3fn = ScalarType::Float8_e4m3fn;
constexpr ScalarType kFloat8_e5m2fnuz = ScalarType::Float8_e5m2fnuz;
constexpr ScalarType kFloat8_e4m3fnuz = ScalarType::Float8_e4m3fnuz;
const char *toString(ScalarType t);
std::ostream &operator<<(std::ostream &os, ScalarType t);

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
typedef int8_t DeviceIndex;

struct Device {
  Device(DeviceType type, DeviceIndex index = -1);
  Device(const std::string &spec);
  DeviceType type() const;
  DeviceIndex index() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool operator==(const Device &other) const;
  bool operator!=(const Device &other) const;
};
std::ostream &operator<<(std::ostream &os, const Device &d);

enum class Layout : int8_t { Strided, Sparse };
constexpr Layout kStrided = Layout::Strided;

/* The element type of a tensor; compares with a ScalarType. */
struct TypeMeta {
  ScalarType toScalarType() const;
  size_t itemsize() const;
  const char *name() const;
};
bool operator==(const TypeMeta &a, const TypeMeta &b);
bool operator!=(const TypeMeta &a, const TypeMeta &b);
bool operator==(const TypeMeta &a, ScalarType b);
bool operator!=(const TypeMeta &a, ScalarType b);
bool operator==(ScalarType a, const TypeMeta &b);
bool operator!=(ScalarType a, const TypeMeta &b);
std::ostream &operator<<(std::ostream &os, const TypeMeta &t);

template <typename T> struct ArrayRef {
  ArrayRef();
  ArrayRef(const T &one);
  ArrayRef(const T *data, size_t length);
  ArrayRef(const std::vector<T> &v);
  ArrayRef(std::initializer_list<T> list);
  const T *begin() const;
  const T *end() const;
  const T *data() const;
  size_t size() const;
  bool empty() const;
  const T &operator[](size_t i) const;
  const T &front() const;
  const T &back() const;
  std::vector<T> vec() const;
};
typedef ArrayRef<int64_t> IntArrayRef;
std::ostream &operator<<(std::ostream &os, IntArrayRef a);

struct Scalar {
  Scalar();
  Scalar(double v);
  Scalar(float v);
  Scalar(int v);
  Scalar(long v);
  Scalar(long long v);
  Scalar(bool v);
  template <typename T> T to() const;
  double toDouble() const;
  float toFloat() const;
  int toInt() const;
  int64_t toLong() const;
};

struct TensorOptions {
  TensorOptions();
  TensorOptions(ScalarType dtype);
  TensorOptions(DeviceType device);
  TensorOptions(Device device);
  TensorOptions dtype(ScalarType dtype) const;
  TensorOptions dtype(TypeMeta dtype) const;
  TypeMeta dtype() const;
  TensorOptions device(Device device) const;
  TensorOptions device(DeviceType type, DeviceIndex index = -1) const;
  Device device() const;
  TensorOptions layout(Layout layout) const;
  TensorOptions requires_grad(bool requires_grad = true) const;
  TensorOptions pinned_memory(bool pinned = true) const;
};
std::ostream &operator<<(std::ostream &os, const TensorOptions &o);

#if __cplusplus >= 201703L
using std::optional;
using std::nullopt;
#endif

namespace detail {
template <typename... Args> [[noreturn]] void torchCheckFail(const Args &...args);
}

} // namespace c10

namespace at {
using namespace c10;

class Tensor {
public:
  Tensor();
  int64_t dim() const;
  int64_t ndimension() const;
  int64_t size(int64_t d) const;
  IntArrayRef sizes() const;
  int64_t stride(int64_t d) const;
  IntArrayRef strides() const;
  int64_t numel() const;
  size_t nbytes() const;
  int64_t element_size() const;
  int64_t storage_offset() const;
  bool defined() const;
  void *data_ptr() const;
  template <typename T> T *data_ptr() const;
  const void *const_data_ptr() const;
  template <typename T> const T *const_data_ptr() const;
  void *mutable_data_ptr() const;
  template <typename T> T *mutable_data_ptr() const;
  TensorOptions options() const;
  TypeMeta dtype() const;
  ScalarType scalar_type() const;
  Device device() const;
  Layout layout() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool is_contiguous() const;
  bool requires_grad() const;
  Scalar item() const;
  template <typename T> T item() const;
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor to(ScalarType dtype) const;
  Tensor to(Device device) const;
  Tensor to(DeviceType device) const;
  Tensor to(TensorOptions options) const;
  Tensor to(Device device, ScalarType dtype) const;
  Tensor view(IntArrayRef size) const;
  Tensor reshape(IntArrayRef size) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor t() const;
  Tensor flatten() const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;
  Tensor operator[](int64_t index) const;
  Tensor &zero_();
  Tensor &fill_(const Scalar &value);
  Tensor &copy_(const Tensor &src);
  Tensor sum() const;
  Tensor max() const;
  Tensor abs() const;
  Tensor operator+(const Tensor &o) const;
  Tensor operator-(const Tensor &o) const;
  Tensor operator*(const Tensor &o) const;
  Tensor operator/(const Tensor &o) const;
};
std::ostream &operator<<(std::ostream &os, const Tensor &t);

Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, const Scalar &value, TensorOptions options = {});
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor arange(const Scalar &end, TensorOptions options = {});
Tensor empty_like(const Tensor &t, TensorOptions options = {});
Tensor zeros_like(const Tensor &t, TensorOptions options = {});
Tensor ones_like(const Tensor &t, TensorOptions options = {});
template <typename T> Tensor tensor(const std::vector<T> &values, TensorOptions options = {});
template <typename T> Tensor tensor(std::initializer_list<T> values, TensorOptions options = {});
Tensor matmul(const Tensor &a, const Tensor &b);
Tensor max(const Tensor &t);
std::tuple<Tensor, Tensor> max(const Tensor &t, int64_t dim, bool keepdim = false);
Tensor sum(const Tensor &t);
Tensor allclose(const Tensor &a, const Tensor &b);

namespace cuda {
struct CUDAStream {
  operator cudaStream_t() const;
  cudaStream_t stream() const;
};
CUDAStream getCurrentCUDAStream(DeviceIndex device = -1);
CUDAStream getDefaultCUDAStream(DeviceIndex device = -1);
cudaDeviceProp *getCurrentDeviceProperties();
int getNumGPUs();
} // namespace cuda
} // namespace at

namespace c10 {
namespace cuda {
using at::cuda::CUDAStream;
using at::cuda::getCurrentCUDAStream;
using at::cuda::getDefaultCUDAStream;
struct CUDAGuard {
  explicit CUDAGuard(DeviceIndex device);
  explicit CUDAGuard(Device device);
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  explicit OptionalCUDAGuard(DeviceIndex device);
  explicit OptionalCUDAGuard(Device device);
#if __cplusplus >= 201703L
  explicit OptionalCUDAGuard(std::optional<Device> device);
#endif
};
} // namespace cuda
} // namespace c10
namespace at {
namespace cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::OptionalCUDAGuard;
} // namespace cuda
#if __cplusplus >= 201703L
std::optional<Device> device_of(const Tensor &t);
#endif
} // namespace at

namespace torch {
using namespace at;
} // namespace torch

#define TORCH_CHECK(cond, ...)                                                                  \
  ((cond) ? (void)0 : ::c10::detail::torchCheckFail(__VA_ARGS__))
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_CHECK_EQ(a, b) TORCH_CHECK((a) == (b))
#define TORCH_CHECK_NE(a, b) TORCH_CHECK((a) != (b))
#define AT_ERROR(...) ::c10::detail::torchCheckFail(__VA_ARGS__)
#define C10_CUDA_CHECK(expr)                                                                    \
  do {                                                                                          \
    const cudaError_t __cudalint_err = (expr);                                                  \
    if (__cudalint_err != cudaSuccess)                                                          \
      ::c10::detail::torchCheckFail(cudaGetErrorString(__cudalint_err));                        \
  } while (0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())

/* AT_DISPATCH_*: the lambda is instantiated once per listed type with scalar_t bound to it, as
 * LibTorch's switch does, so kernels templated on scalar_t are seen for each type. */
#define __CUDALINT_AT_CASE(enum_type, type, ...)                                                \
  case ::c10::ScalarType::enum_type: {                                                          \
    using scalar_t = type;                                                                      \
    return __VA_ARGS__();                                                                       \
  }
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                                             \
  [&] {                                                                                         \
    switch (::c10::ScalarType(TYPE)) {                                                          \
      __CUDALINT_AT_CASE(Double, double, __VA_ARGS__)                                           \
      __CUDALINT_AT_CASE(Float, float, __VA_ARGS__)                                             \
    default:                                                                                    \
      AT_ERROR(NAME, " not implemented");                                                       \
    }                                                                                           \
  }()
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...)                                    \
  [&] {                                                                                         \
    switch (::c10::ScalarType(TYPE)) {                                                          \
      __CUDALINT_AT_CASE(Double, double, __VA_ARGS__)                                           \
      __CUDALINT_AT_CASE(Float, float, __VA_ARGS__)                                             \
      __CUDALINT_AT_CASE(Half, ::c10::Half, __VA_ARGS__)                                        \
    default:                                                                                    \
      AT_ERROR(NAME, " not implemented");                                                       \
    }                                                                                           \
  }()

namespace c10 {
/* LibTorch's 16-bit float types: the layout of CUDA's __half / __nv_bfloat16. */
struct alignas(2) Half { unsigned short x; Half(); Half(float v); operator float() const; };
struct alignas(2) BFloat16 { unsigned short x; BFloat16(); BFloat16(float v); operator float() const; };
} // namespace c10
namespace at { using c10::Half; using c10::BFloat16; }

/* ---- pybind11 (what torch/extension.h brings in) ------------------------------------------ */
namespace pybind11 {
struct arg_v;
struct arg {
  constexpr explicit arg(const char *name) : name(name) {}
  template <typename T> arg_v operator=(T &&value) const;
  arg &noconvert(bool flag = true);
  arg &none(bool flag = true);
  const char *name;
};
struct arg_v : arg {
  using arg::arg;
};
struct module_ {
  template <typename Func, typename... Extra>
  module_ &def(const char *name, Func &&f, const Extra &...extra);
  module_ def_submodule(const char *name, const char *doc = nullptr);
  template <typename T> module_ &attr(const char *name);
  const char *doc;
};
typedef module_ module;
} // namespace pybind11
namespace py = pybind11;

#define PYBIND11_MODULE(name, variable)                                                         \
  void __cudalint_pybind11_module_##name(::pybind11::module_ &variable)
#define TORCH_LIBRARY(ns, m) void __cudalint_torch_library_##ns(::pybind11::module_ &m)
#define TORCH_LIBRARY_IMPL(ns, k, m)                                                            \
  void __cudalint_torch_library_impl_##ns##_##k(::pybind11::module_ &m)

#endif /* __cplusplus */
#endif /* __CUDALINT_TORCH_H */
