"""The command line: exit codes, output shapes (DESIGN.md contracts), bad input handling."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cudalint.cli import app, main

FIX = Path(__file__).resolve().parents[1] / "fixtures"
runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_check_clean_file_exits_zero():
    r = run("check", str(FIX / "memory" / "register_array_unrolled.cu"))
    assert r.exit_code == 0, r.output
    assert r.output == ""


def test_check_finding_text_is_gcc_style_and_exits_one():
    path = FIX / "memory" / "local_thread_index.cu"
    r = run("check", str(path))
    assert r.exit_code == 1
    lines = r.output.strip().splitlines()
    assert len(lines) == 1
    # path:line:col: severity: message [CODE] -- column 25 is where `v[k]` starts
    assert lines[0].startswith(f"{path}:13:25: warning: automatic array `v` (256 bytes) is placed in local memory")
    assert lines[0].endswith("[CL101]")
    assert "index `k` is not a compile-time constant" in lines[0]


def test_local_array_of_unknown_size_says_so(tmp_path):
    """LeetCUDA's hgemm_mma_*_dsmem kernels, analysed as templates (their launches are in code
    that needs a missing header): `uint32_t RA[2][WARP_TILE_M][4]` has no size, and CL101 said
    "(None bytes)"."""
    p = tmp_path / "t.cu"
    p.write_text("""#include <stdint.h>
template <int N = 4>
__global__ void k(float *out, const float *in) {
  uint32_t r[2][N][4];
  for (int i = 0; i < N; i++) r[0][i][0] = in[i];
  float *q = reinterpret_cast<float *>(&r[0][0][0]);
  out[threadIdx.x] = q[threadIdx.x % 4];
}
""")
    r = run("check", str(p), "--select", "CL101")
    assert r.output.strip() == (f"{p}:4:3: info: automatic array `r` (size not known statically) is "
                                "likely placed in local memory: automatic array whose address is "
                                "used as a pointer [CL101]")


def test_check_json_shape():
    path = FIX / "memory" / "local_thread_index.cu"
    r = run("check", str(path), "--output-format", "json")
    doc = json.loads(r.output)
    assert set(doc) == {"version", "files"}
    f = doc["files"][0]
    assert f["path"] == str(path) and f["error"] is None
    d = f["diagnostics"][0]
    assert {"code", "name", "severity", "message", "kernel", "location", "end_location", "fix", "url"} <= set(d)
    assert d["code"] == "CL101" and d["name"] == "local-memory-array" and d["kernel"] == "rotate"
    assert d["location"] == {"line": 13, "column": 25}
    # end exclusive: `v[k]` is 4 characters long
    assert d["end_location"] == {"line": 13, "column": 29}


def test_full_format_shows_source_and_caret():
    r = run("check", str(FIX / "memory" / "local_thread_index.cu"), "--output-format", "full")
    lines = r.output.splitlines()
    src = [l for l in lines if "|" in l][0]
    caret = lines[lines.index(src) + 1]
    assert "data[threadIdx.x] = v[k] + v[(k + 11) & 63];" in src
    start = caret.index("^")
    assert src[start:start + 4] == "v[k]"
    assert caret.strip() == "^~~~"


def test_missing_file_is_cl000_exit_two_and_others_still_checked(tmp_path):
    missing = tmp_path / "nope.cu"
    good = FIX / "memory" / "local_thread_index.cu"
    r = run("check", str(missing), str(good), "--output-format", "json")
    assert r.exit_code == 2
    doc = json.loads(r.output)
    by_path = {f["path"]: f for f in doc["files"]}
    assert by_path[str(missing)]["diagnostics"][0]["code"] == "CL000"
    assert "cannot read file" in by_path[str(missing)]["error"]
    assert [d["code"] for d in by_path[str(good)]["diagnostics"]] == ["CL101"]


def test_binary_and_empty_files(tmp_path):
    b = tmp_path / "blob.cu"
    b.write_bytes(b"\x7fELF\x00\x01\x02garbage")
    e = tmp_path / "empty.cu"
    e.write_text("")
    r = run("check", str(b), str(e), "--output-format", "json")
    doc = json.loads(r.output)
    by_path = {f["path"]: f for f in doc["files"]}
    assert by_path[str(b)]["diagnostics"][0]["code"] == "CL000"
    assert "binary" in by_path[str(b)]["error"]
    assert by_path[str(e)]["diagnostics"] == []  # an empty file is valid CUDA with no kernels
    assert r.exit_code == 2


def test_directory_is_searched_for_cuda_files(tmp_path, monkeypatch):
    # The source-level verdict; a 64-word array (a 4-word one is only "may", info: ptxas keeps
    # small run-time-indexed arrays in registers with selects).
    monkeypatch.setenv("CUDALINT_NO_PTXAS", "1")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.cu").write_text("__global__ void a(float* x) { x[threadIdx.x] = 0; }\n")
    (tmp_path / "b.cuh").write_text("__global__ void b(float* x) { float v[64]; v[(int)x[0]] = 1; "
                                    "x[threadIdx.x] = v[threadIdx.x & 63]; }\n")
    (tmp_path / "notes.txt").write_text("not cuda")
    r = run("check", str(tmp_path), "--output-format", "json")
    paths = sorted(Path(f["path"]).name for f in json.loads(r.output)["files"])
    assert paths == ["a.cu", "b.cuh"]
    assert r.exit_code == 1


def test_select_and_ignore():
    path = str(FIX / "memory" / "local_thread_index.cu")
    assert run("check", path, "--ignore", "CL1").exit_code == 0
    assert run("check", path, "--select", "CL2").exit_code == 0
    assert run("check", path, "--select", "CL101").exit_code == 1
    assert run("check", path, "--exit-zero").exit_code == 0


def test_bad_options_exit_two():
    path = str(FIX / "memory" / "local_thread_index.cu")
    assert run("check", path, "--arch", "sm_99").exit_code == 2
    assert run("check", path, "--block", "0,4").exit_code == 2
    assert run("check", path, "--output-format", "xml").exit_code == 2
    assert run("explain", path, "--param", "n").exit_code == 2


def test_explain_json_shape_and_values():
    path = FIX / "examples" / "matmul.cu"
    r = run("explain", str(path), "--output-format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["arch"] == "sm_90" and "version" in doc
    kernels = {k["name"]: k for k in doc["files"][0]["kernels"]}
    assert set(kernels) == {"matmul_naive", "matmul_tiled"}
    tiled = kernels["matmul_tiled"]
    assert tiled["line"] == 19
    assert tiled["launch"]["block"] == [16, 16, 1] and tiled["launch"]["grid"] == [64, 64, 1]
    assert tiled["launch"]["source"] == "launch-site"
    var = {v["name"]: v for v in tiled["variables"]}
    for v in var.values():
        assert {"name", "line", "memory", "scope", "lifetime", "bytes"} <= set(v)
    assert (var["Ms"]["memory"], var["Ms"]["scope"], var["Ms"]["lifetime"], var["Ms"]["bytes"]) == ("shared", "block", "kernel", 1024)
    assert (var["value"]["memory"], var["value"]["scope"]) == ("register", "thread")
    assert (var["M"]["memory"], var["M"]["scope"], var["M"]["lifetime"]) == ("global", "grid", "application")


def test_explain_text_states_launch_source_and_assumptions():
    r = run("explain", str(FIX / "launch" / "host_launches.cu"), "--kernel", "runtime_block")
    assert r.exit_code == 0
    assert "from default" in r.output
    assert "`user_block`" in r.output and "is not known statically" in r.output
    assert "`argc` is a parameter of `main` and the command line gives its value" in r.output


def test_block_override_from_command_line():
    r = run("explain", str(FIX / "examples" / "matmul.cu"), "--block", "32,8", "--output-format", "json")
    k = json.loads(r.output)["files"][0]["kernels"][0]
    assert k["launch"]["block"] == [32, 8, 1] and k["launch"]["source"] == "command-line"


def test_rule_docs():
    r = run("rule", "cl101")
    assert r.exit_code == 0
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## How to fix"):
        assert heading in r.output
    assert run("rule", "CL999").exit_code == 2
    listing = run("rules").output
    for code in ("CL000", "CL101", "CL102", "CL103"):
        assert code in listing


def test_bare_file_argument_means_check(capsys):
    with pytest.raises(SystemExit) as e:
        main([str(FIX / "memory" / "local_thread_index.cu")])
    assert e.value.code == 1
    assert "[CL101]" in capsys.readouterr().out


def test_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "cudalint.cli", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("cudalint ")


def test_kernel_file_meant_to_be_included_gets_a_hint(tmp_path):
    # A kernel file that another .cu includes after typedef'ing `fp` (Rodinia's layout): clang
    # cannot know `fp`, and the CL000 says where such names usually come from.
    k = tmp_path / "srad_kernel.cu"
    k.write_text("__global__ void srad(fp lambda, fp* img) { img[threadIdx.x] *= lambda; }\n")
    r = run("check", str(k))
    assert r.exit_code == 2
    line = r.output.strip()
    assert line.startswith(f"{k}:1:")
    assert "unknown type name 'fp'" in line
    assert "a file that another .cu #includes is checked through that file" in line
    # with the type supplied through -D, the same file is analysed
    r = run("check", str(k), "-D", "fp=float")
    assert r.exit_code in (0, 1), r.output
    assert "CL000" not in r.output


def test_rule_registry_failed_import_is_not_marked_loaded(monkeypatch):
    import importlib

    from cudalint.rules import registry

    monkeypatch.setattr(registry, "_loaded", False)
    real = importlib.import_module

    def failing(name, *a, **k):
        if name == "cudalint.rules.banks":
            raise ImportError("simulated broken rule module")
        return real(name, *a, **k)

    monkeypatch.setattr(importlib, "import_module", failing)
    with pytest.raises(ImportError):
        registry.load_rule_modules()
    assert registry._loaded is False
    with pytest.raises(ImportError):  # and again: never a silently partial rule set
        registry.load_rule_modules()
    monkeypatch.setattr(importlib, "import_module", real)
    registry.load_rule_modules()
    assert registry._loaded is True and "CL301" in registry.RULES
