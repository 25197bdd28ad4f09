"""Robustness: property-based fuzzing of the whole check (frontend, analyses, rules, reporters).

Every input -- random token soup, generated kernels (random statements and index
expressions), mutated fixtures, binary data, bad encodings, empty files, huge expressions and
deep nesting -- must give diagnostics or a CL000, within the per-file time limit, and never an
exception or an "internal error" (a bug that check_file turned into CL000).

The full fuzzing runs ~2,000 examples (``CUDALINT_FUZZ_SCALE=0.1`` for a quick run, ``=5`` for a
long one) and is marked ``slow``: CI runs it (``pytest -m slow``), the default ``pytest`` runs
:func:`test_fuzz_smoke`, a sample of every input kind, and the two deterministic limits. Examples are derandomized (the same every run, so CI is stable); set
``CUDALINT_FUZZ_RANDOM=1`` to explore new ones. The parse uses the bundled minimal C/C++
headers instead of the system's (``-nostdinc``): the same frontend, lowering and analyses at a
third of the cost per example.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from cudalint.analyzer.pipeline import AnalysisOptions  # noqa: E402
from cudalint.reporters.github import render_github  # noqa: E402
from cudalint.reporters.sarif import sarif_document  # noqa: E402
from cudalint.reporters.text import render_full  # noqa: E402
from cudalint.rules.diagnostic import SEVERITIES, FileResult  # noqa: E402
from cudalint.rules.runner import CheckOptions, check_file  # noqa: E402

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures").rglob("*.cu"))
SCALE = float(os.environ.get("CUDALINT_FUZZ_SCALE", "1"))
TIME_LIMIT_S = 20.0
AOPTS = AnalysisOptions(extra_args=["-nostdinc", "-nostdinc++"], use_ptxas=False)
COPTS = CheckOptions()
WORKDIR = Path(tempfile.mkdtemp(prefix="cudalint-fuzz-"))
atexit.register(shutil.rmtree, WORKDIR, ignore_errors=True)  # no leftovers in /tmp
CODE_RE = re.compile(r"^CL\d{3}$")


def fuzz_settings(n: int):
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, database=None,
                    derandomize=not os.environ.get("CUDALINT_FUZZ_RANDOM"),
                    suppress_health_check=list(HealthCheck), print_blob=True)


_counter = [0]


def check_bytes(data: bytes, suffix: str = ".cu") -> FileResult:
    _counter[0] += 1
    path = WORKDIR / f"f{_counter[0] % 50}{suffix}"
    path.write_bytes(data)
    t0 = time.monotonic()
    res, _ = check_file(str(path), AOPTS, COPTS, time_limit_s=TIME_LIMIT_S)
    elapsed = time.monotonic() - t0
    assert elapsed < TIME_LIMIT_S + 10, f"took {elapsed:.1f} s"
    assert_sane(res, data)
    return res


def assert_sane(res: FileResult, data: bytes) -> None:
    assert isinstance(res, FileResult)
    for d in res.diagnostics:
        assert CODE_RE.match(d.code), d
        assert d.severity in SEVERITIES, d
        assert d.location.line >= 1 and d.location.column >= 1, d
        assert d.end_location.line >= 1 and d.end_location.column >= 1, d
        assert "internal error" not in d.message, (d.message, data[:3000])
        assert "Traceback" not in d.message
    if res.error:
        assert any(d.code == "CL000" for d in res.diagnostics), res
        assert "internal error" not in res.error, (res.error, data[:3000])
    json.dumps(res.to_json())
    # the reporters must cope with whatever came out
    render_full([res])
    render_github([res])
    json.dumps(sarif_document([res]))


# ------------------------------------------------------------------------------ strategies
TOKENS = [
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "extern", "void", "int",
    "float", "double", "unsigned", "char", "const", "static", "struct", "template", "<", ">",
    "typename", "T", "k", "a", "b", "n", "i", "j", "x", "s", "(", ")", "{", "}", "[", "]", ";",
    ",", "=", "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "!", "~", "?", ":",
    "==", "<=", "+=", "++", "--", "->", ".", "threadIdx.x", "threadIdx.y", "blockIdx.x",
    "blockDim.x", "gridDim.x", "warpSize", "__syncthreads()", "__syncwarp()", "return", "if",
    "else", "for", "while", "do", "break", "continue", "switch", "case", "default", "goto",
    "0", "1", "32", "256", "-1", "0x7fffffff", "1e38f", "3.0f", "'a'", '"s"', "#define",
    "#include", "#if", "#endif", "\n", "/*", "*/", "//", "\\", "<<<", ">>>", "dim3", "sizeof",
    "atomicAdd", "__shfl_down_sync", "0xffffffff", "cudaMalloc", "cudaMemcpy", "#pragma unroll",
    "__launch_bounds__(256)", "asm", "volatile", "auto", "[&]", "operator", "new", "delete",
]

soup = st.lists(st.sampled_from(TOKENS), max_size=120).map(" ".join)

LEAVES = ["threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockDim.x",
          "blockDim.y", "gridDim.x", "n", "v0", "v1", "0", "1", "2", "3", "7", "16", "31", "32",
          "33", "64", "255", "1024", "-1", "-32", "0x7fffffff", "2147483647", "4294967295u",
          "warpSize", "i", "j", "(int)1.5f"]
BINOPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", "==", "!=", "&&", "||"]


def _expr():
    return st.recursive(
        st.sampled_from(LEAVES),
        lambda e: st.one_of(
            st.tuples(e, st.sampled_from(BINOPS), e).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            e.map(lambda x: f"-({x})"), e.map(lambda x: f"!({x})"), e.map(lambda x: f"(int)({x})"),
            e.map(lambda x: f"(int)a[{x}]"), e.map(lambda x: f"(int)s[{x}]"),
            e.map(lambda x: f"(int)t2[{x}][({x}) & 31]"),
            st.tuples(e, e, e).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
            st.tuples(e, e).map(lambda t: f"min({t[0]}, {t[1]})"),
            e.map(lambda x: f"__shfl_down_sync(0xffffffff, {x}, 1)"),
        ),
        max_leaves=12,
    )


EXPR = _expr()


def _stmts(depth: int):
    simple = st.one_of(
        st.tuples(EXPR, EXPR).map(lambda t: f"a[{t[0]}] = {t[1]};"),
        st.tuples(EXPR, EXPR).map(lambda t: f"s[{t[0]}] = {t[1]};"),
        st.tuples(EXPR, EXPR).map(lambda t: f"t2[{t[0]}][threadIdx.x & 31] = {t[1]};"),
        EXPR.map(lambda x: f"v0 = {x};"), EXPR.map(lambda x: f"v1 += {x};"),
        EXPR.map(lambda x: f"{{ int w = {x}; v0 ^= w; }}"),
        EXPR.map(lambda x: f"{{ float loc[8]; loc[({x}) & 7] = 1.0f; v1 += loc[3]; }}"),
        EXPR.map(lambda x: f"atomicAdd(&a[{x}], 1.0f);"),
        st.just("__syncthreads();"), st.just("__syncwarp();"), st.just("return;"),
        st.just("cg[threadIdx.x] = a[0];"),
    )
    if depth <= 0:
        return st.lists(simple, max_size=4)
    inner = st.deferred(lambda: _stmts(depth - 1))
    compound = st.one_of(
        st.tuples(EXPR, inner, inner).map(lambda t: "if (%s) {\n%s\n} else {\n%s\n}" % (t[0], "\n".join(t[1]), "\n".join(t[2]))),
        st.tuples(EXPR, inner).map(lambda t: "for (int i = 0; i < %s; ++i) {\n%s\n}" % (t[0], "\n".join(t[1]))),
        st.tuples(EXPR, inner).map(lambda t: "for (int j = threadIdx.x; j < n; j += %s) {\n%s\n}" % (t[0], "\n".join(t[1]))),
        st.tuples(EXPR, inner).map(lambda t: "while (%s) {\n%s\nbreak;\n}" % (t[0], "\n".join(t[1]))),
        st.tuples(inner).map(lambda t: "#pragma unroll\nfor (int i = 0; i < 4; i++) {\n%s\n}" % "\n".join(t[0])),
    )
    return st.lists(st.one_of(simple, compound), max_size=5)


@st.composite
def kernels(draw):
    body = "\n".join(draw(_stmts(2)))
    smem = draw(st.sampled_from(["256", "32", "1", "1024", "12288", "0x10000"]))
    bounds = draw(st.sampled_from(["", "__launch_bounds__(256) ", "__launch_bounds__(1024, 2) "]))
    launch = draw(st.sampled_from([
        "", "k<<<64, 256>>>(a, n);", "k<<<dim3(8, 8), dim3(16, 16)>>>(a, n);",
        "k<<<n, 33, 100>>>(a, n);", "k<<<1, 2048>>>(a, n);", "k<<<0, 0>>>(a, 0);",
        "k<<<(n + 255) / 256, 256>>>(a, n); cudaDeviceSynchronize();",
    ]))
    return (f"__constant__ float cg[64];\n"
            f"__global__ void {bounds}k(float* a, int n)\n{{\n"
            f"    __shared__ float s[{smem}];\n    __shared__ float t2[32][32];\n"
            f"    int v0 = threadIdx.x; float v1 = 0.0f; int i = 0, j = 1;\n{body}\n    a[threadIdx.x] = v1 + v0;\n}}\n"
            f"void host(float* a, int n) {{ {launch} }}\n")


FIXTURE_TEXTS = [p.read_bytes() for p in FIXTURES]


@st.composite
def mutated_fixture(draw):
    data = bytearray(draw(st.sampled_from(FIXTURE_TEXTS)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "duplicate", "insert", "swap", "truncate", "byte"]))
        n = len(data)
        if n == 0:
            break
        i = draw(st.integers(0, n - 1))
        j = min(n, i + draw(st.integers(1, 80)))
        if op == "delete":
            del data[i:j]
        elif op == "duplicate":
            data[i:i] = data[i:j]
        elif op == "insert":
            data[i:i] = draw(st.sampled_from(TOKENS)).encode() + b" "
        elif op == "swap":
            lines = bytes(data).split(b"\n")
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            data = bytearray(b"\n".join(lines))
        elif op == "truncate":
            del data[i:]
        else:
            data[i] = draw(st.integers(0, 255))
    return bytes(data)


# ----------------------------------------------------------------------------------- tests
@fuzz_settings(40)
@given(st.one_of(kernels().map(str.encode), mutated_fixture(), soup.map(str.encode),
                 st.binary(max_size=512)))
def test_fuzz_smoke(data):
    """A sample of each kind of input below, for the default run (the full fuzzing is slow)."""
    check_bytes(data)


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.slow
@fuzz_settings(520)
@given(kernels())
def test_generated_kernels(src):
    check_bytes(src.encode())


@pytest.mark.slow
@fuzz_settings(520)
@given(mutated_fixture())
def test_mutated_fixtures(data):
    check_bytes(data)


@pytest.mark.slow
@fuzz_settings(450)
@given(soup)
def test_token_soup(src):
    check_bytes(src.encode())


@pytest.mark.slow
@fuzz_settings(300)
@given(st.one_of(
    st.binary(max_size=4096),
    st.binary(max_size=64).map(lambda b: b"__global__ void k(float* a) { a[0] = 1; }\n// " + b + b"\n"),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.text(max_size=200).map(lambda t: ("__global__ void k(float* a) { /* %s */ a[threadIdx.x] = 1; }" % t).encode("utf-16")),
    st.sampled_from([b"", b" ", b"\n\n\t\r\n", b"\xef\xbb\xbf", b"\x00", b"\xff\xfe", b"\\\n", b"/*", b"#if 1\n"]),
))
def test_binary_empty_and_encodings(data):
    res = check_bytes(data, suffix=".cuh")
    if not data.strip():
        assert res.error is None and res.diagnostics == []  # an empty file is valid and clean


@pytest.mark.slow
@fuzz_settings(60)
@given(st.sampled_from(["sum", "paren", "if", "for", "block", "lines", "index", "macro"]),
       st.integers(min_value=1, max_value=3000))
def test_huge_expressions_and_deep_nesting(kind, size):
    if kind == "sum":
        body = "a[%s] = 1.0f;" % " + ".join(["threadIdx.x * 2"] * size)
    elif kind == "paren":
        d = min(size, 1000)
        body = "a[%sthreadIdx.x%s] = 1.0f;" % ("(" * d, " + 1)" * d)
    elif kind == "if":
        d = min(size, 250)
        body = "if (threadIdx.x > 0) {\n" * d + "__syncthreads(); s[threadIdx.x] = a[0];" + "\n}" * d
    elif kind == "for":
        d = 1 + size % 10  # the loop analyses grow fast with nesting: see test_time_limit_*
        body = "".join(f"for (int i{k} = 0; i{k} < 2; ++i{k}) {{\n" for k in range(d)) + \
               "a[threadIdx.x] += 1.0f;" + "\n}" * d
    elif kind == "block":
        d = min(size, 400)
        body = "{" * d + "a[threadIdx.x] = 2.0f;" + "}" * d
    elif kind == "lines":
        body = "\n".join(f"float x{k} = a[threadIdx.x + {k}] * 1.0001f; s[threadIdx.x] += x{k};"
                         for k in range(min(size, 400)))
    elif kind == "index":
        e = "threadIdx.x"
        for k in range(min(size, 30)):
            e = f"(({e}) * 3 + {k}) % 1024"
        body = f"a[{e}] = s[{e} % 256];"
    else:  # 2^12 operands after preprocessing (clang's own time grows past what a test can wait for)
        d = min(size, 12)
        body = "#define E0 threadIdx.x\n" + "".join(f"#define E{k + 1} (E{k} + E{k})\n" for k in range(d)) + \
               f"a[E{d} & 1023] = 1.0f;"
    src = ("__global__ void k(float* a)\n{\n    __shared__ float s[256];\n" + body +
           "\n}\nvoid host(float* a) { k<<<4, 256>>>(a); }\n")
    check_bytes(src.encode())


@pytest.mark.slow
@fuzz_settings(150)
@given(st.one_of(kernels().map(str.encode), mutated_fixture(), st.binary(max_size=256)))
def test_cli_exit_codes_never_a_traceback(data):
    from typer.testing import CliRunner

    from cudalint.cli import app

    _counter[0] += 1
    path = WORKDIR / f"cli{_counter[0] % 20}.cu"
    path.write_bytes(data)
    r = CliRunner().invoke(app, ["check", str(path), "--no-cache", "--jobs", "1", "--time-limit",
                                 str(TIME_LIMIT_S), "--output-format", "json"], catch_exceptions=True)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code in (0, 1, 2)
    doc = json.loads(r.stdout if hasattr(r, "stdout") else r.output)
    f = doc["files"][0]
    assert (r.exit_code == 2) == (f["error"] is not None)
    assert all(CODE_RE.match(d["code"]) for d in f["diagnostics"])


def test_time_limit_stops_a_runaway_analysis():
    """16 nested loops make the loop analyses blow up: the per-file limit turns that into a
    CL000 in time (the alarm re-fires if a finalizer swallowed the first one)."""
    body = "".join(f"for (int i{k} = 0; i{k} < 2; ++i{k}) {{\n" for k in range(16)) + \
        "a[threadIdx.x] += 1.0f;" + "\n}" * 16
    path = WORKDIR / "runaway.cu"
    path.write_text("__global__ void k(float* a)\n{\n" + body + "\n}\n")
    t0 = time.monotonic()
    res, _ = check_file(str(path), AOPTS, COPTS, time_limit_s=2.0)
    assert time.monotonic() - t0 < 10
    assert [d.code for d in res.diagnostics] == ["CL000"]
    assert "per-file time limit of 2 s" in res.error


def test_too_deep_expression_is_a_clear_cl000():
    path = WORKDIR / "deep.cu"
    path.write_text("__global__ void k(float* a)\n{ a[%s] = 1.0f; }\n" % " + ".join(["threadIdx.x"] * 3000))
    res, _ = check_file(str(path), AOPTS, COPTS, time_limit_s=TIME_LIMIT_S)
    assert [d.code for d in res.diagnostics] == ["CL000"]
    assert "nested too deeply" in res.error and "internal error" not in res.error
