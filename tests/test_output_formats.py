"""Output formats: SARIF 2.1.0 (schema-valid), GitHub annotations, --statistics, --baseline,
the coloured `full` form."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cuda_sources import CLEAN, kernel
from cudalint.cli import app
from cudalint.reporters.common import SourceLines
from cudalint.reporters.github import escape_data, escape_property, format_annotation
from cudalint.rules.diagnostic import Diagnostic, Location

FIX = Path(__file__).resolve().parents[1] / "fixtures"
SCHEMA = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"
runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


# ---------------------------------------------------------------------------------- SARIF
@pytest.fixture(scope="module")
def sarif(tmp_path_factory):
    d = tmp_path_factory.mktemp("sarif")
    k = d / "k.cu"
    k.write_text(kernel(c11="  // cudalint: ignore[CL301]"))
    race = FIX / "barriers" / "neighbor_read_no_barrier.cu"   # CL602 with race witnesses
    fixes = FIX / "host" / "deprecated_api.cu"                 # CL703 with fixes
    r = run("check", k, race, fixes, "--block", "256", "--output-format", "sarif")
    assert r.exit_code == 1, r.output
    return json.loads(r.output), k


def test_sarif_validates_against_the_official_schema(sarif):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    cls = jsonschema.validators.validator_for(schema)
    errors = sorted(cls(schema).iter_errors(sarif[0]), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    # and the schema really checks something: a result without a message is rejected
    broken = json.loads(json.dumps(sarif[0]))
    del broken["runs"][0]["results"][0]["message"]
    assert list(cls(schema).iter_errors(broken))


def test_sarif_rule_metadata(sarif):
    doc, _ = sarif
    assert doc["version"] == "2.1.0"
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["name"] == "cudalint"
    rules = {r["id"]: r for r in driver["rules"]}
    r = rules["CL201"]
    assert r["name"] == "uncoalesced-global-access"
    assert r["shortDescription"]["text"] and r["fullDescription"]["text"]
    assert "## Why is this bad?" in r["help"]["markdown"] and "## How to fix" in r["help"]["text"]
    assert r["defaultConfiguration"]["level"] == "warning"
    assert rules["CL202"]["defaultConfiguration"]["level"] == "note"  # info -> note
    assert rules["CL000"]["defaultConfiguration"]["level"] == "error"
    results = doc["runs"][0]["results"]
    for res in results:
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]


def test_sarif_results_regions_related_fixes_fingerprints(sarif):
    doc, k = sarif
    results = doc["runs"][0]["results"]
    mine = [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("k.cu")]
    cl201 = [r for r in mine if r["ruleId"] == "CL201"]
    region = cl201[0]["locations"][0]["physicalLocation"]["region"]
    line11 = k.read_text().splitlines()[10]
    assert region["startLine"] == 11
    assert line11[region["startColumn"] - 1:region["endColumn"] - 1] == "in[threadIdx.x * 4]"
    assert region["snippet"]["text"] == line11
    # race witnesses -> relatedLocations
    race = [r for r in results if r["ruleId"] == "CL602"]
    assert race and race[0]["relatedLocations"][0]["message"]["text"].startswith("thread ")
    assert race[0]["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] in (7, 8)
    # fixes: deprecated API replacement and the unused suppression's removal
    fixed = [r for r in results if r.get("fixes")]
    assert {r["ruleId"] for r in fixed} >= {"CL703", "CL010"}
    rep = [r for r in fixed if r["ruleId"] == "CL010"][0]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert rep["insertedContent"]["text"] == "" and rep["deletedRegion"]["startLine"] == 11
    # fingerprints: present, unique, independent of the line number
    fps = [r["partialFingerprints"]["cudalintLineHash/v1"] for r in results]
    assert len(set(fps)) == len(fps)


def test_sarif_fingerprint_survives_moving_lines(tmp_path):
    k = tmp_path / "k.cu"
    k.write_text(kernel())
    before = json.loads(run("check", k, "--output-format", "sarif").output)["runs"][0]["results"]
    k.write_text(kernel(head="// a new comment line\n\n"))
    after = json.loads(run("check", k, "--output-format", "sarif").output)["runs"][0]["results"]
    key = lambda rs: [(r["ruleId"], r["partialFingerprints"]["cudalintLineHash/v1"]) for r in rs]
    assert key(before) == key(after)
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in after] == [13, 14, 16]


# --------------------------------------------------------------------------------- GitHub
def test_github_annotations(tmp_path):
    k = tmp_path / "k.cu"
    k.write_text(kernel())
    r = run("check", k, "--output-format", "github")
    assert r.exit_code == 1
    lines = r.output.splitlines()
    assert len(lines) == 3
    pat = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),endLine=(\d+),endColumn=(\d+),title=(CL\d{3})::(.+)$")
    m = pat.match(lines[0])
    assert m, lines[0]
    assert m.group(1) == "warning" and m.group(3) == "11" and m.group(7) == "CL201"
    assert (int(m.group(4)), int(m.group(6))) == (32, 51)
    assert "%25 of the fetched bytes" in m.group(8) and "%" not in m.group(8).replace("%25", "")


def test_github_escaping():
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a,b:c%") == "a%2Cb%3Ac%25"
    d = Diagnostic("CL601", "divergent-barrier", "error", "line one\nline two: 100%", "dir,x/k:1.cu",
                   Location(3, 5), Location(4, 2))
    out = format_annotation(d, SourceLines())
    # a multi-line range has no columns; properties and message are escaped
    assert out == "::error file=dir%2Cx/k%3A1.cu,line=3,endLine=4,title=CL601::line one%0Aline two: 100%25 (divergent-barrier)"
    d = Diagnostic("CL202", "misaligned-global-access", "info", "m", "k.cu", Location(1, 1), Location(1, 4))
    assert format_annotation(d, SourceLines()).startswith("::notice file=k.cu,line=1,col=1,endLine=1,endColumn=4,title=CL202::")


# ----------------------------------------------------------------------------- statistics
def test_statistics(tmp_path):
    (tmp_path / "a.cu").write_text(kernel())
    (tmp_path / "b.cu").write_text(kernel(c11="  // cudalint: ignore[CL201]"))
    r = run("check", tmp_path, "--statistics")
    assert r.exit_code == 1
    rows = [l.split() for l in r.output.splitlines()]
    assert rows[0][:3] == ["3", "CL201", "uncoalesced-global-access"]
    assert rows[1][:2] == ["2", "CL702"]
    assert rows[-1] == ["5", "total"]
    js = json.loads(run("check", tmp_path, "--statistics", "--output-format", "json").output)
    assert [(x["code"], x["count"]) for x in js] == [("CL201", 3), ("CL702", 2)]


# ------------------------------------------------------------------------------- baseline
def test_baseline_records_then_only_new_findings_fail(tmp_path):
    k = tmp_path / "k.cu"
    k.write_text(kernel())
    base = tmp_path / "cudalint-baseline.json"
    r = run("check", k, "--baseline", base)
    assert r.exit_code == 0 and "[CL" not in r.output and "recorded 3 finding(s) in baseline" in r.output
    doc = json.loads(base.read_text())
    assert sorted((e["code"], e["count"]) for e in doc["findings"]) == [("CL201", 1), ("CL201", 1), ("CL702", 1)]
    assert all(e["path"] == "k.cu" for e in doc["findings"])
    # unchanged: passes
    assert run("check", k, "--baseline", base).exit_code == 0
    # lines moved by an edit elsewhere: still known
    k.write_text(kernel(head="#include <cstdio>\n\n"))
    assert run("check", k, "--baseline", base).exit_code == 0
    # a new finding: only it is reported
    k.write_text(kernel(n12="    data[threadIdx.x + 512] = in[threadIdx.x * 16];\n"))
    r = run("check", k, "--baseline", base, "--output-format", "json")
    assert r.exit_code == 1
    new = [(d["location"]["line"], d["code"]) for d in json.loads(r.output)["files"][0]["diagnostics"]]
    assert new == [(12, "CL201")]
    # --update-baseline accepts it
    assert run("check", k, "--baseline", base, "--update-baseline").exit_code == 0
    assert run("check", k, "--baseline", base).exit_code == 0


def test_baseline_errors(tmp_path):
    k = tmp_path / "k.cu"
    k.write_text(CLEAN)
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    r = runner.invoke(app, ["check", str(k), "--baseline", str(bad)])
    assert r.exit_code == 2 and "not a cudalint baseline" in r.output
    assert runner.invoke(app, ["check", str(k), "--update-baseline"]).exit_code == 2


# ----------------------------------------------------------------------------------- full
def test_full_is_coloured_with_rich_on_a_terminal(tmp_path):
    from cudalint.reporters.text import render_full
    from cudalint.rules.runner import check_file

    k = tmp_path / "k.cu"
    k.write_text(kernel())
    res, _ = check_file(str(k))
    plain = render_full([res], color=False)
    coloured = render_full([res], color=True)
    assert "\x1b[" in coloured and "\x1b[" not in plain
    strip = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    assert strip.rstrip("\n") == plain.rstrip("\n")
    assert "\x1b[1;33mwarning:" in coloured  # severity in bold yellow
