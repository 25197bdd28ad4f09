"""The generated rule documentation is current: the README's rule table and docs/rules/<CODE>.md
are what `cudalint rules --update-readme README.md --write-docs docs/rules` writes today, every
diagnostic's url names a page that exists, the rule modules are listed explicitly, and the
README's Layout names every top-level module."""
from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from cudalint.cli import app
from cudalint.reporters import rule_docs
from cudalint.reporters.sarif import _rule_descriptor
from cudalint.rules.diagnostic import Diagnostic, Location
from cudalint.rules.registry import RULE_MODULES, RULES, all_rules

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs" / "rules"
REGENERATE = "run `cudalint rules --update-readme README.md --write-docs docs/rules`"


def test_readme_rule_table_is_current():
    table = rule_docs.readme_table(README.read_text(encoding="utf-8"))
    assert table is not None, "README.md lost its rule table markers"
    assert table == rule_docs.rules_table(all_rules()), f"README rule table is stale: {REGENERATE}"


def test_rule_pages_are_current_and_complete():
    rules = all_rules()
    for r in rules:
        page = DOCS / f"{r.code}.md"
        assert page.is_file(), f"{page} missing: {REGENERATE}"
        assert page.read_text(encoding="utf-8") == rule_docs.rule_page(r), f"{page} is stale: {REGENERATE}"
    extra = {p.stem for p in DOCS.glob("*.md")} - {r.code for r in rules}
    assert not extra, f"pages of rules that do not exist: {sorted(extra)}"


def test_staleness_is_detected_and_repaired(tmp_path):
    """The checks above can fail: a README whose table lost a row and a page edited by hand are
    told apart from current ones, and the command rewrites both."""
    readme = tmp_path / "README.md"
    text = README.read_text(encoding="utf-8")
    stale = "\n".join(l for l in text.splitlines() if not l.startswith("| [CL201]")) + "\n"
    readme.write_text(stale, encoding="utf-8")
    assert rule_docs.readme_table(stale) != rule_docs.rules_table(all_rules())
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "CL201.md").write_text("# CL201 old text\n", encoding="utf-8")
    (docs / "CL999.md").write_text("# a rule that was removed\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["rules", "--update-readme", str(readme), "--write-docs", str(docs)])
    assert r.exit_code == 0, r.output
    new = readme.read_text(encoding="utf-8")
    assert rule_docs.readme_table(new) == rule_docs.rules_table(all_rules())
    assert new.replace(rule_docs.readme_table(new), "") == stale.replace(rule_docs.readme_table(stale), "")
    assert (docs / "CL201.md").read_text(encoding="utf-8") == rule_docs.rule_page(RULES["CL201"])
    assert not (docs / "CL999.md").exists()
    assert len(list(docs.glob("*.md"))) == len(all_rules())


def test_markdown_output_is_the_readme_table():
    r = CliRunner().invoke(app, ["rules", "--output-format", "markdown"])
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0] == "| Code | Name | Default severity | Reports |"
    assert len(lines) == 2 + len(all_rules())
    assert lines[2].startswith("| [CL000](docs/rules/CL000.md) | `unparsable-file` | error |")
    assert r.output == rule_docs.readme_table(README.read_text(encoding="utf-8"))


def test_update_readme_without_markers_is_a_usage_error(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no table here\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["rules", "--update-readme", str(readme)])
    assert r.exit_code == 2 and "markers" in r.output
    assert readme.read_text(encoding="utf-8") == "# no table here\n"


def test_diagnostic_url_and_sarif_help_name_the_generated_page():
    for r in all_rules():
        d = Diagnostic(r.code, r.name, r.severity, "m", "f.cu", Location(1, 1), Location(1, 2))
        assert d.url == f"https://cudalint.dev/rules/{r.code}"
        assert _rule_descriptor(r)["helpUri"] == d.url
        # the site serves docs/rules/<CODE>.md at .../rules/<CODE>
        assert (DOCS / f"{d.url.rsplit('/', 1)[1]}.md").is_file()


def test_rule_modules_are_listed_explicitly():
    rules_dir = ROOT / "rules"
    defining = {p.stem for p in rules_dir.glob("*.py")
                if re.search(r"^(@rule\(|register_doc_only\()", p.read_text(encoding="utf-8"), re.M)}
    assert defining == set(RULE_MODULES)
    by_module = {m: [c for c, r in RULES.items() if r.check is not None and
                     r.check.__module__ == f"cudalint.rules.{m}"] for m in RULE_MODULES}
    assert all(by_module[m] for m in RULE_MODULES if m != "tool")
    assert {"CL000", "CL010"} <= set(RULES) and RULES["CL000"].check is None


def test_readme_layout_names_every_top_level_module():
    text = README.read_text(encoding="utf-8")
    m = re.search(r"## Layout\n.*?```\n(.*?)```", text, re.S)
    assert m, "README.md has no Layout block"
    named = {line.split()[0].split("/")[0] for line in m.group(1).splitlines() if line and not line[0].isspace()}
    top = {p.name for p in ROOT.glob("*.py")}
    top |= {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
            and not p.name.endswith(".egg-info") and p.name not in ("build", "dist")}
    missing = top - named
    assert not missing, f"README Layout does not name {sorted(missing)}"
