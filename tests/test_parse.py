"""Tests of the libclang parsing layer (analyzer/frontend/parse.py) and the bundled CUDA prelude.

Every test parses real source with libclang and asserts on clang's diagnostics, types and AST,
so a regression in the prelude headers or in the argument building shows up here.
"""
from __future__ import annotations

import json
import os
import textwrap

import clang.cindex as ci
import pytest

from cudalint.analyzer.frontend import parse as P
from cudalint.analyzer.frontend.parse import (
    FrontendOptions,
    build_args,
    clang_gpu_arch,
    compile_command_flags,
    find_compile_command,
    parse_file,
    parse_gpu_arch,
)

CK = ci.CursorKind


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return str(p)


def errors(r):
    return [str(e) for e in r.errors]


def walk(cursor):
    yield cursor
    for c in cursor.get_children():
        yield from walk(c)


def in_file(r, cursor):
    f = cursor.location.file
    return f is not None and os.path.realpath(f.name) == os.path.realpath(r.path)


def find(r, kind, spelling=None):
    return [c for c in walk(r.tu.cursor)
            if c.kind == kind and (spelling is None or c.spelling == spelling) and in_file(r, c)]


def has_cxx_stdlib():
    return any(os.path.isdir(d) for d in ("/usr/include/c++", "/usr/local/include/c++",
                                          "/usr/lib/gcc"))


needs_stdlib = pytest.mark.skipif(not has_cxx_stdlib(), reason="no system C++ standard library")

# --------------------------------------------------------------------------------------------
# A realistic file parses with zero errors
# --------------------------------------------------------------------------------------------
REALISTIC = """
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \\
    fprintf(stderr, "%s\\n", cudaGetErrorString(e)); } } while (0)

__constant__ float coeff[16];

template <typename T, int TILE>
__global__ void __launch_bounds__(256) scale(T *out, const T *__restrict__ in, int n) {
  __shared__ T tile[TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % TILE] = i < n ? __ldg(&in[i]) : T(0);
  __syncthreads();
  T v = tile[(threadIdx.x + 1) % TILE] * coeff[threadIdx.x & 15];
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (i < n) out[i] = v;
}

__global__ void vec(float4 *a, const float2 *b, int *count, double *acc) {
  float4 x = a[threadIdx.x];
  float2 y = b[threadIdx.x];
  a[threadIdx.x] = make_float4(x.x + y.x, x.y + y.y, sqrtf(x.z), rsqrtf(x.w));
  atomicAdd(count, 1);
  atomicAdd(acc, 1.0);
  unsigned ballot = __ballot_sync(__activemask(), x.x > 0.f);
  if (__popc(ballot) > 16) atomicMax(count, (int)threadIdx.x);
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h(n, 1.0f);
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  float c[16] = {0};
  CHECK(cudaMemcpyToSymbol(coeff, c, sizeof(c)));
  cudaStream_t s;
  cudaStreamCreate(&s);
  dim3 block(256), grid((n + 255) / 256);
  scale<float, 256><<<grid, block, 0, s>>>(d_out, d_in, n);
  scale<float, 128><<<grid, 128>>>(d_out, d_in, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  cudaFree(d_in);
  cudaFree(d_out);
  printf("done\\n");
  return 0;
}
"""


@needs_stdlib
def test_realistic_file_parses_with_zero_errors(tmp_path):
    r = parse_file(write(tmp_path, "k.cu", REALISTIC))
    assert not r.fatal and r.tu is not None
    assert errors(r) == []
    assert r.ok
    assert r.stubbed_headers == []
    kernels = [c for c in find(r, CK.FUNCTION_TEMPLATE) + find(r, CK.FUNCTION_DECL)
               if any(ch.kind == CK.CUDAGLOBAL_ATTR for ch in c.get_children())]
    assert {k.spelling for k in kernels} == {"scale", "vec"}
    # both launches are in main's AST as CUDA kernel calls (CALL_EXPR with a config call)
    main = find(r, CK.FUNCTION_DECL, "main")[0]
    launches = [c for c in walk(main) if c.kind == CK.CALL_EXPR and c.spelling == "scale"]
    assert len(launches) == 2
    config = [ch for ch in launches[0].get_children() if ch.kind == CK.CALL_EXPR]
    assert config and config[0].spelling in ("cudaConfigureCall", "__cudaPushCallConfiguration")


def test_vector_type_sizes_match_cuda(tmp_path):
    src = write(tmp_path, "v.cu", """
        float4 a; float3 b; float2 c; float1 d; double2 e; double4 f; int4 g; uint2 h;
        char4 i; uchar3 j; short2 k; ushort4 l; longlong2 m; ulonglong4 n; long2 o; dim3 p;
        uint3 q; char2 r; double3 s;
    """)
    r = parse_file(src)
    assert errors(r) == []
    want = {"a": (16, 16), "b": (12, 4), "c": (8, 8), "d": (4, 4), "e": (16, 16), "f": (32, 16),
            "g": (16, 16), "h": (8, 8), "i": (4, 4), "j": (3, 1), "k": (4, 4), "l": (8, 8),
            "m": (16, 16), "n": (32, 16), "o": (16, 16), "p": (12, 4), "q": (12, 4),
            "r": (2, 2), "s": (24, 8)}
    got = {v.spelling: (v.type.get_size(), v.type.get_align()) for v in find(r, CK.VAR_DECL)}
    assert got == want


def test_builtin_variables_are_plain_member_refs(tmp_path):
    r = parse_file(write(tmp_path, "b.cu", """
        __global__ void k(float *a) { a[threadIdx.x] = blockIdx.y + blockDim.z + gridDim.x; }
    """))
    assert errors(r) == []
    members = find(r, CK.MEMBER_REF_EXPR)
    assert [m.spelling for m in members] == ["x", "y", "z", "x"]
    for m, base in zip(members, ["threadIdx", "blockIdx", "blockDim", "gridDim"]):
        kids = list(m.get_children())
        assert len(kids) == 1 and kids[0].kind == CK.DECL_REF_EXPR and kids[0].spelling == base
        assert m.type.get_canonical().kind == ci.TypeKind.UINT


def test_cuda_qualifiers_become_attributes(tmp_path):
    r = parse_file(write(tmp_path, "q.cu", """
        __constant__ float c[4];
        __device__ int d;
        __managed__ int m;
        __global__ void __launch_bounds__(128, 4) k(int *p) {
          __shared__ int s[32];
          extern __shared__ float dyn[];
          s[threadIdx.x] = c[0] + d + m; p[0] = s[1] + dyn[0];
        }
        __host__ __device__ inline int hd(int x) { return x; }
        __device__ __forceinline__ int dv(int x) { return x; }
    """))
    assert errors(r) == []

    def attrs(c):
        return {ch.kind for ch in c.get_children() if ch.kind.is_attribute()}

    vars_ = {v.spelling: v for v in find(r, CK.VAR_DECL)}
    assert CK.CUDACONSTANT_ATTR in attrs(vars_["c"])
    assert CK.CUDADEVICE_ATTR in attrs(vars_["d"])
    assert CK.CUDADEVICE_ATTR in attrs(vars_["m"])
    assert any(ch.kind == CK.ANNOTATE_ATTR and ch.spelling == "cudalint_managed"
               for ch in vars_["m"].get_children())
    assert CK.CUDASHARED_ATTR in attrs(vars_["s"])
    assert CK.CUDASHARED_ATTR in attrs(vars_["dyn"])
    funcs = {f.spelling: f for f in find(r, CK.FUNCTION_DECL)}
    assert CK.CUDAGLOBAL_ATTR in attrs(funcs["k"])
    assert len(attrs(funcs["k"])) == 2  # global + launch_bounds
    assert {CK.CUDAHOST_ATTR, CK.CUDADEVICE_ATTR} <= attrs(funcs["hd"])
    assert CK.CUDADEVICE_ATTR in attrs(funcs["dv"])


# --------------------------------------------------------------------------------------------
# System headers and CUDA math living together
# --------------------------------------------------------------------------------------------
@needs_stdlib
@pytest.mark.parametrize("std", ["c++14", "c++17", "c++20"])
def test_standard_library_headers_parse(tmp_path, std):
    r = parse_file(write(tmp_path, "s.cu", """
        #include <cstdio>
        #include <vector>
        #include <algorithm>
        #include <iostream>
        #include <cmath>
        #include <memory>
        #include <chrono>
        #include <string>
        #include <cstdint>
        #include <climits>
        #include <cfloat>
        #include <map>
        #include <random>
        #include <numeric>
        #include <functional>
        #include <thread>
        __global__ void k(float *a) { a[0] = std::sqrt(a[1]) + std::min(a[2], 1.0f); }
        int main() {
          std::vector<int> v{3, 1, 2};
          std::sort(v.begin(), v.end());
          auto t = std::chrono::high_resolution_clock::now();
          std::unique_ptr<int> p(new int(4));
          std::cout << std::string("x") << v[0] << *p << std::endl;
          (void)t;
        }
    """), FrontendOptions(std=std))
    assert errors(r) == [], r.args
    assert f"-std={std}" in r.args


@needs_stdlib
def test_device_math_coexists_with_cmath(tmp_path):
    r = parse_file(write(tmp_path, "m.cu", """
        #include <cmath>
        #include <cstdlib>
        __global__ void k(float *f, double *d, int *i, long *l) {
          f[0] = sqrtf(f[1]) + sinf(f[2]) + __expf(f[3]) + powf(f[4], 2.f) + fmaf(f[1], f[2], f[3])
               + fminf(f[1], f[2]) + fabsf(f[5]) + floorf(f[6]) + __fdividef(f[1], f[2])
               + __fmul_rn(f[1], f[2]) + __fadd_rn(f[1], f[2]) + __fmaf_rn(f[1], f[2], f[3])
               + std::sqrt(f[7]) + std::exp(f[8]) + exp(f[9]) + sqrt(f[1]) + std::abs(f[2])
               + isnan(f[3]) + std::isinf(f[4]);
          float s, c; sincosf(f[0], &s, &c); __sincosf(f[0], &s, &c);
          d[0] = sqrt(d[1]) + sin(d[2]) + std::pow(d[3], 2.0) + fma(d[1], d[2], d[3]) + fabs(d[4]);
          i[0] = min(i[1], i[2]) + max(i[3], 4) + abs(i[4]) + __mul24(i[1], i[2]) + __mulhi(i[1], 3)
               + __umul24(1u, 2u) + __popc(5u) + __clz(i[1]) + __ffs(i[2]);
          l[0] = labs(l[1]) + llabs(3ll) + min(l[1], l[2]);
        }
        int host(int a, int b) { return min(a, b) + max(a, b) + abs(a) + (int)std::sqrt(2.0); }
    """))
    assert errors(r) == []


@needs_stdlib
def test_host_only_function_in_kernel_is_an_error(tmp_path):
    # Proves the parse is device side: nvcc also rejects a host libc call inside a kernel.
    r = parse_file(write(tmp_path, "h.cu", """
        #include <cstdio>
        __global__ void k() { puts("not on the device"); }
    """))
    assert len(r.errors) == 1
    assert "puts" in r.errors[0].message and r.errors[0].line == 3


@needs_stdlib
def test_device_side_libc_and_assert(tmp_path):
    r = parse_file(write(tmp_path, "a.cu", """
        #include <cassert>
        #include <cstdio>
        #include <cstring>
        struct V { int a; __device__ V(int x) : a(x) {} };
        __global__ void k(int *p) {
          assert(p != nullptr);
          printf("%d %lld\\n", p[0], clock64());
          int *q = (int *)malloc(16); memcpy(q, p, 16); memset(q, 0, 16); free(q);
          int *r = new int[4]; delete[] r;
          __shared__ char buf[sizeof(V)];
          V *v = new (buf) V(3); p[1] = v->a + (int)clock();
        }
    """))
    assert errors(r) == []


# --------------------------------------------------------------------------------------------
# Bundled CUDA library headers
# --------------------------------------------------------------------------------------------
@needs_stdlib
def test_cooperative_groups(tmp_path):
    r = parse_file(write(tmp_path, "cg.cu", """
        #include <cooperative_groups.h>
        #include <cooperative_groups/reduce.h>
        namespace cg = cooperative_groups;
        __device__ float warp_sum(cg::thread_block_tile<32> tile, float v) {
          for (int i = tile.size() / 2; i > 0; i /= 2) v += tile.shfl_down(v, i);
          return v;
        }
        __global__ void k(float *out, const float *in, int n) {
          cg::thread_block block = cg::this_thread_block();
          cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
          cg::grid_group grid = cg::this_grid();
          float v = 0;
          for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
          v = warp_sum(tile, v);
          float r = cg::reduce(tile, v, cg::plus<float>());
          cg::sync(block);
          block.sync();
          unsigned b = tile.ballot(v > 0) + tile.any(1) + tile.meta_group_rank();
          cg::coalesced_group active = cg::coalesced_threads();
          if (tile.thread_rank() == 0) atomicAdd(out, r + b + active.size());
          cg::thread_group g = cg::tiled_partition(block, 16);
          g.sync();
          grid.sync();
        }
    """))
    assert errors(r) == []


@needs_stdlib
@pytest.mark.parametrize("header", [
    "cuda.h", "cuda_runtime_api.h", "device_launch_parameters.h", "cuda_fp16.h", "cuda_bf16.h",
    "cooperative_groups.h", "cooperative_groups/reduce.h", "cooperative_groups/memcpy_async.h",
    "cooperative_groups/scan.h", "curand.h", "curand_kernel.h", "cuComplex.h", "cublas_v2.h",
    "cufft.h", "cufftXt.h", "cusparse.h", "mma.h", "math_constants.h", "cuda_profiler_api.h",
    "device_functions.h", "vector_types.h", "vector_functions.h", "driver_types.h",
    "cuda_pipeline.h", "cuda_awbarrier.h", "cuda/barrier", "cuda/pipeline", "cuda/atomic",
    "cuda/std/type_traits", "cuda_gl_interop.h", "nvtx3/nvToolsExt.h", "thrust/device_vector.h",
    "thrust/sort.h", "thrust/iterator/zip_iterator.h", "omp.h", "cuda_fp8.h",
])
def test_each_bundled_header_parses_alone(tmp_path, header):
    r = parse_file(write(tmp_path, "one.cu", f"#include <{header}>\nint main() {{ return 0; }}\n"))
    assert errors(r) == []
    assert r.stubbed_headers == []


@needs_stdlib
def test_fp16_wmma_curand_and_async_copy(tmp_path):
    r = parse_file(write(tmp_path, "f.cu", """
        #include <cuda_fp16.h>
        #include <mma.h>
        #include <curand_kernel.h>
        #include <cuda/pipeline>
        #include <cooperative_groups/memcpy_async.h>
        using namespace nvcuda;
        namespace cg = cooperative_groups;
        __global__ void h(half2 *a, const half2 *b, float *o, curandState *st) {
          half2 x = __hadd2(a[threadIdx.x], b[threadIdx.x]);
          x = __hfma2(x, __float2half2_rn(2.f), b[0]);
          o[0] = __low2float(x) + __high2float(x) + __half2float(__float2half(1.f));
          curand_init(1234ull, threadIdx.x, 0, &st[threadIdx.x]);
          o[1] = curand_uniform(&st[threadIdx.x]) + curand_normal(&st[threadIdx.x]);
        }
        __global__ void mm(const half *a, const half *b, float *c) {
          wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
          wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
          wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
          wmma::fill_fragment(fc, 0.0f);
          wmma::load_matrix_sync(fa, a, 16);
          wmma::load_matrix_sync(fb, b, 16);
          wmma::mma_sync(fc, fa, fb, fc);
          for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.f;
          wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
        }
        __global__ void cp(float *g) {
          __shared__ float s[256];
          cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
          pipe.producer_acquire();
          cuda::memcpy_async(&s[threadIdx.x], &g[threadIdx.x], cuda::aligned_size_t<4>(4), pipe);
          pipe.producer_commit();
          cuda::pipeline_consumer_wait_prior<0>(pipe);
          __shared__ cuda::barrier<cuda::thread_scope_block> bar;
          if (threadIdx.x == 0) init(&bar, blockDim.x);
          __syncthreads();
          cg::thread_block tb = cg::this_thread_block();
          cg::memcpy_async(tb, s, g, sizeof(float) * 256);
          cg::wait(tb);
          bar.arrive_and_wait();
          g[threadIdx.x] = s[threadIdx.x];
        }
    """))
    assert errors(r) == []


def test_freestanding_c_headers(tmp_path):
    # The wheel ships no clang resource headers; these come from include/c/.
    r = parse_file(write(tmp_path, "c.cu", """
        #include <stddef.h>
        #include <stdint.h>
        #include <limits.h>
        #include <float.h>
        #include <stdarg.h>
        #include <stdbool.h>
        struct S { char c; double d; };
        static_assert(offsetof(S, d) == 8, "offsetof");
        static_assert(INT_MAX == 2147483647 && CHAR_BIT == 8 && UINT_MAX == 4294967295u, "limits");
        static_assert(sizeof(int64_t) == 8 && sizeof(uint8_t) == 1 && SIZE_MAX > 0, "stdint");
        static_assert(FLT_MAX > 3.4e38f && DBL_EPSILON < 1e-15 && FLT_MANT_DIG == 24, "float");
        static_assert(sizeof(size_t) == sizeof(void *) && sizeof(max_align_t) >= 8, "stddef");
        int sum(int n, ...) { va_list ap; va_start(ap, n); int s = va_arg(ap, int); va_end(ap); return s; }
        bool flag = true;
    """))
    assert errors(r) == []


NO_SYSTEM_HEADERS = ["--sysroot=/nonexistent-cudalint", "-nostdinc++"]


@pytest.mark.skipif(os.name != "posix", reason="simulates a Linux machine without headers")
def test_fallback_headers_without_system_headers(tmp_path):
    # A machine with no C/C++ toolchain headers (slim container): the bundled fallback C
    # library and <cxxx> wrappers take over; they are searched after the system directories.
    src = write(tmp_path, "nolibc.cu", """
        #include <cstdio>
        #include <cstdlib>
        #include <cstring>
        #include <cmath>
        #include <cassert>
        #include <ctime>
        #include <cstdint>
        #include <climits>
        #include <new>
        __global__ void k(float *a) {
          a[0] = sqrtf(a[1]) + std::sqrt(a[2]) + std::isnan(a[3]) + isinf(a[4]) + fabsf(a[5]);
          assert(a);
          printf("%f", a[0]);
        }
        int main() {
          float *p = (float *)malloc(4);
          memset(p, 0, 4);
          printf("%f %d\\n", std::sqrt(2.0f) + M_PI, INT_MAX);
          clock_t t = clock(); (void)t;
          std::uint32_t u = 1; (void)u;
          int *q = new int[3]; delete[] q;
          free(p);
          exit(EXIT_SUCCESS);
        }
    """)
    r = parse_file(src, FrontendOptions(extra_args=NO_SYSTEM_HEADERS))
    assert errors(r) == [] and r.stubbed_headers == []
    used = {os.path.dirname(i.include.name) for i in r.tu.get_includes()}
    assert P.fallback_cxx_dir() in used and P.fallback_libc_dir() in used
    # with the system's headers present the fallbacks are never reached
    r = parse_file(src)
    assert errors(r) == []
    if has_cxx_stdlib():
        used = {os.path.dirname(i.include.name) for i in r.tu.get_includes()}
        assert P.fallback_cxx_dir() not in used and P.fallback_libc_dir() not in used


@pytest.mark.skipif(os.name != "posix", reason="simulates a Linux machine without headers")
def test_without_system_cxx_library_containers_are_stubbed(tmp_path):
    r = parse_file(write(tmp_path, "v.cu", """
        #include <vector>
        __global__ void k(float *a) { a[threadIdx.x] = 0; }
    """), FrontendOptions(extra_args=NO_SYSTEM_HEADERS))
    assert r.stubbed_headers == ["vector"] and errors(r) == []


# --------------------------------------------------------------------------------------------
# Robustness: missing headers, bad files
# --------------------------------------------------------------------------------------------
def test_missing_headers_are_stubbed_and_recorded(tmp_path):
    r = parse_file(write(tmp_path, "m.cu", """
        #include "does_not_exist.h"
        #include <nowhere/also_missing.hpp>
        __global__ void k(float *a) { a[threadIdx.x] = 1.f; }
    """))
    assert not r.fatal and r.tu is not None
    assert r.stubbed_headers == ["does_not_exist.h", "nowhere/also_missing.hpp"]
    assert errors(r) == []
    assert [(m.line, m.file == r.path) for m in r.missing_includes] == [(2, True), (3, True)]
    assert r.rounds == 2
    # the kernel is still in the AST
    assert [f.spelling for f in find(r, CK.FUNCTION_DECL)] == ["k"]


def test_missing_header_symbols_still_reported(tmp_path):
    r = parse_file(write(tmp_path, "u.cu", """
        #include "mylib.h"
        __global__ void k(float *a) { a[0] = mylib_scale(2.f); }
    """))
    assert r.stubbed_headers == ["mylib.h"]
    assert len(r.errors) == 1 and "mylib_scale" in r.errors[0].message


def test_relative_missing_header_is_stubbed(tmp_path):
    r = parse_file(write(tmp_path, "src/r.cu", """
        #include "../include/gone.cuh"
        __global__ void k(int *a) { a[0] = 1; }
    """))
    assert r.stubbed_headers == ["../include/gone.cuh"]
    assert errors(r) == []


@pytest.mark.parametrize("case, content, expect", [
    ("empty", b"", "empty file"),
    ("blank", b"  \n\t\n", "empty file"),
    ("binary", bytes(range(256)) * 8, "binary file"),
    ("elf", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64, "binary file"),
])
def test_unusable_files_are_fatal_not_exceptions(tmp_path, case, content, expect):
    p = tmp_path / f"{case}.cu"
    p.write_bytes(content)
    r = parse_file(str(p))
    assert r.fatal and r.tu is None
    assert expect in r.message
    assert r.errors and r.errors[0].severity == "fatal" and expect in r.errors[0].message


def test_nonexistent_and_directory_are_fatal(tmp_path):
    r = parse_file(str(tmp_path / "nope.cu"))
    assert r.fatal and r.tu is None and "no such file" in r.message
    d = tmp_path / "dir.cu"
    d.mkdir()
    r = parse_file(str(d))
    assert r.fatal and "directory" in r.message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_unreadable_file_is_fatal(tmp_path):
    p = tmp_path / "secret.cu"
    p.write_text("__global__ void k() {}\n")
    p.chmod(0)
    try:
        r = parse_file(str(p))
    finally:
        p.chmod(0o644)
    assert r.fatal and "cannot read" in r.message


def test_non_utf8_source(tmp_path):
    p = tmp_path / "latin1.cu"
    p.write_bytes("// Gr\u00fc\u00dfe, caf\u00e9\n__global__ void k(int *a) { a[0] = 1; }\n"
                  .encode("latin-1"))
    lenient = parse_file(str(p))
    assert not lenient.fatal and errors(lenient) == []
    assert any("UTF-8" in w.message and w.line == 1 for w in lenient.warnings)
    strict = parse_file(str(p), FrontendOptions(strict_utf8=True))
    assert strict.fatal and "UTF-8" in strict.message


def test_bad_arch_is_fatal(tmp_path):
    r = parse_file(write(tmp_path, "a.cu", "__global__ void k() {}\n"), FrontendOptions(arch="gfx90a"))
    assert r.fatal and "GPU architecture" in r.message


def test_warnings_are_separate_from_errors(tmp_path):
    r = parse_file(write(tmp_path, "w.cu", """
        __global__ void k(int *a) { int x = 1.5; a[0] = x; }
    """))
    assert errors(r) == []
    assert any("1.5" in w.message or "conversion" in w.message for w in r.warnings)


def test_unsaved_buffer_replaces_disk(tmp_path):
    path = str(tmp_path / "editor.cu")  # not on disk at all
    r = parse_file(path, unsaved={path: "__global__ void from_buffer(int *a) { a[0] = 1; }\n"})
    assert not r.fatal and errors(r) == []
    assert [f.spelling for f in find(r, CK.FUNCTION_DECL)] == ["from_buffer"]


# --------------------------------------------------------------------------------------------
# Options: -D, -I, arch, std, compile_commands.json
# --------------------------------------------------------------------------------------------
DEFINES_SRC = """
#ifndef TILE
#error "TILE must be defined"
#endif
static_assert(TILE == 32, "TILE");
#ifdef USE_FAST
__global__ void k(float *a) { a[threadIdx.x] = __expf(a[threadIdx.x]); }
#endif
"""


def test_defines_are_honoured(tmp_path):
    src = write(tmp_path, "d.cu", DEFINES_SRC)
    r = parse_file(src, FrontendOptions(defines=["TILE=32", "USE_FAST"]))
    assert errors(r) == []
    assert [f.spelling for f in find(r, CK.FUNCTION_DECL)] == ["k"]
    r = parse_file(src)
    assert any("TILE must be defined" in e.message for e in r.errors)
    r = parse_file(src, FrontendOptions(defines=["TILE=16"]))
    assert any("static assertion" in e.message for e in r.errors)


def test_include_dirs_are_honoured(tmp_path):
    write(tmp_path, "inc/tiles.cuh", """
        #pragma once
        #define TILE_W 16
        __device__ inline int tile_of(int i) { return i / TILE_W; }
    """)
    src = write(tmp_path, "src/k.cu", """
        #include <tiles.cuh>
        __global__ void k(int *a) { a[threadIdx.x] = tile_of(threadIdx.x) + TILE_W; }
    """)
    r = parse_file(src, FrontendOptions(include_dirs=[str(tmp_path / "inc")]))
    assert errors(r) == [] and r.stubbed_headers == []
    assert ["-I", str(tmp_path / "inc")] == r.args[r.args.index("-I"):r.args.index("-I") + 2]
    r = parse_file(src)
    assert r.stubbed_headers == ["tiles.cuh"] and r.errors  # tile_of unknown without -I


def test_cuh_header_parses_as_cuda(tmp_path):
    r = parse_file(write(tmp_path, "util.cuh", """
        #pragma once
        template <int N> __device__ float tree_sum(const float *s) {
          float v = 0; for (int i = 0; i < N; ++i) v += s[i]; return v;
        }
        __global__ void use(float *o, const float *s) { o[0] = tree_sum<8>(s); }
    """))
    assert errors(r) == [] and r.warnings == []
    assert "cuda" == r.args[r.args.index("-x") + 1]


def test_arch_clamped_for_new_gpus(tmp_path):
    src = write(tmp_path, "a.cu", """
        static_assert(__CUDA_ARCH__ == EXPECT, "arch");
        #if __CUDA_ARCH__ >= 900
        __global__ void hopper_or_newer() {}
        #endif
    """)
    r = parse_file(src, FrontendOptions(arch="sm_100", defines=["EXPECT=1000"]))
    assert errors(r) == []
    assert r.clang_arch == "sm_90"
    assert any("sm_100" in n for n in r.notes)
    r = parse_file(src, FrontendOptions(arch="sm_80", defines=["EXPECT=800"]))
    assert errors(r) == [] and r.clang_arch == "sm_80" and r.notes == []
    assert find(r, CK.FUNCTION_DECL) == []
    r = parse_file(src, FrontendOptions(arch="sm_120a", defines=["EXPECT=1200"]))
    assert errors(r) == []
    assert "-D__CUDA_ARCH_FEAT_SM120_ALL=1" in r.args


def test_arch_parsing():
    assert parse_gpu_arch("sm_90a") == (90, "a")
    assert parse_gpu_arch("compute_86") == (86, "")
    assert parse_gpu_arch("8.0") == (80, "")
    assert parse_gpu_arch("100f") == (100, "f")
    with pytest.raises(ValueError):
        parse_gpu_arch("gfx942")
    assert clang_gpu_arch("sm_75") == ("sm_75", [], None)
    arch, extra, note = clang_gpu_arch("sm_120")
    assert arch == "sm_90" and "-D__CUDA_ARCH__=1200" in extra and note


def test_build_args_shape(tmp_path):
    args = build_args(str(tmp_path / "x.cu"), FrontendOptions(std="c++20", include_dirs=["inc"],
                                                              defines=["A=1", "B"]))
    for flag in ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc",
                 "-nocudalib", "-nobuiltininc", "-std=c++20", "-DA=1", "-DB"]:
        assert flag in args
    assert args[args.index("-include") + 1] == P.prelude_path()
    assert os.path.isfile(P.prelude_path())
    assert os.path.isfile(os.path.join(P.builtin_include_dir(), "stddef.h"))
    assert ["-isystem", P.builtin_include_dir()] == args[args.index(P.builtin_include_dir()) - 1:
                                                         args.index(P.builtin_include_dir()) + 1]
    # user -I before the bundled headers, so a project's own header wins
    assert args.index("-I") < args.index("-include")


def test_compile_command_flags_filtering():
    flags, archs = compile_command_flags(
        ["/usr/local/cuda/bin/nvcc", "-I../inc", "-Iabs", "-isystem", "/opt/x", "-DTILE=16",
         "-D", "FAST", "--define-macro=W=2", "-UOLD", "-std=c++14", "--expt-relaxed-constexpr",
         "-gencode", "arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=[sm_90,compute_90]",
         "-arch=sm_75", "-Xcompiler", "-fPIC", "-O3", "-lineinfo", "-o", "k.o", "-c", "k.cu",
         "--include-path", "/p", "-include", "pre.h"], "/build/dir")
    assert flags == ["-I", "/build/inc", "-I", "/build/dir/abs", "-isystem", "/opt/x",
                     "-DTILE=16", "-DFAST", "-DW=2", "-UOLD", "-std=c++14", "-I", "/p",
                     "-include", "pre.h"]
    assert archs == ["sm_80", "sm_90", "compute_90", "sm_75"]


def _compile_db(tmp_path, command_or_args):
    write(tmp_path, "proj/include/cfg.h", "#define TILE 16\n")
    src = write(tmp_path, "proj/src/k.cu", """
        #include "cfg.h"
        static_assert(TILE == 16 && SCALE == 3, "from compile_commands");
        #if __cplusplus >= 201703L
        #error "expected the build's -std=c++14"
        #endif
        __global__ void k(float *a) { a[threadIdx.x] *= SCALE; }
    """)
    entry = {"directory": str(tmp_path / "proj" / "build"), "file": "../src/k.cu"}
    if isinstance(command_or_args, list):
        entry["arguments"] = command_or_args
    else:
        entry["command"] = command_or_args
    (tmp_path / "proj" / "build").mkdir()
    db = tmp_path / "proj" / "build" / "compile_commands.json"
    db.write_text(json.dumps([entry]))
    return src, db


def test_compile_commands_json_is_honoured(tmp_path):
    src, db = _compile_db(tmp_path, "nvcc -I../include -DSCALE=3 -std=c++14 -gencode "
                                    "arch=compute_80,code=sm_80 --expt-relaxed-constexpr "
                                    "-Xcompiler -Wall -o k.o -c ../src/k.cu")
    for where in (str(db), str(db.parent)):  # the file or its directory
        r = parse_file(src, FrontendOptions(compile_commands=where))
        assert errors(r) == [], r.args
        assert "-DSCALE=3" in r.args and "-std=c++14" in r.args
        assert str(tmp_path / "proj" / "include") in r.args
        assert not any("gencode" in a or "expt" in a or a == "-Xcompiler" for a in r.args)
    cmd = find_compile_command(src, str(db))
    assert cmd.exact and cmd.archs == ["sm_80"]
    r = parse_file(src)  # without the database the build's flags are missing
    assert r.errors


def test_compile_commands_arguments_form_and_header_borrowing(tmp_path):
    src, db = _compile_db(tmp_path, ["clang++", "-x", "cuda", "--cuda-gpu-arch=sm_86",
                                     "-I", "../include", "-DSCALE=3", "-std=c++14", "-c",
                                     "../src/k.cu"])
    assert errors(parse_file(src, FrontendOptions(compile_commands=str(db)))) == []
    header = write(tmp_path, "proj/src/helpers.cuh", """
        #include "cfg.h"
        __device__ inline int scaled(int x) { return x * TILE * SCALE; }
    """)
    r = parse_file(header, FrontendOptions(compile_commands=str(db)))
    assert errors(r) == []
    assert any("borrowed" in n for n in r.notes)
    assert find_compile_command(header, str(db)).archs == ["sm_86"]


def test_broken_compile_commands_do_not_raise(tmp_path):
    src = write(tmp_path, "k.cu", "__global__ void k() {}\n")
    bad = tmp_path / "compile_commands.json"
    bad.write_text("{not json")
    r = parse_file(src, FrontendOptions(compile_commands=str(bad)))
    assert not r.fatal and errors(r) == []
    assert any("compile_commands" in n for n in r.notes)
    r = parse_file(src, FrontendOptions(compile_commands=str(tmp_path / "missing.json")))
    assert not r.fatal and any("compile_commands" in n for n in r.notes)


# --------------------------------------------------------------------------------------------
# nvcc-accepted constructs clang rejects
# --------------------------------------------------------------------------------------------
def test_dynamic_parallelism_is_a_warning(tmp_path):
    r = parse_file(write(tmp_path, "dp.cu", """
        __global__ void child(int *a) { a[threadIdx.x] = 1; }
        template <class T> __global__ void tchild(T *a) { a[0] = 1; }
        __global__ void parent(int *a) {
          child<<<1, 32>>>(a);
          tchild<<<1, 1>>>(a);
          cudaDeviceSynchronize();
        }
    """))
    assert errors(r) == []
    dp = [w for w in r.warnings if "dynamic parallelism" in w.message]
    assert [w.line for w in dp] == [5, 6]


def test_alignas_after_shared_is_a_warning(tmp_path):
    r = parse_file(write(tmp_path, "al.cu", """
        __global__ void k(float *a) {
          __shared__ alignas(16) float s[64];
          s[threadIdx.x] = a[threadIdx.x];
          a[0] = s[1];
        }
    """))
    assert errors(r) == []
    assert any("alignas" in w.message for w in r.warnings)
    s = find(r, CK.VAR_DECL, "s")[0]
    assert any(ch.kind == CK.CUDASHARED_ATTR for ch in s.get_children())


def test_textures_object_and_legacy_reference(tmp_path):
    r = parse_file(write(tmp_path, "t.cu", """
        texture<float, 1, cudaReadModeElementType> texRef;
        texture<float4, 2> tex2;
        surface<void, 2> surf;
        __global__ void legacy(float *o) {
          float4 v = tex2D(tex2, 0.5f, 0.5f);
          o[threadIdx.x] = tex1Dfetch(texRef, threadIdx.x) + v.x;
          surf2Dwrite(o[0], surf, 0, 0);
        }
        __global__ void objects(cudaTextureObject_t t, cudaSurfaceObject_t s, float *o) {
          o[0] = tex2D<float>(t, 0.f, 0.f) + tex1Dfetch<float>(t, 3);
          surf2Dwrite(o[0], s, 0, 0);
          float4 f = surf2Dread<float4>(s, 0, 0); o[1] = f.x;
        }
        int host_only;
        __global__ void misuse(int *o) { o[0] = host_only; }
        int main() {
          float *d; cudaMalloc(&d, 64);
          cudaBindTexture(0, texRef, d, 64);
          cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeLinear;
          cudaTextureDesc td = {}; cudaTextureObject_t obj;
          cudaCreateTextureObject(&obj, &rd, &td, nullptr);
          cudaUnbindTexture(texRef);
        }
    """))
    # a real host variable in device code stays an error; legacy textures become warnings
    assert [(e.line, "host_only" in e.message) for e in r.errors] == [(16, True)]
    assert sorted(w.line for w in r.warnings if "legacy texture" in w.message) == [6, 7, 8]


def test_detailed_preprocessing_record_option(tmp_path):
    src = write(tmp_path, "mac.cu", """
        #define LAUNCH(k, n) k<<<(n + 255) / 256, 256>>>(n)
        __global__ void k(int n) {}
        void host(int n) { LAUNCH(k, n); }
    """)
    plain = parse_file(src)
    assert not [c for c in plain.tu.cursor.get_children() if c.kind == CK.MACRO_INSTANTIATION]
    rec = parse_file(src, FrontendOptions(detailed_preprocessing_record=True))
    uses = [c for c in rec.tu.cursor.get_children()
            if c.kind == CK.MACRO_INSTANTIATION and in_file(rec, c)]
    assert [(u.spelling, u.location.line) for u in uses] == [("__global__", 3), ("LAUNCH", 4)]
    assert errors(rec) == []


def test_index_is_reused_per_thread():
    assert P.get_index() is P.get_index()


def test_launch_bounds_arguments_are_parsed_not_scraped_for_numbers():
    # Rodinia's dwt2d: `__launch_bounds__(WIN_SX, CTMIN(SHM_SIZE/sizeof(...), 8))` on a template
    # whose attribute libclang does not expose; scraping the text for integers read the bound
    # as 8 and every launch "failed" (a false CL704). Only literal arguments (or #defines of
    # them) count, at top level.
    from cudalint.analyzer.frontend.lower_clang import Lowerer

    low = Lowerer.__new__(Lowerer)
    low.defines = {"LIMIT": "64", "BLOCKS": "4"}
    parse = low._launch_bounds_args
    assert parse("__launch_bounds__(WIN_SX, CTMIN(SHM_SIZE/sizeof(RDWT97<WIN_SX, WIN_SY>), 8))") == [None, None]
    assert parse("__launch_bounds__(256, 2)") == [256, 2]
    assert parse("__launch_bounds__( LIMIT , BLOCKS )") == [64, 4]
    assert parse("__launch_bounds__(128)") == [128]
    assert parse("__launch_bounds__((128))") == [128]
