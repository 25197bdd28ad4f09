"""Messages name what the user wrote: the caller's array for an access inside a helper, the
user's variables instead of the symbolic walk's markers, a quote from the access's own file."""
from __future__ import annotations

import re
import textwrap

from cudalint.analyzer.display import user_text
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.rules.runner import CheckOptions, check_file

INTERNAL = re.compile(r"~L\d|@entry|@exit|@warp|trips_L\d|\?[A-Za-z_]")


def test_user_text_drops_the_walks_markers():
    assert user_text("4*stride~L65_2 + threadIdx.x") == "4*stride + threadIdx.x"
    assert user_text("x@entry + y@exit_L12") == "x + y"
    assert user_text("?a_gl_rd~L63(threadIdx.x, threadIdx.y)") == "a_gl_rd(threadIdx.x, threadIdx.y)"
    assert user_text("atomicAggInc[threadIdx.x]") == "atomicAggInc(...)"
    assert user_text("fbrPtr1@warp[] + 1") == "fbrPtr1[...] + 1"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_access_in_a_helper_is_named_by_the_callers_array(tmp_path):
    hdr = _write(tmp_path, "vec.cuh", """
        struct alignas(16) f4 { float v[4]; };
        __device__ f4 load4(const float* address) { return *reinterpret_cast<const f4*>(address); }
        """)
    src = _write(tmp_path, "k.cu", f"""
        #include "{hdr.name}"
        __global__ void scale(const float* inp, float* out) {{
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            f4 a = load4(inp + 4 * i);
            out[i] = a.v[0] + a.v[3];
        }}
        """)
    fa = analyze_file(str(src), AnalysisOptions(use_ptxas=False, block=(256, 1, 1)))
    tab = fa.kernels[0].accesses
    loads = [a for a in tab if a.kind == "load"]
    assert [a.array for a in loads] == ["inp"]  # not the helper's parameter `address`
    # one 16-byte access (alignas(16)): 32 lanes x 16 B = 16 sectors, the minimum, no split
    assert loads[0].element_bytes == 16 and loads[0].sectors_per_request == 16
    assert loads[0].pattern == "coalesced"


def test_loop_carried_values_are_named_as_written(tmp_path):
    src = _write(tmp_path, "k.cu", """
        __global__ void steps(float* data, int n)
        {
            __shared__ float s[1024];
            int stride = 1;
            s[threadIdx.x] = data[threadIdx.x];
            for (int d = 0; d < n; d++) {
                __syncthreads();
                s[threadIdx.x * stride * 2] += s[threadIdx.x * stride * 2 + stride];
                stride = stride * 2;
            }
            data[threadIdx.x] = s[threadIdx.x];
        }
        """)
    result, fa = check_file(str(src), AnalysisOptions(use_ptxas=False, block=(256, 1, 1)), CheckOptions())
    tab = fa.kernels[0].accesses
    texts = [a.index for a in tab] + [n for a in tab for n in a.assumptions + [a.why]]
    texts += [d.message for d in result.diagnostics]
    assert texts and not [t for t in texts if INTERNAL.search(t)], texts
