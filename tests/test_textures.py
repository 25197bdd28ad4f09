"""Texture and surface memory, and the read-only path (issue 18): the access facts (space,
coordinates, per-warp pattern, backing memory, path), the CGMA count of fetches, the rules'
facts, and validate's refusal. Expected values are worked out by hand in each test."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file, needed_facts
from cudalint.cli import app
from cudalint.commands import validate as V
from cudalint.commands.validate_plan import PlanError, build_plan

runner = CliRunner()


def _analyze(tmp_path: Path, src: str, **opts):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False, **opts))
    assert fa.error is None, fa.error
    return fa


def _kernel(fa, name):
    return next(k for k in fa.kernels if k.function.name == name)


def _rows(k, array=None, space=None):
    return [a for a in k.accesses.to_json()
            if (array is None or a["array"] == array) and (space is None or a["space"] == space)]


ISSUE = """
__global__ void k(float *out, const float *in, cudaTextureObject_t tex, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(tex, i) + __ldg(&in[2 * i]);
}
void run(float *o, float *in, cudaTextureObject_t t) { k<<<4, 256>>>(o, in, t, 1024); }
"""


def test_issue_example_json(tmp_path):
    """The issue's line: the fetch is a texture access with its coordinate and a contiguous
    warp pattern; __ldg keeps its stride-2 global analysis (2 x 32 lanes x 4 B = 256 B over
    8 sectors, 50%) and is marked read-only; the CGMA counts the fetch as a load."""
    fa = _analyze(tmp_path, ISSUE)
    k = _kernel(fa, "k")
    [t] = _rows(k, "tex")
    assert t["space"] == "texture" and t["kind"] == "load" and t["element_bytes"] == 4
    assert t["index"] == "(256*blockIdx.x + threadIdx.x)"
    assert t["pattern"] == "contiguous" and t["texels_per_request"] == 32 and t["footprint"] == [32]
    assert t["backing"] is None and t["filter_mode"] is None
    assert "path" not in t
    [g] = _rows(k, "in")
    assert g["space"] == "global" and g["path"] == "read-only"
    assert g["pattern"] == "strided" and g["stride"] == 2
    assert g["sectors_per_request"] == 8 and g["efficiency"] == 0.5
    [o] = _rows(k, "out")
    assert "path" not in o
    c = k.cgma.to_json()
    assert c["global_loads"] == 2 and c["global_stores"] == 1  # fetch + __ldg; out
    notes = " ".join(c.get("assumptions", []))
    assert "tex1Dfetch() not counted" not in notes
    # tex1Dfetch is never filtered: no filter-mode assumption either
    assert "filter mode" not in notes
    # the texture object's memory row
    v = next(v for v in k.variables if v.name == "tex")
    assert v.memory == "texture"


def test_explain_text_lists_the_fetch(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(ISSUE))
    r = runner.invoke(app, ["explain", str(p)])
    assert r.exit_code == 0, r.output
    row = next(l for l in r.output.splitlines() if " tex " in l and "texture" in l)
    assert "load" in row and "contiguous" in row and "(256*blockIdx.x + threadIdx.x)" in row
    assert "call of tex1Dfetch() not counted" not in r.output
    js = runner.invoke(app, ["explain", str(p), "--output-format", "json"])
    doc = json.loads(js.output)
    spaces = {a["array"]: a["space"] for a in doc["files"][0]["kernels"][0]["accesses"]}
    assert spaces == {"tex": "texture", "in": "global", "out": "global"}


FILTERS = """
__global__ void f(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                  cudaTextureObject_t tl, cudaTextureObject_t tc, cudaTextureObject_t tp, float *o) {
  int x = threadIdx.x;
  float4 a = tex1D<float4>(t1, x), b = tex2D<float4>(t2, x, 0), c = tex3D<float4>(t3, x, 0, 0);
  float4 d = tex2DLayered<float4>(tl, x, 0, 1), e = texCubemap<float4>(tc, x, 0, 0);
  float4 f = tex2D<float4>(tp, x, 0);
  o[x] = a.x;
}
static void mk(cudaTextureObject_t *t, cudaArray_t a, int linear) {
  cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaTextureDesc d = {}; d.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  cudaCreateTextureObject(t, &r, &d, 0);
}
int main() {
  cudaChannelFormatDesc c = cudaCreateChannelDesc<float4>(); cudaArray_t a; float *o;
  cudaMallocArray(&a, &c, 64, 64); cudaMalloc(&o, 256);
  cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaTextureDesc lin = {}; lin.filterMode = cudaFilterModeLinear;
  cudaTextureDesc pt = {}; pt.filterMode = cudaFilterModePoint;
  cudaTextureObject_t t1, t2, t3, tl, tc, tp;
  cudaCreateTextureObject(&t1, &r, &lin, 0); cudaCreateTextureObject(&t2, &r, &lin, 0);
  cudaCreateTextureObject(&t3, &r, &lin, 0); cudaCreateTextureObject(&tl, &r, &lin, 0);
  cudaCreateTextureObject(&tc, &r, &lin, 0); cudaCreateTextureObject(&tp, &r, &pt, 0);
  f<<<1, 32>>>(t1, t2, t3, tl, tc, tp, o);
}
"""


def test_filtered_fetches_count_their_texels(tmp_path):
    """Linear filtering reads 2 (1-D), 4 (2-D), 8 (3-D), 4 (a layer of a 2-D layered texture),
    4 (a cubemap face) texels; a point-filtered float4 fetch is one 16-byte access:
    2 + 4 + 8 + 4 + 4 + 1 = 23 loads of 16 bytes each, plus the store of o[x]."""
    fa = _analyze(tmp_path, FILTERS)
    k = _kernel(fa, "f")
    c = k.cgma.to_json()
    assert c["global_loads"] == 23 and c["global_stores"] == 1
    assert {a["array"]: a["filter_mode"] for a in _rows(k, space="texture")} == {
        "t1": "linear", "t2": "linear", "t3": "linear", "tl": "linear", "tc": "linear", "tp": "point"}
    # bytes: 23 texels x 16 B + 4 B stored, over 24 accesses
    assert abs(c["bytes_per_access"] - (23 * 16 + 4) / 24) < 1e-3


def test_unknown_filter_mode_is_said(tmp_path):
    fa = _analyze(tmp_path, """
    __global__ void g(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex2D<float>(t, threadIdx.x, 0); }
    """)
    k = _kernel(fa, "g")
    c = k.cgma.to_json()
    assert c["global_loads"] == 1
    assert any("filter mode of `t` unknown" in a and "1 texel" in a for a in c["assumptions"])
    [t] = _rows(k, "t")
    assert any("not shown by the host code" in n for n in t["assumptions"])


BACKINGS = """
texture<float, 1> ref_lin;
texture<float, 2> ref_arr;
__global__ void b(cudaTextureObject_t tp, cudaTextureObject_t tl, float *o) {
  int x = threadIdx.x;
  o[x] = tex2D<float>(tp, x, 0) + tex1Dfetch<float>(tl, x) + tex1Dfetch(ref_lin, x) + tex2D(ref_arr, x, 0);
}
int main() {
  float *p, *l, *o; size_t pitch; cudaArray_t arr;
  cudaChannelFormatDesc c = cudaCreateChannelDesc<float>();
  cudaMallocPitch((void **)&p, &pitch, 256, 16);
  cudaMalloc(&l, 1024); cudaMalloc(&o, 1024);
  cudaMallocArray(&arr, &c, 16, 16);
  cudaResourceDesc r1 = {}; r1.resType = cudaResourceTypePitch2D; r1.res.pitch2D.devPtr = p;
  r1.res.pitch2D.pitchInBytes = pitch;
  cudaResourceDesc r2 = {}; r2.resType = cudaResourceTypeLinear; r2.res.linear.devPtr = l;
  cudaTextureDesc d = {};
  cudaTextureObject_t tp, tl;
  cudaCreateTextureObject(&tp, &r1, &d, 0); cudaCreateTextureObject(&tl, &r2, &d, 0);
  cudaBindTexture(0, ref_lin, l, 1024);
  cudaBindTextureToArray(ref_arr, arr, c);
  b<<<1, 32>>>(tp, tl, o);
}
"""


def test_backing_memory_is_named(tmp_path):
    fa = _analyze(tmp_path, BACKINGS)
    k = _kernel(fa, "b")
    back = {a["array"]: a["backing"] for a in _rows(k) if a["space"] == "texture"}
    assert back["tp"].startswith("pitch2D over `p`: pitch-linear memory, cudaMallocPitch at line 11")
    assert back["tl"].startswith("linear over `l`: linear memory, cudaMalloc at line 12")
    assert back["ref_lin"] == ("linear over `l`: linear memory, cudaMalloc at line 12; "
                               "cudaBindTexture at line 20")
    assert back["ref_arr"] == ("array over `arr`: 2-D CUDA array, cudaMallocArray at line 13; "
                               "cudaBindTextureToArray at line 21")
    mems = {v.name: v.memory for v in k.variables}
    assert mems["tp"] == "texture" and mems["ref_lin"] == "texture" and mems["ref_arr"] == "texture"


def test_helper_function_fetch_resolves_the_kernel_parameter(tmp_path):
    """A fetch inside an inlined __device__ helper is the kernel parameter's texture, so its
    binding (linear filter: 4 texels) is found."""
    fa = _analyze(tmp_path, """
    __device__ float at(cudaTextureObject_t t, int x, int y) { return tex2D<float>(t, x + 0.5f, y + 0.5f); }
    __global__ void h(cudaTextureObject_t img, float *o) { o[threadIdx.x] = at(img, threadIdx.x, 0); }
    int main() {
      cudaArray_t a; cudaChannelFormatDesc c = cudaCreateChannelDesc<float>(); float *o;
      cudaMallocArray(&a, &c, 64, 64); cudaMalloc(&o, 128);
      cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = a;
      cudaTextureDesc d = {}; d.filterMode = cudaFilterModeLinear;
      cudaTextureObject_t img; cudaCreateTextureObject(&img, &r, &d, 0);
      h<<<1, 32>>>(img, o);
    }
    """)
    k = _kernel(fa, "h")
    [t] = _rows(k, space="texture")
    assert t["array"] == "img" and t["filter_mode"] == "linear" and t["pattern"] == "row"
    assert k.cgma.to_json()["global_loads"] == 4


def test_surface_byte_coordinates(tmp_path):
    """Surfaces take x in bytes: `x * 4` for floats walks 32 texels; `x` alone puts 4 lanes
    on each texel (8 texels per warp) and the note says to multiply by 4."""
    fa = _analyze(tmp_path, """
    __global__ void s(cudaSurfaceObject_t s) {
      int x = threadIdx.x;
      surf1Dwrite(1.0f, s, x * 4);
      surf1Dwrite(2.0f, s, x);
      float v = surf2DLayeredread<float>(s, x * 4, 0, 3);
      surf2DLayeredwrite(v, s, x * 4, 0, 2);
    }
    """, block=(32, 1, 1))
    k = _kernel(fa, "s")
    rows = _rows(k, "s")
    assert [r["kind"] for r in rows] == ["store", "store", "load", "store"]
    assert all(r["space"] == "surface" for r in rows)
    good, bad, layered_read, layered_write = rows
    assert good["pattern"] == "contiguous" and good["texels_per_request"] == 32
    assert bad["texels_per_request"] == 8
    assert any("differ by less than a 4-byte texel" in n for n in bad["assumptions"])
    assert layered_read["index"] == "(4*threadIdx.x, 0, layer=3)"
    assert layered_write["pattern"] == "row" and layered_write["footprint"] == [32, 1]
    # surface accesses are never served from a register
    assert all(r["issued"] for r in rows)


def test_normalised_coordinates_step_one_texel(tmp_path):
    fa = _analyze(tmp_path, """
    __global__ void n(cudaTextureObject_t t, float *o, int w) {
      int x = threadIdx.x;
      o[x] = tex2D<float>(t, (x + 0.5f) / w, 0.5f);
    }
    """, block=(32, 1, 1), params={"w": 512})
    [t] = _rows(_kernel(fa, "n"), "t")
    assert t["pattern"] == "row" and t["texels_per_request"] == 32
    assert any("normalised coordinates" in n for n in t["assumptions"])


def test_data_dependent_fetch(tmp_path):
    fa = _analyze(tmp_path, """
    __global__ void d(cudaTextureObject_t t, const int *idx, float *o) {
      o[threadIdx.x] = tex1Dfetch<float>(t, idx[threadIdx.x]);
    }
    """)
    [t] = _rows(_kernel(fa, "d"), "t")
    assert t["pattern"] == "data-dependent"


def test_fetched_value_as_index_is_data_dependent(tmp_path):
    fa = _analyze(tmp_path, """
    __global__ void e(cudaTextureObject_t t, float *o) {
      int j = tex1Dfetch<int>(t, threadIdx.x);
      o[j] = 1.0f;
    }
    """)
    [o] = _rows(_kernel(fa, "e"), "o")
    assert o["pattern"] == "data-dependent"


def test_cl615_reads_access_facts():
    assert "accesses" in needed_facts(["CL615"])
    assert "accesses" not in needed_facts(["CL601"])


def test_validate_refuses_texture_kernels(tmp_path, monkeypatch):
    fa = _analyze(tmp_path, ISSUE)
    k = _kernel(fa, "k")
    try:
        build_plan(k)
    except PlanError as e:
        msg = str(e)
    else:
        raise AssertionError("a texture kernel was planned")
    assert "takes texture/surface objects (`tex`)" in msg and "not run" in msg
    # through the command: a clear message and exit 2, no traceback
    monkeypatch.setattr(V, "gpu_environment", lambda: (None, {"major": 9, "minor": 0, "name": "fake"}))
    p = tmp_path / "k.cu"
    r = runner.invoke(app, ["validate", str(p), "--kernel", "k"])
    assert r.exit_code == 2
    assert r.exception is None or isinstance(r.exception, SystemExit)
    out = r.output + (getattr(r, "stderr", "") or "")
    assert "texture/surface objects" in out and "Traceback" not in out


def test_validate_refuses_legacy_references(tmp_path):
    fa = _analyze(tmp_path, """
    texture<float, 1> lut;
    __global__ void l(float *o) { o[threadIdx.x] = tex1Dfetch(lut, threadIdx.x); }
    """)
    try:
        build_plan(_kernel(fa, "l"), sizes={"o": 256})
    except PlanError as e:
        assert "reads texture/surface references (`lut` in `tex1Dfetch`)" in str(e)
    else:
        raise AssertionError("a texture-reference kernel was planned")


def test_sobel_like_strided_walk(tmp_path):
    """Distilled from cuda-samples' SobelFilter (SobelShared): each thread of a 16x4 block
    reads 4 neighbouring pixels, x = 4 * threadIdx.x + c. A warp (two rows of 16 threads)
    reads texels 0, 4, ..., 60 (+c) of two rows: stride 4, a 61x2 box, 32 texels."""
    fa = _analyze(tmp_path, """
    __global__ void sobel(cudaTextureObject_t tex, unsigned char *o, int w) {
      int u = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
      int v = blockIdx.y * blockDim.y + threadIdx.y;
      o[v * w + u] = tex2D<unsigned char>(tex, u + 1, v);
    }
    """, block=(16, 4, 1))
    [t] = _rows(_kernel(fa, "sobel"), "tex")
    assert t["pattern"] == "strided" and t["stride"] == 4
    assert t["footprint"] == [61, 2] and t["texels_per_request"] == 32
    assert t["element_bytes"] == 1


def test_float_scale_of_unknown_value_is_unknown(tmp_path):
    """Distilled from bicubicTexture's d_render: `x * scale` with a float `scale` known only at
    run time: the warp's spread cannot be known (it is not a broadcast)."""
    fa = _analyze(tmp_path, """
    __global__ void render(cudaTextureObject_t tex, float *o, float scale) {
      int x = threadIdx.x;
      o[x] = tex2D<float>(tex, x * scale + 0.5f, 0.5f);
    }
    """, block=(32, 1, 1))
    [t] = _rows(_kernel(fa, "render"), "tex")
    assert t["pattern"] == "unknown"
    assert any("scaled by `scale`" in n for n in t["assumptions"])
    fa = _analyze(tmp_path, """
    __global__ void rot(cudaTextureObject_t tex, float *o, float theta) {
      int x = threadIdx.x;
      o[x] = tex2D<float>(tex, x * cosf(theta), x * sinf(theta));
    }
    """, block=(32, 1, 1))
    [t] = _rows(_kernel(fa, "rot"), "tex")
    assert t["pattern"] == "unknown"
    assert any("scaled by `cosf(theta)`" in n or "scaled by `sinf(theta)`" in n for n in t["assumptions"])


def test_lod_grad_and_layered_forms_of_both_apis(tmp_path):
    """The Lod/Grad/layered intrinsics of objects and references are accesses too: each reads
    one texel per lane (no filtering shown), so 6 loads; the two layered surface writes are
    stores; the layer is part of the index."""
    fa = _analyze(tmp_path, """
    texture<float, cudaTextureType2DLayered> lay;
    texture<float, 2> ref;
    surface<void, cudaSurfaceType2DLayered> sl;
    __global__ void forms(cudaTextureObject_t t, cudaSurfaceObject_t s, float *o) {
      int x = threadIdx.x;
      float a = tex2DGrad<float>(t, x, 0, make_float2(1, 0), make_float2(0, 1));
      float b = tex2DLayeredLod<float>(t, x, 0, 1, 0.0f);
      float c = tex1DLayeredGrad<float>(t, x, 2, 1.0f, 1.0f);
      float d = tex2DLayered(lay, x, 0, 3);
      float e = tex2DGrad(ref, x, 0, make_float2(1, 0), make_float2(0, 1));
      float f = tex2DLod(ref, x, 0, 0.0f);
      surf2DLayeredwrite(a + b + c, s, x * 4, 0, 1);
      surf2DLayeredwrite(d + e + f, sl, x * 4, 0, 2);
      o[x] = a;
    }
    """, block=(32, 1, 1))
    k = _kernel(fa, "forms")
    tex = _rows(k, space="texture")
    assert [r["array"] for r in tex] == ["t", "t", "t", "lay", "ref", "ref"]
    assert all(r["pattern"] in ("row", "contiguous") and r["texels_per_request"] == 32 for r in tex)
    assert tex[3]["index"] == "(threadIdx.x, 0, layer=3)"
    surf = _rows(k, space="surface")
    assert [(r["array"], r["kind"]) for r in surf] == [("s", "store"), ("sl", "store")]
    c = k.cgma.to_json()
    assert c["global_loads"] == 6 and c["global_stores"] == 3


def test_own_function_named_like_an_intrinsic_is_not_a_fetch(tmp_path):
    """A program's own __device__ tex2D (an emulation over a global array) is inlined like any
    function: its global load is listed, no texture access is invented."""
    fa = _analyze(tmp_path, """
    struct Img { const float *p; int w; };
    __device__ float tex2D(Img im, int x, int y) { return im.p[y * im.w + x]; }
    __global__ void own(Img im, float *o) { o[threadIdx.x] = tex2D(im, threadIdx.x, 0); }
    """, block=(32, 1, 1))
    k = _kernel(fa, "own")
    assert not _rows(k, space="texture")
    assert {r["space"] for r in _rows(k)} == {"global"}
    mems = {v.name: v.memory for v in k.variables}
    assert mems["im"] == "constant"


def _codes(tmp_path, src, **opts):
    from cudalint.rules.runner import CheckOptions, check_file
    p = tmp_path / "c.cu"
    p.write_text(textwrap.dedent(src))
    result, _ = check_file(str(p), AnalysisOptions(use_ptxas=False, **opts), CheckOptions())
    return sorted((d.location.line, d.code) for d in result.diagnostics
                  if d.code in ("CL615", "CL110", "CL111"))


def test_legacy_references_rules(tmp_path):
    """CL615 through legacy references: texRef and surfRef bound to the same CUDA array, and a
    reference bound with cudaBindTexture to the buffer the kernel stores into; CL110 through
    cudaBindTexture over cudaMallocPitch memory read with tex1Dfetch only."""
    got = _codes(tmp_path, """
    texture<float, 2> img;
    surface<void, 2> out;
    texture<float, 1> lin;
    texture<float, 1> pitched;
    __global__ void blur(int w) {
      int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
      surf2Dwrite(tex2D(img, x + 1.5f, y + 0.5f), out, x * 4, y);
    }
    __global__ void relax(float *o) {
      int i = threadIdx.x + 1;
      o[i] = tex1Dfetch(lin, i - 1) + tex1Dfetch(pitched, i);
    }
    int main() {
      cudaChannelFormatDesc c = cudaCreateChannelDesc<float>(); cudaArray_t a;
      cudaMallocArray(&a, &c, 64, 64, cudaArraySurfaceLoadStore);
      cudaBindTextureToArray(img, a, c);
      cudaBindSurfaceToArray(out, a, c);
      float *buf, *p; size_t pitch;
      cudaMalloc(&buf, 4096);
      cudaMallocPitch((void **)&p, &pitch, 256, 16);
      cudaBindTexture(0, lin, buf, 4096);
      cudaBindTexture(0, pitched, p, pitch * 16);
      blur<<<dim3(2, 64), 32>>>(64);
      relax<<<1, 32>>>(buf);
    }
    """)
    assert got == [(8, "CL615"), (12, "CL615"), (23, "CL110")]  # line 1 is the blank after """


def test_layered_flags_combined(tmp_path):
    fa = _analyze(tmp_path, """
    __global__ void k(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex2DLayered<float>(t, threadIdx.x, 0, 1); }
    int main() {
      cudaChannelFormatDesc c = cudaCreateChannelDesc<float>(); cudaArray_t a; float *o;
      cudaMalloc3DArray(&a, &c, make_cudaExtent(64, 64, 4), cudaArrayLayered | cudaArraySurfaceLoadStore);
      cudaMalloc(&o, 256);
      cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = a;
      cudaTextureDesc d = {};
      cudaTextureObject_t t; cudaCreateTextureObject(&t, &r, &d, 0);
      k<<<1, 32>>>(t, o);
    }
    """)
    [t] = _rows(_kernel(fa, "k"), "t")
    assert t["backing"].startswith("array over `a`: layered CUDA array, cudaMalloc3DArray at line 5")


def test_explain_text_marks_the_load_path(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent("""
    __global__ void k(const float * __restrict__ a, const float *b, float *o) {
      int i = threadIdx.x;
      o[i] = a[i] + __ldg(&b[i]) + __ldcs(&b[i + 32]);
    }
    """))
    r = runner.invoke(app, ["explain", str(p), "--block", "32"])
    assert r.exit_code == 0, r.output
    rows = {l.split()[1]: l for l in r.output.splitlines() if l.strip()[:1].isdigit() and " global " in l}
    assert "load (read-only?)" in rows["a"]
    assert "store" in rows["o"] and "(read-only" not in rows["o"]
    b_rows = [l for l in r.output.splitlines() if " b " in l and " global " in l]
    assert any("load (read-only)" in l for l in b_rows) and any("load (ld.cs)" in l for l in b_rows)
    assert "the compiler may route it through the read-only (texture) cache" in r.output


def test_editor_label_and_hover_for_texture_and_path(tmp_path):
    from cudalint.commands.editor_render import access_label, access_markdown
    fa = _analyze(tmp_path, BACKINGS)
    k = _kernel(fa, "b")
    tp = next(a for a in _rows(k) if a["array"] == "tp")
    assert access_label(tp) == "row 32x1"
    hover = access_markdown(tp, {"name": "b", "json": k.to_json()})
    assert "**texture load of `tp`**" in hover and "- 32 texels per warp request" in hover
    assert "- memory: pitch2D over `p`: pitch-linear memory, cudaMallocPitch at line 11" in hover
    fa = _analyze(tmp_path, ISSUE)
    k = _kernel(fa, "k")
    g = next(a for a in _rows(k) if a["array"] == "in")
    assert "- load path: read-only" in access_markdown(g, {"name": "k", "json": k.to_json()})


def test_value_from_a_per_thread_array_is_not_warp_uniform(tmp_path):
    """Distilled from cuda-samples' marchingCubes (classifyVoxel): a lookup texture indexed by
    flags computed from the thread's own array `field` (`field[0] < iso`). The index is the same
    array element in every lane, but each lane's array holds its own values: the fetch is
    data-dependent, not a broadcast."""
    fa = _analyze(tmp_path, """
    __global__ void classify(cudaTextureObject_t vol, cudaTextureObject_t lut, unsigned *o, float iso) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      float field[2];
      field[0] = tex1Dfetch<float>(vol, i);
      field[1] = tex1Dfetch<float>(vol, i + 1);
      unsigned idx = unsigned(field[0] < iso) + 2 * unsigned(field[1] < iso);
      o[i] = tex1Dfetch<unsigned>(lut, idx);
    }
    """, block=(64, 1, 1))
    [t] = _rows(_kernel(fa, "classify"), "lut")
    assert t["pattern"] == "data-dependent"
