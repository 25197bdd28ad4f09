"""Configuration: discovery (closest wins, no merging), extend, keys, CLI precedence, errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cuda_sources import kernel
from cudalint.cli import app
from cudalint.config import ConfigError, ConfigResolver, find_config_file, load_config

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def codes(result) -> list[tuple[int, str]]:
    doc = json.loads(result.output)
    return sorted((d["location"]["line"], d["code"]) for f in doc["files"] for d in f["diagnostics"])


@pytest.fixture
def project(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(kernel())
    return tmp_path


def test_pyproject_table_applies(project):
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.cudalint]\nignore = ["CL7"]\n')
    r = run("check", project / "src", "--output-format", "json")
    assert codes(r) == [(11, "CL201"), (12, "CL201")]


def test_pyproject_without_table_is_skipped_and_closest_wins_without_merging(project):
    (project / "cudalint.toml").write_text('ignore = ["CL7"]\n')
    (project / "src" / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.cudalint]
    assert find_config_file(project / "src" / "k.cu") == project / "cudalint.toml"
    (project / "src" / ".cudalint.toml").write_text('select = ["CL7"]\n')
    (project / "src" / "cudalint.toml").write_text('select = ["CL1"]\n')
    # .cudalint.toml beats cudalint.toml in one directory; the parent's ignore is NOT merged in
    assert find_config_file(project / "src" / "k.cu") == project / "src" / ".cudalint.toml"
    r = run("check", project / "src", "--output-format", "json")
    assert codes(r) == [(14, "CL702")]


def test_extend_inherits_and_overrides(project):
    (project / "base.toml").write_text('select = ["CL2", "CL7"]\narch = "sm_80"\n[rules.CL201]\nseverity = "error"\nmin_ratio = 3.0\n')
    (project / "cudalint.toml").write_text('extend = "base.toml"\nignore = ["CL702"]\n[rules.CL201]\nmin_ratio = 5\n')
    s = load_config(project / "cudalint.toml")
    assert s.chain == [project / "cudalint.toml", project / "base.toml"]
    assert s.selected() == ["CL2", "CL7"] and s.arch == "sm_80"
    assert s.rules["CL201"] == {"severity": "error", "options": {"min_ratio": 5}}
    r = run("check", project / "src", "--output-format", "json")
    doc = json.loads(r.output)
    diags = doc["files"][0]["diagnostics"]
    # min_ratio 5: the stride-4 load (ratio 4) is no longer reported, the stride-8 one (8) is, as an error
    assert [(d["location"]["line"], d["code"], d["severity"]) for d in diags] == [(12, "CL201", "error")]


def test_severity_off_and_per_file_ignores(project):
    (project / "src" / "legacy_k.cu").write_text(kernel())
    (project / "cudalint.toml").write_text('[rules.CL702]\nseverity = "off"\n[per-file-ignores]\n"src/legacy_*.cu" = ["CL2"]\n')
    r = run("check", project / "src", "--output-format", "json")
    doc = json.loads(r.output)
    by = {Path(f["path"]).name: [d["code"] for d in f["diagnostics"]] for f in doc["files"]}
    assert by == {"k.cu": ["CL201", "CL201"], "legacy_k.cu": []}


def test_severity_info_makes_the_run_pass(project):
    (project / "cudalint.toml").write_text('[rules.CL201]\nseverity = "info"\n[rules.CL702]\nseverity = "info"\n')
    r = run("check", project / "src")
    assert r.exit_code == 0 and r.output.count(": info: ") == 3


def test_defines_include_dirs_and_default_block(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "stride.h").write_text("#define STRIDE 8\n")
    (tmp_path / "k.cu").write_text('#include "stride.h"\n__global__ void g(const float* in, float* out)\n'
                                   '{ out[threadIdx.x] = in[threadIdx.x * STRIDE * SCALE]; }\n')
    (tmp_path / "cudalint.toml").write_text('include-dirs = ["inc"]\ndefines = ["SCALE=1"]\ndefault-block = [64, 2]\n')
    r = run("explain", tmp_path / "k.cu", "--output-format", "json")
    assert r.exit_code == 0, r.output
    k = json.loads(r.output)["files"][0]["kernels"][0]
    assert k["launch"]["block"] == [64, 2, 1] and k["launch"]["source"] == "default"
    r = run("check", tmp_path / "k.cu", "--output-format", "json")
    (d,) = json.loads(r.output)["files"][0]["diagnostics"]
    assert d["code"] == "CL201" and "8 elements apart" in d["message"]
    # the command line wins over the configuration: -D SCALE=0 makes the index uniform
    r = run("check", tmp_path / "k.cu", "-D", "SCALE=0", "--output-format", "json")
    assert all(x["code"] != "CL201" for x in json.loads(r.output)["files"][0]["diagnostics"])


def test_cli_overrides_and_isolated_and_explicit_config(project):
    (project / "cudalint.toml").write_text('arch = "sm_70"\nselect = ["CL7"]\n')
    other = project / "other.toml"
    other.write_text('select = ["CL2"]\n')
    r = run("explain", project / "src" / "k.cu", "--output-format", "json")
    assert json.loads(r.output)["arch"] == "sm_70"
    r = run("explain", project / "src" / "k.cu", "--arch", "sm_90", "--output-format", "json")
    assert json.loads(r.output)["arch"] == "sm_90"
    assert codes(run("check", project / "src", "--output-format", "json")) == [(14, "CL702")]
    assert codes(run("check", project / "src", "--select", "CL2", "--output-format", "json")) == [(11, "CL201"), (12, "CL201")]
    assert codes(run("check", project / "src", "--config", other, "--output-format", "json")) == [(11, "CL201"), (12, "CL201")]
    assert len(codes(run("check", project / "src", "--isolated", "--output-format", "json"))) == 3


def test_config_show(project):
    (project / "base.toml").write_text('defines = ["A=1"]\n')
    (project / "cudalint.toml").write_text('extend = "base.toml"\narch = "sm_80"\nblock = "16,16"\n[rules.CL401]\nmin_occupancy = 0.25\nseverity = "info"\n')
    r = run("config", project / "src", "--show", "--output-format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["config"] == str(project / "cudalint.toml") and doc["extends"] == [str(project / "base.toml")]
    assert doc["arch"] == "sm_80" and doc["block"] == [16, 16, 1] and doc["defines"] == ["A=1"]
    assert doc["rules"]["CL401"] == {"severity": "info", "min_occupancy": 0.25}
    text = run("config", project / "src", "--show").output
    assert 'arch = "sm_80"' in text and "[rules.CL401]" in text and "min_occupancy = 0.25" in text
    assert run("config", project / "src").output.strip() == str(project / "cudalint.toml")
    assert "defaults" in run("config", project / "src", "--isolated").output


@pytest.mark.parametrize("content,key,reason", [
    ('selekt = ["CL2"]\n', "selekt", "unknown key"),
    ('arch = 80\n', "arch", "expected a string"),
    ('arch = "sm_99"\n', "arch", "sm_99"),
    ('device = "no-such-gpu"\n', "device", "no-such-gpu"),
    ('select = ["CL9"]\n', "select", "unknown rule code or prefix 'CL9'"),
    ('ignore = "CL2"\nblock = [0]\n', "block", "positive integers"),
    ('[rules.CL999]\nseverity = "info"\n', "rules.CL999", "unknown rule code"),
    ('[rules.CL201]\nseverity = "loud"\n', "rules.CL201.severity", "expected one of error, warning, info, off"),
    ('[rules.CL201]\nmin_ratoi = 2\n', "rules.CL201.min_ratoi", "unknown option for CL201"),
    ('[rules.CL201]\nmin_ratio = "2"\n', "rules.CL201.min_ratio", "expected a number"),
    ('extend = "missing.toml"\n', None, "no such configuration file"),
    ('select = [\n', None, "invalid TOML"),
])
def test_bad_config_is_exit_2_with_key_and_reason(project, content, key, reason):
    (project / "cudalint.toml").write_text(content)
    r = runner.invoke(app, ["check", str(project / "src")])
    assert r.exit_code == 2
    err = r.stderr if hasattr(r, "stderr") and r.stderr else r.output
    assert "cudalint: error:" in err and reason in err
    if key:
        assert f": {key}: " in err


def test_bad_pyproject_names_the_table_key(project):
    (project / "pyproject.toml").write_text('[tool.cudalint]\njobs = 0\n')
    with pytest.raises(ConfigError) as e:
        ConfigResolver().for_path(project / "src" / "k.cu")
    assert e.value.key == "tool.cudalint.jobs" and "positive integer" in e.value.reason


def test_circular_extend(project):
    (project / "a.toml").write_text('extend = "b.toml"\n')
    (project / "b.toml").write_text('extend = "a.toml"\n')
    with pytest.raises(ConfigError, match="circular extend"):
        load_config(project / "a.toml")
