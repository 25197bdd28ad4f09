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


# nvcc gets the same stand-ins, last on its search path, so ptxas gives exact register counts
# for PyTorch extensions on a machine without LibTorch (LeetCUDA's flash-attn files include
# torch/extension.h through their own "utils.h": before, nvcc failed on it, the device-only
# split missed utils.h's helpers, and the registers were estimated: 90 for kernels ptxas
# compiles to 124-225).
from cudalint.analyzer import registers as R  # noqa: E402
from cudalint.analyzer import standin_headers  # noqa: E402

import pytest  # noqa: E402

needs_nvcc = pytest.mark.skipif(R.find_nvcc() is None, reason="nvcc not found")


def test_standins_are_lent_only_to_files_that_include_them(tmp_path: Path):
    assert standin_headers.needs_standins('#include "x.h"\n#include <torch/extension.h>\n')
    assert standin_headers.needs_standins("  #  include <pybind11/pybind11.h>\n")
    assert not standin_headers.needs_standins("#include <cuda_runtime.h>\n// torch/extension.h\n")
    flags = standin_headers.nvcc_flags("#include <ATen/ATen.h>\n", tmp_path)
    assert flags[0] == "-Xcompiler" and flags[1].startswith("-idirafter,")
    lent = Path(flags[1].split(",", 1)[1])
    assert sorted(p.name for p in lent.iterdir()) == sorted(standin_headers.LIBRARIES)
    assert (lent / "torch" / "extension.h").is_file()
    assert not (lent / "cuda_runtime.h").exists()  # the toolkit's own headers are not shadowed


@needs_nvcc
def test_nvcc_compiles_a_torch_extension_with_the_standins(tmp_path: Path):
    (tmp_path / "utils.h").write_text(
        "#include <torch/extension.h>\n#include <torch/types.h>\n"
        "__device__ __forceinline__ int div_ceil(int a, int b) { return (a + b - 1) / b; }\n")
    f = tmp_path / "ext.cu"
    f.write_text('#include "utils.h"\n' + HOST.replace(
        "if (i < n) x[i] = scalar_t(1);", "if (i < div_ceil(n, 2)) x[i] = scalar_t(1);"))
    rep = R.ptxas_resources(str(f), "sm_90", cache_root=tmp_path / "cache")
    assert rep.ok, rep.reason
    kernels = rep.kernels.values()
    assert {R.base_name(k.demangled or k.name) for k in kernels} == {"fill_kernel", "count_kernel"}
    assert all(k.registers for k in kernels)


@needs_nvcc
def test_a_real_libtorch_wins_over_the_standins_for_nvcc(tmp_path: Path):
    inc = tmp_path / "libtorch" / "torch"
    inc.mkdir(parents=True)
    (inc / "extension.h").write_text("#define MY_REAL_TORCH 1\n")
    f = tmp_path / "ext.cu"
    f.write_text("#include <torch/extension.h>\n"
                 "#ifndef MY_REAL_TORCH\n#error the bundled stand-in was used\n#endif\n"
                 "__global__ void k(float *x) { x[threadIdx.x] = 0.0f; }\n")
    rep = R.ptxas_resources(str(f), "sm_90", include_dirs=[str(tmp_path / "libtorch")],
                            cache_root=tmp_path / "cache")
    assert rep.ok, rep.reason
