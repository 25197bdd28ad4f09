"""PyTorch C++/CUDA extensions (LeetCUDA and most research kernels): the host code around the
kernels uses torch::Tensor, TORCH_CHECK, AT_DISPATCH_* and pybind11. The bundled stand-in
(analyzer/frontend/include/torch/cudalint_torch.h, reached through torch/extension.h,
torch/types.h, ATen/..., c10/..., pybind11/pybind11.h) declares what that code needs, so it
parses without errors and its launches are seen; a real LibTorch given with -I wins."""
from __future__ import annotations

from pathlib import Path

from cudalint.analyzer.frontend.parse import parse_file
from cudalint.analyzer.options import FrontendOptions
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

HOST = r"""
#include <torch/extension.h>
#include <torch/types.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <vector>

template <typename scalar_t>
__global__ void fill_kernel(scalar_t *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = scalar_t(1);
}
__global__ void count_kernel(int *x, int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&y[x[i]], 1);
}

#define CHECK_TORCH_TENSOR_DTYPE(T, th_type)                                   \
  if (((T).options().dtype() != (th_type))) {                                  \
    std::cout << "Tensor Info:" << (T).options() << std::endl;                 \
    throw std::runtime_error("values must be " #th_type);                      \
  }

torch::Tensor histogram(torch::Tensor a) {
  CHECK_TORCH_TENSOR_DTYPE(a, (torch::kInt32))
  auto options = torch::TensorOptions().dtype(torch::kInt32).device(torch::kCUDA, 0);
  std::tuple<torch::Tensor, torch::Tensor> max_a = torch::max(a, 0);
  torch::Tensor max_val = std::get<0>(max_a).cpu();
  const int M = max_val.item().to<int>();
  auto y = torch::zeros({M + 1}, options);
  const int N = a.size(0);
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  count_kernel<<<(N + 255) / 256, 256, 0, stream>>>(a.data_ptr<int>(), y.data_ptr<int>(), N);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}

void fill(torch::Tensor x, std::optional<torch::Tensor> maybe) {
  TORCH_CHECK(x.is_cuda(), "x must be on the GPU, not ", x.device());
  TORCH_CHECK(x.dtype() == at::ScalarType::Float || x.scalar_type() == torch::kBFloat16);
  TORCH_CHECK(!maybe.has_value() || maybe.value().numel() == x.numel());
  std::vector<int> keep = {1, 2};
  auto k = torch::tensor(keep, torch::TensorOptions().dtype(torch::kInt32));
  auto e = torch::empty({x.size(0), x.size(1)}, x.options()).to(torch::kCPU);
  const int n = x.numel();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "fill", ([&] {
    fill_kernel<scalar_t><<<(n + 127) / 128, 128>>>(x.data_ptr<scalar_t>(), n);
  }));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("histogram", &histogram, "histogram");
  m.def("fill", &fill, py::arg("x"), py::arg("maybe").none(true));
}
"""


def test_torch_extension_host_code_parses(tmp_path: Path):
    f = tmp_path / "ext.cu"
    f.write_text(HOST)
    r = parse_file(str(f), FrontendOptions())
    # Without the stand-in the six torch/ATen/c10 headers were empty stubs and every host
    # function was full of errors (use of undeclared identifier 'torch').
    assert r.stubbed_headers == []
    assert [p.message for p in r.errors] == []


def test_torch_extension_launches_are_seen(tmp_path: Path):
    f = tmp_path / "ext.cu"
    f.write_text(HOST)
    fa = analyze_file(str(f), AnalysisOptions(use_ptxas=False))
    assert fa.error is None and not fa.kernel_errors
    by_name = {k.function.display_name: k for k in fa.kernels}
    # AT_DISPATCH_FLOATING_TYPES instantiates the lambda for double and float, as LibTorch's
    # switch does; each launch is 1-D with 128 threads.
    assert set(by_name) == {"count_kernel", "fill_kernel<double>", "fill_kernel<float>"}
    assert by_name["fill_kernel<float>"].launch.block == (128, 1, 1)
    assert by_name["fill_kernel<double>"].launch.block == (128, 1, 1)
    assert by_name["count_kernel"].launch.block == (256, 1, 1)
    assert by_name["count_kernel"].launch.source == "launch-site"


def test_a_real_libtorch_on_the_include_path_wins(tmp_path: Path):
    inc = tmp_path / "libtorch" / "torch"
    inc.mkdir(parents=True)
    (inc / "extension.h").write_text("#define MY_REAL_TORCH 1\n")
    f = tmp_path / "ext.cu"
    f.write_text("#include <torch/extension.h>\n"
                 "#ifndef MY_REAL_TORCH\n#error the bundled stand-in was used\n#endif\n"
                 "__global__ void k(float *x) { x[threadIdx.x] = 0.0f; }\n")
    r = parse_file(str(f), FrontendOptions(include_dirs=[str(tmp_path / "libtorch")]))
    assert [p.message for p in r.errors] == []
