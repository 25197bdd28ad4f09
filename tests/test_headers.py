"""Header analysis (issue 16): the user's headers and included kernel files are analysed through
the files that include them, reported at their own place once per run; --exclude; a file that a
checked file includes is not checked alone."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.cli import app
from cudalint.includers import merge, plan
from cudalint.rules.diagnostic import Diagnostic, FileResult, Location
from cudalint.rules.runner import check_file

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "headers"
runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    d = tmp_path / "proj"
    shutil.copytree(FIX, d)
    return d


def _by_file(doc) -> dict[str, list[tuple[str, int]]]:
    return {Path(f["path"]).name: sorted((d["code"], d["location"]["line"]) for d in f["diagnostics"])
            for f in doc["files"]}


def test_header_kernels_are_analysed_through_the_includer():
    fa = analyze_file(str(FIX / "project.cu"), AnalysisOptions(use_ptxas=False))
    by_name = {k.name: k for k in fa.kernels}
    assert set(by_name) == {"transpose_naive", "copy_kernel", "fragment_sum"}
    # Defined in the header and the fragment, launched from project.cu and the header's host code.
    assert Path(by_name["transpose_naive"].function.range.file).name == "transpose.cuh"
    assert Path(by_name["fragment_sum"].function.range.file).name == "fragment_kernel.cu"
    assert by_name["transpose_naive"].launch.block == (16, 16, 1)
    assert by_name["copy_kernel"].launch.block == (128, 1, 1)
    assert by_name["fragment_sum"].launch.block == (64, 1, 1)
    assert not fa.kernel_errors and fa.error is None


def test_checked_alone_the_fragment_cannot_be_parsed():
    # The reason the fragment is analysed through its includer: alone, TILE is undeclared.
    res, _ = check_file(str(FIX / "fragment_kernel.cu"))
    assert [d.code for d in res.diagnostics] == ["CL000"]
    assert "TILE" in res.diagnostics[0].message


def test_check_dir_reports_header_findings_at_their_own_file_once(project: Path):
    r = run("check", str(project), "--jobs", "1", "--no-cache", "--output-format", "json")
    assert r.exit_code == 1, r.output  # findings, no CL000 (that would be exit 2)
    files = _by_file(json.loads(r.output))
    assert files == {"project.cu": [], "transpose.cuh": [("CL201", 11)],
                     "fragment_kernel.cu": [("CL601", 11)]}


def test_two_includers_report_a_header_finding_once(project: Path):
    (project / "second.cu").write_text('#include "transpose.cuh"\n'
                                       "void go(float* o, const float* i) { transpose_naive<<<64, dim3(16, 16)>>>(o, i); }\n")
    r = run("check", str(project / "project.cu"), str(project / "second.cu"), "--jobs", "1",
            "--no-cache", "--output-format", "json", "--select", "CL2")
    doc = json.loads(r.output)
    found = [(Path(f["path"]).name, d["code"], d["location"]["line"]) for f in doc["files"] for d in f["diagnostics"]]
    assert found == [("transpose.cuh", "CL201", 11)]


def test_sarif_and_text_point_at_the_header(project: Path):
    r = run("check", str(project / "project.cu"), "--no-cache", "--output-format", "sarif", "--select", "CL201")
    res = json.loads(r.output)["runs"][0]["results"]
    assert len(res) == 1
    loc = res[0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("transpose.cuh") and loc["region"]["startLine"] == 11
    r = run("check", str(project / "project.cu"), "--no-cache", "--select", "CL201")
    assert r.output.startswith(f"{project / 'transpose.cuh'}:11:5: warning: uncoalesced global store `out[x * WIDTH + y]`")


def test_explain_json_names_the_header(project: Path):
    r = run("explain", str(project / "project.cu"), "--output-format", "json", "--kernel", "transpose_naive")
    assert r.exit_code == 0, r.output
    (k,) = json.loads(r.output)["files"][0]["kernels"]
    assert Path(k["path"]).name == "transpose.cuh" and k["line"] == 7
    assert k["launch"]["block"] == [16, 16, 1]


def test_exclude_keeps_a_header_out(project: Path):
    r = run("check", str(project / "project.cu"), "--no-cache", "--output-format", "json",
            "--extend-exclude", "transpose.cuh")
    files = _by_file(json.loads(r.output))
    assert "transpose.cuh" not in files and files["fragment_kernel.cu"] == [("CL601", 11)]
    # The same through the configuration file's key.
    (project / "cudalint.toml").write_text('extend-exclude = ["fragment_*.cu"]\n')
    r = run("check", str(project / "project.cu"), "--no-cache", "--output-format", "json")
    files = _by_file(json.loads(r.output))
    assert "fragment_kernel.cu" not in files and files["transpose.cuh"] == [("CL201", 11)]


def test_exclude_skips_directories_when_walking(project: Path):
    (project / "vendor").mkdir()
    (project / "vendor" / "bad.cu").write_text("this is not C\n")
    r = run("check", str(project), "--jobs", "1", "--no-cache", "--output-format", "json", "--extend-exclude", "vendor")
    assert r.exit_code == 1 and "bad.cu" not in r.output
    r = run("check", str(project), "--jobs", "1", "--no-cache", "--output-format", "json")
    assert r.exit_code == 2 and "bad.cu" in r.output


def test_system_headers_are_not_the_users(tmp_path: Path):
    inc = tmp_path / "sys"
    inc.mkdir()
    (inc / "lib.cuh").write_text("__global__ void lib_kernel(float* a) { a[threadIdx.x * 32] = 0; }\n")
    src = tmp_path / "main.cu"
    src.write_text('#include "lib.cuh"\n__global__ void own(float* a) { a[threadIdx.x] = 1; }\n')
    fa = analyze_file(str(src), AnalysisOptions(use_ptxas=False, extra_args=["-isystem", str(inc)]))
    assert [k.name for k in fa.kernels] == ["own"]
    fa = analyze_file(str(src), AnalysisOptions(use_ptxas=False, include_dirs=[str(inc)]))
    assert sorted(k.name for k in fa.kernels) == ["lib_kernel", "own"]


def test_an_include_clang_never_sees_does_not_hide_a_file(tmp_path: Path):
    (tmp_path / "k.cu").write_text("__global__ void k(float* a) { a[threadIdx.x] = 1; }\n")
    (tmp_path / "main.cu").write_text('#if 0\n#include "k.cu"\n#endif\nint main() { return 0; }\n')
    roots, covered = plan([str(tmp_path / "main.cu"), str(tmp_path / "k.cu")], [[], []])
    assert roots == [0] and covered == {1: [0]}  # by the #include lines...
    r = run("explain", str(tmp_path), "--output-format", "json")
    files = json.loads(r.output)["files"]
    # ...but clang did not include it, so it is explained on its own.
    assert {Path(f["path"]).name: [k["name"] for k in f["kernels"]] for f in files} == {"main.cu": [], "k.cu": ["k"]}


def test_plan_breaks_include_cycles(tmp_path: Path):
    (tmp_path / "a.cu").write_text('#pragma once\n#include "b.cu"\n')
    (tmp_path / "b.cu").write_text('#pragma once\n#include "a.cu"\n')
    roots, covered = plan([str(tmp_path / "a.cu"), str(tmp_path / "b.cu")], [[], []])
    assert roots == [0] and covered == {1: [0]}


def _diag(path, line, kernel, msg="m"):
    return Diagnostic("CL301", "bank-conflict", "warning", msg, path, Location(line, 1), Location(line, 2), kernel)


def test_merge_keeps_the_includer_that_launches_a_header_kernel():
    # a.cu does not launch k (default block) and finds a conflict that k's real block does not
    # have; b.cu launches it: only b.cu's view of k counts, each other header finding once.
    a = FileResult("a.cu", [_diag("/p/h.cuh", 5, "k", "default-block view"), _diag("/p/h.cuh", 9, None)],
                   header_kernels=[["/p/h.cuh", 3, "k", "default"]])
    b = FileResult("b.cu", [_diag("/p/h.cuh", 7, "k", "launched view"), _diag("/p/h.cuh", 9, None)],
                   header_kernels=[["/p/h.cuh", 3, "k", "launch-site"]])
    out = merge([a, b])
    got = [(r.path, d.location.line, d.message) for r in out for d in r.diagnostics]
    assert got == [("/p/h.cuh", 9, "m"), ("/p/h.cuh", 7, "launched view")]
    assert [r.path for r in out] == ["a.cu", "b.cu", "/p/h.cuh"]


def test_per_file_ignores_apply_to_a_header(project: Path):
    (project / "cudalint.toml").write_text('[per-file-ignores]\n"*.cuh" = ["CL2"]\n')
    r = run("check", str(project / "project.cu"), "--no-cache", "--output-format", "json")
    files = _by_file(json.loads(r.output))
    assert "transpose.cuh" not in files and files["fragment_kernel.cu"] == [("CL601", 11)]


def test_a_header_s_plain_host_code_is_lowered_only_when_called(tmp_path: Path):
    # util.h holds what real projects' helper headers hold: file and argument helpers with no
    # CUDA in them (one behind a plain macro), a helper with an unchecked CUDA call, a launcher
    # reached through a header caller, and a CUDA call hidden in a macro defined elsewhere.
    (tmp_path / "cfg.h").write_text("#define SYNC_ALL() cudaDeviceSynchronize()\n")
    (tmp_path / "util.h").write_text(
        '#include "cfg.h"\n'
        "#define STR_EQ(a, b) (strcmp_(a, b) == 0)\n"
        "int strcmp_(const char *a, const char *b) { while (*a && *a == *b) { ++a; ++b; } return *a - *b; }\n"
        "int parse_flag(const char *s) { return STR_EQ(s, \"-v\") ? 1 : 0; }\n"
        "int unused_sum(int n) { int s = 0; for (int i = 0; i < n; ++i) s += i; return s; }\n"
        "void alloc_buffer(float **p, int n) { cudaMalloc(p, n * sizeof(float)); }\n"
        "void settle() { SYNC_ALL(); }\n"
        "void run_scaled(float *d, int n);\n"
        "void drive(float *d) { run_scaled(d, 4096); }\n")
    (tmp_path / "main.cu").write_text(
        '#include "util.h"\n'
        "__global__ void scale(float *d, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] *= 2.0f; }\n"
        "void run_scaled(float *d, int n) { scale<<<n / 128, 128>>>(d, n); }\n"
        "int main(int argc, char **argv) { float *d; int v = parse_flag(argv[1]);\n"
        "  alloc_buffer(&d, 4096); drive(d); settle(); return v; }\n")
    fa = analyze_file(str(tmp_path / "main.cu"), AnalysisOptions(use_ptxas=False))
    names = {f.name for f in fa.tu.functions}
    # called from main (and what it calls): lowered on demand; never called, no CUDA: not
    assert {"parse_flag", "strcmp_"} <= names and "unused_sum" not in names
    # CUDA work, a macro that may hide it, and a header caller of a launcher: all lowered
    assert {"alloc_buffer", "settle", "drive", "run_scaled", "main"} <= names
    # the launch's grid comes through drive()'s argument: 4096 / 128 blocks
    assert fa.kernels[0].launch.grid == (32, 1, 1)
    res, _ = check_file(str(tmp_path / "main.cu"), AnalysisOptions(use_ptxas=False))
    unchecked = sorted((Path(d.path).name, d.location.line) for d in res.diagnostics if d.code == "CL701")
    assert ("util.h", 6) in unchecked  # the unchecked cudaMalloc in the header is still found
