"""Constructs nvcc compiles that the frontend used to reject (each made a kernel CL000 "not
analysed" in real code: HeCBench, llm.c). Every case is a kernel of our own using the construct;
it must now be analysed, and one fact of it is checked against hand arithmetic.

Sector arithmetic: a warp of 32 consecutive threads storing 4-byte elements at out[i] touches
128 contiguous bytes = 4 sectors of 32 B, all used (efficiency 1); 2-byte elements, 64 B = 2
sectors; 8-byte elements, 256 B = 8 sectors."""
from __future__ import annotations

import textwrap

from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.rules.runner import CheckOptions, check_file


def _check(tmp_path, src, name="k.cu", **opts):
    p = tmp_path / name
    p.write_text(textwrap.dedent(src))
    opts.setdefault("use_ptxas", False)
    res, fa = check_file(str(p), AnalysisOptions(**opts), CheckOptions())
    return res, fa


def _analysed(res, fa):
    """No CL000 at all: the file parsed and every kernel was lowered."""
    assert fa.error is None and not fa.kernel_errors, [d.message for d in res.diagnostics
                                                        if d.code == "CL000"]
    assert not [d for d in res.diagnostics if d.code == "CL000"]


def _accesses(fa, kernel=None):
    return [(a.array, a.kind, a.atomic, a.element_bytes, a.sectors_per_request)
            for k in fa.kernels if kernel is None or k.function.name == kernel
            for a in k.accesses]


def test_register_storage_class_in_cxx17(tmp_path):
    # HeCBench ntt: `register` locals. C++17 removed the keyword; nvcc still takes it (EDG
    # deprecation), clang made it an error ("ISO C++17 does not allow 'register'").
    res, fa = _check(tmp_path, """
        __global__ void k(const unsigned *in, unsigned *out) {
            register unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
            register unsigned v = in[i];
            out[i] = v * 3u;
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    assert _accesses(fa) == [("in", "load", False, 4, 4), ("out", "store", False, 4, 4)]


def test_nvcc_macro_is_defined(tmp_path):
    # HeCBench xsbench: the header blanks __host__/__device__ unless __NVCC__ (or __HIPCC__) is
    # defined; without __NVCC__ its helpers were host-only and the kernel's calls had no match.
    res, fa = _check(tmp_path, """
        #if !defined(__NVCC__) && !defined(__HIPCC__)
        #define __device__
        #define __host__
        #endif
        __host__ __device__ double twice(double x);
        __global__ void k(double *out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            out[i] = twice(i);
        }
        __host__ __device__ double twice(double x) { return 2 * x; }""", block=(128, 1, 1))
    _analysed(res, fa)
    assert _accesses(fa) == [("out", "store", False, 8, 8)]


def test_nv_atomic_builtins(tmp_path):
    # HeCBench hausdorff/lebesgue/michalewicz: CUDA 12.8's __nv_atomic_* built-ins with an
    # order and a scope. The location is an atomic access: a load for __nv_atomic_load_n, a
    # read-modify-write (listed as a store) for fetch_add/store_n; out[i] is a plain store.
    res, fa = _check(tmp_path, """
        __global__ void k(unsigned *m, unsigned long long *c, unsigned *out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            unsigned old = __nv_atomic_load_n(m, __NV_ATOMIC_RELAXED);
            __nv_atomic_fetch_add(c, 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
            __nv_atomic_store_n(&m[1], old, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_BLOCK);
            __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
            out[i] = old;
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    got = [(a, k, at, b) for a, k, at, b, _ in _accesses(fa)]
    assert got == [("m", "load", True, 4), ("c", "store", True, 8), ("m", "store", True, 4),
                   ("out", "store", False, 4)]


def test_simd_and_dpx_intrinsics(tmp_path):
    # HeCBench intrinsics-simd: the per-halfword/per-byte intrinsics (__vabsss2, __vcmpges4,
    # __vsetltu2, ...) and sm_90's DPX ones (__vimax3_s32, __viaddmax_s32, __vibmax_s32).
    res, fa = _check(tmp_path, """
        __global__ void k(const unsigned *a, const int *b, unsigned *out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            unsigned x = a[i];
            bool p;
            unsigned r = __vabsss2(x) + __vcmpges4(x, 7u) + __vsetltu2(x, 3u) + __vsubus2(x, 1u)
                       + __vneg2(x) + __vavgs4(x, x);
            int y = b[i];
            int s = __vimax3_s32(y, 0, 5) + __viaddmax_s32(y, 1, 2) + __vibmax_s32(y, 3, &p);
            out[i] = r + s + p;
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    assert _accesses(fa) == [("a", "load", False, 4, 4), ("b", "load", False, 4, 4),
                             ("out", "store", False, 4, 4)]


def test_fp8x4_from_two_bfloat162(tmp_path):
    # HeCBench addBiasQKV: __nv_fp8x4_e4m3(bf162 lo, bf162 hi), one of cuda_fp8.hpp's
    # constructors the header lacked. An fp8x4 is 4 bytes.
    res, fa = _check(tmp_path, """
        #include <cuda_fp8.h>
        __global__ void k(const __nv_bfloat162 *in, __nv_fp8x4_e4m3 *out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            out[i] = __nv_fp8x4_e4m3(in[2 * i], in[2 * i + 1]);
            __nv_fp8_e5m2 e(7u);
            out[i + 1].__x += (unsigned char)e;
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    stores = [x for x in _accesses(fa) if x[0] == "out" and x[1] == "store"]
    assert stores[0] == ("out", "store", False, 4, 4)


def test_bfloat16_through_cooperative_groups(tmp_path):
    # llm.c dev/cuda/layernorm_backward.cu: uses __nv_bfloat162 having included only
    # <cooperative_groups.h>, which (CUDA 12, through libcu++'s type traits) brings in
    # cuda_fp16.h and cuda_bf16.h. An __nv_bfloat162 is 4 bytes, an __half 2.
    res, fa = _check(tmp_path, """
        #include <cooperative_groups.h>
        __global__ void k(__nv_bfloat162 *out, __half *h) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            out[i] = __halves2bfloat162(__float2bfloat16(1.0f), __float2bfloat16(2.0f));
            h[i] = __float2half(3.0f);
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    assert _accesses(fa) == [("out", "store", False, 4, 4), ("h", "store", False, 2, 2)]


def test_a_name_from_a_missing_header_names_the_header(tmp_path):
    # HeCBench slu, sptrsv, miniDGS, layernorm, ...: the type or macro lives in a header the
    # checked directory lacks (nvcc fails as well: "symbolic.h: No such file"). The CL000 says
    # which #include was not found, not only that a name is undeclared.
    res, fa = _check(tmp_path, """
        #include "symbolic.h"
        #include <thirdparty/config.h>
        __global__ void k(REAL *x) { x[threadIdx.x] = 0; }""")
    [d] = [d for d in res.diagnostics if d.code == "CL000"]
    assert d.message.startswith("kernel `k` not analysed: unknown type name 'REAL' "
                                "(not found: <symbolic.h>, <thirdparty/config.h>; pass the -I/-D")
    # without a missing header, the hint stays the general one
    res, fa = _check(tmp_path, "__global__ void k(REAL *x) { x[threadIdx.x] = 0; }", name="k2.cu")
    [d] = [d for d in res.diagnostics if d.code == "CL000"]
    assert "(defined elsewhere? pass the -I/-D" in d.message


def test_thrust_complex_in_a_kernel(tmp_path):
    # HeCBench tsne (nbodyfft.cu): thrust::complex<float> arithmetic in device code, and
    # debug_utils.cu printing one to a std::ofstream. A complex<float> is 8 bytes.
    res, fa = _check(tmp_path, """
        #include <thrust/complex.h>
        #include <fstream>
        __global__ void k(const float *in, thrust::complex<float> *out, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            thrust::complex<float> sum, w(cosf(in[i]), sinf(in[i]));
            for (int j = 0; j < n; ++j) sum += w * 2.0f;
            out[i] = sum + thrust::exp(w) - thrust::conj(w) / thrust::abs(w);
        }
        void dump(std::ofstream &f, const thrust::complex<float> &z) { f << z << z.real(); }""",
        block=(256, 1, 1))
    _analysed(res, fa)
    assert [x for x in _accesses(fa) if x[0] == "out"] == [("out", "store", False, 8, 8)]


def test_a_name_after_an_hash_error_names_the_error(tmp_path):
    # HeCBench frna/prna: int.h stops with `#error Must define one of SHORT, INT, or LONG` unless
    # the build passes -DINT (nvcc fails the same way); the kernel's CL000 then says so.
    (tmp_path / "int.h").write_text("#if defined(INT)\ntypedef int int_t;\n#else\n"
                                    "#error Must define one of SHORT, INT, or LONG\n#endif\n")
    src = '#include "int.h"\n__global__ void k(int_t *x) { x[threadIdx.x] = 0; }\n'
    res, fa = _check(tmp_path, src)
    [d] = [d for d in res.diagnostics if d.code == "CL000"]
    assert d.message.startswith("kernel `k` not analysed: unknown type name 'int_t' (#error at int.h:4: "
                                "Must define one of SHORT, INT, or LONG; pass the -I/-D")
    res, fa = _check(tmp_path, src, name="k2.cu", defines=["INT"])
    _analysed(res, fa)
    assert _accesses(fa) == [("x", "store", False, 4, 4)]


def test_half2_and_bfloat162_assigned_empty_braces(tmp_path):
    # HeCBench quant3MatMul: `res2 = {};` on a half2, which nvcc accepts; with an assignment from
    # __half2_raw besides the copy/move ones, clang found `= {}` ambiguous. Assigning a raw value
    # still works (through the converting constructor).
    res, fa = _check(tmp_path, """
        #include <cuda_fp16.h>
        #include <cuda_bf16.h>
        __global__ void k(half2 *o, __nv_bfloat162 *b, __half2_raw r, __nv_bfloat162_raw br) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            half2 x; x = {}; x = r;
            __nv_bfloat162 y; y = {}; y = br;
            o[i] = x;
            b[i] = y;
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    assert _accesses(fa) == [("o", "store", False, 4, 4), ("b", "store", False, 4, 4)]


def test_cuda_h_brings_stdint(tmp_path):
    # HeCBench merkle (ff_p.hpp): uint64_t with only <cuda.h> included; CUDA's cuda.h includes
    # <stdint.h> (and types cuuint64_t as uint64_t).
    res, fa = _check(tmp_path, """
        #include <cuda.h>
        static_assert(sizeof(cuuint64_t) == 8, "");
        __global__ void k(uint64_t *x) { x[blockIdx.x * blockDim.x + threadIdx.x] += 1; }""",
        block=(256, 1, 1))
    _analysed(res, fa)
    assert _accesses(fa) == [("x", "load", False, 8, 8), ("x", "store", False, 8, 8)]


def test_thrust_tie_assigned_in_a_kernel(tmp_path):
    # HeCBench rowwiseMoments: `thrust::tie(m1, m2) = op.project(v)` in device code, with
    # project() returning a thrust::pair. thrust::tie was std::tie, whose tuple assignments are
    # host-only before C++20: "no viable overloaded '='" and the kernel was CL000. Thrust's own
    # tuple of references is __host__ __device__. Thread i stores 4-byte floats at out[i] and
    # out[n + i]: 4 sectors each, all used.
    res, fa = _check(tmp_path, """
        #include <thrust/pair.h>
        #include <thrust/tuple.h>
        __device__ thrust::pair<float, float> split(float v) { return thrust::pair<float, float>(v, 2.0f * v); }
        __global__ void k(const float *in, float *out, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            float a, b;
            thrust::tie(a, b) = split(in[i]);
            out[i] = a;
            out[n + i] = b;
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    assert [x for x in _accesses(fa) if x[0] == "out"] == [("out", "store", False, 4, 4)] * 2


def test_programmatic_dependent_launch_and_fp4(tmp_path):
    # ggml-cuda common.cuh: every kernel begins with ggml_cuda_pdl_sync(), which on sm_90 calls
    # cudaGridDependencySynchronize() (and ends with cudaTriggerProgrammaticLaunchCompletion());
    # vendors/cuda.h includes <cuda_fp4.h> for CUDART >= 12.8 (quantize.cu: __nv_fp4x4_e2m1 from
    # a float4, 2 bytes) and common.cuh converts an E8M0 scale with __nv_cvt_e8m0_to_bf16raw.
    # Neither PDL call is a barrier among a block's threads: the shared tile below is written
    # and read by the same thread only, so no CL6xx. 32 lanes storing 2-byte fp4x4 at out[i]:
    # 64 contiguous bytes = 2 sectors.
    res, fa = _check(tmp_path, """
        #include <cuda_fp4.h>
        #include <cuda_fp8.h>
        __global__ void k(const float4 *in, const unsigned char *e, __nv_fp4x4_e2m1 *out) {
            __shared__ float s[256];
            cudaGridDependencySynchronize();
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            s[threadIdx.x] = (float)(__nv_bfloat16)__nv_cvt_e8m0_to_bf16raw(e[i]);
            const float4 v = in[i];
            const float f = s[threadIdx.x];
            out[i] = __nv_fp4x4_e2m1(make_float4(v.x * f, v.y * f, v.z * f, v.w * f));
            const __half2_raw h = __nv_cvt_fp4x2_to_halfraw2((__nv_fp4x2_storage_t)out[i].__x, __NV_E2M1);
            (void)h;
            cudaTriggerProgrammaticLaunchCompletion();
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    assert [x for x in _accesses(fa) if x[0] == "out" and x[1] == "store"] == \
        [("out", "store", False, 2, 2)]
    assert not [d for d in res.diagnostics if d.code.startswith("CL6")]


def test_device_classification_helpers(tmp_path):
    # ggml-cuda topk-moe.cu: `if (__isnanf(wt[i])) wt[i] = -FLT_MAX;` in a kernel. CUDA's
    # math_functions.h declares __isnanf/__isinff/__finitef/__signbitf (and the double ones) for
    # the device; glibc declares host-only ones of the same names, so the call was "no matching
    # function" and every instantiation of the kernel CL000. 32 lanes storing floats at w[i]:
    # 4 sectors; doubles at d[i]: 8.
    res, fa = _check(tmp_path, """
        #include <cmath>
        #include <cfloat>
        __global__ void k(float *w, double *d) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (__isnanf(w[i]) || __isinff(w[i]) || !__finitef(w[i]) || __signbitf(w[i])) w[i] = -FLT_MAX;
            if (__isnan(d[i]) || __isinf(d[i]) || !__finite(d[i]) || __signbit(d[i])) d[i] = 0.0;
        }
        int host(float x) { return __isnanf(x); }""", block=(256, 1, 1))
    _analysed(res, fa)
    assert [x for x in _accesses(fa) if x[1] == "store"] == [("w", "store", False, 4, 4),
                                                             ("d", "store", False, 8, 8)]


def test_narrowing_braced_initializer(tmp_path):
    # Parboil histo_final_kernel: `uchar4 u = {s.x, s.y, s.z, s.w}` of an ushort4. A narrowing
    # of non-constants in a braced initializer: nvcc (EDG) and g++ warn, clang rejected it
    # ("non-constant-expression cannot be narrowed"). Each thread loads one 8-byte ushort4
    # (32 lanes x 8 B = 256 B = 8 sectors) and stores one 4-byte uchar4 (128 B = 4 sectors).
    res, fa = _check(tmp_path, """
        __global__ void k(const ushort4 *in, uchar4 *out) {
            unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
            ushort4 s = in[i];
            uchar4 u = {s.x, s.y, s.z, s.w};
            out[i] = u;
        }""", block=(256, 1, 1))
    _analysed(res, fa)
    assert _accesses(fa) == [("in", "load", False, 8, 8), ("out", "store", False, 4, 4)]


def test_method_call_on_a_shared_struct_reads_none_of_it(tmp_path):
    # Parboil bfs: `local_q.reset(threadIdx.x)` and `local_q.size_prefix_sum(prefix_q)` on a
    # __shared__ struct of 12,864 bytes. The call passes the object's address as `this`: it
    # reads nothing of it by itself. It was lowered as the object's value, a 12,864-byte shared
    # load per call (split into 3,216 word requests: seconds of work), and the method's
    # parameters were bound one argument off (`p` took the struct). By hand: the method's only
    # access is p[threadIdx.x % 8] of the 8-int array `pre`, a store by 32 lanes over 8 words
    # (4 lanes per word, the same word: no conflict), 1 wavefront; nothing of `q` is read.
    res, fa = _check(tmp_path, """
        struct Q {
            int tail[8];
            int elems[8][400];
            __device__ void mark(int (&p)[8]) { p[threadIdx.x % 8] = 1; }
        };
        __global__ void k(int *out) {
            __shared__ Q q;
            __shared__ int pre[8];
            q.mark(pre);
            __syncthreads();
            out[threadIdx.x] = pre[threadIdx.x % 8];
        }""", block=(32, 1, 1))
    _analysed(res, fa)
    shared = sorted((a.array, a.kind, a.element_bytes, a.index, a.wavefronts_per_request)
                    for k in fa.kernels for a in k.accesses if a.space == "shared")
    assert shared == [("pre", "load", 4, "Mod(threadIdx.x, 8)", 1),
                      ("pre", "store", 4, "Mod(threadIdx.x, 8)", 1)]
