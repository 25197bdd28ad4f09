"""`check --output-format sarif`: SARIF 2.1.0 for code scanning (GitHub, Azure DevOps, IDEs).

One run; the driver lists every rule with its short and full description, the rule's
documentation as help (text and markdown), its help URI and default level. Each result has the
region (1-based lines, Unicode code point columns, end exclusive), related locations (race
witnesses, ...), fixes as artifact changes, and ``partialFingerprints`` that do not depend on
the line number (so code scanning can follow a finding when lines move). Paths are relative to
``%SRCROOT%`` (the working directory) when the file lies under it.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Optional

from .. import __version__
from ..rules.diagnostic import Diagnostic, FileResult, Location, rule_url
from .common import SourceLines, display_path, line_fingerprint

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
INFO_URI = "https://cudalint.dev"


def _rule_descriptor(r) -> dict:
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.what},
        "help": {"text": r.docs_markdown(), "markdown": r.docs_markdown()},
        "helpUri": rule_url(r.code),
        "defaultConfiguration": {"level": LEVELS.get(r.severity, "warning"), "enabled": True},
        "properties": {"tags": [r.family], **({"options": dict(r.options)} if r.options else {})},
    }


def _uri(path: str, root: str) -> tuple[str, Optional[str]]:
    rel = display_path(path, root)
    if os.path.isabs(rel):
        return Path(rel).as_uri(), None
    return Path(rel).as_posix(), "%SRCROOT%"


def _artifact(path: str, root: str) -> dict:
    uri, base = _uri(path, root)
    out = {"uri": uri}
    if base:
        out["uriBaseId"] = base
    return out


def _region(path: str, start: Location, end: Location, src: SourceLines, snippet: bool = False) -> dict:
    line = max(start.line, 1)
    end_line = max(end.line, line)
    r = {"startLine": line, "startColumn": src.char_column(path, line, start.column)}
    end_col = src.char_column(path, end_line, end.column)
    if end_line == line:
        end_col = max(end_col, r["startColumn"] + 1) if end.column > start.column else r["startColumn"] + 1
    r["endLine"], r["endColumn"] = end_line, max(end_col, 1)
    if snippet:
        text = src.line(path, line)
        if text is not None:
            r["snippet"] = {"text": text}
    return r


def _result(d: Diagnostic, rule_index: dict, root: str, src: SourceLines, seen: Counter) -> dict:
    fp = line_fingerprint(d, src)
    seen[fp] += 1
    res = {
        "ruleId": d.code,
        "level": LEVELS.get(d.severity, "warning"),
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(d.path, root),
                                            "region": _region(d.path, d.location, d.end_location, src, True)}}],
        "partialFingerprints": {"cudalintLineHash/v1": f"{fp}:{seen[fp]}"},
    }
    if d.code in rule_index:
        res["ruleIndex"] = rule_index[d.code]
    if d.kernel:
        res["properties"] = {"kernel": d.kernel}
        res["locations"][0]["logicalLocations"] = [{"name": d.kernel, "kind": "function"}]
    if d.related:
        res["relatedLocations"] = [
            {"id": i + 1, "message": {"text": r.message},
             "physicalLocation": {"artifactLocation": _artifact(r.path, root),
                                  "region": _region(r.path, r.location, Location(r.location.line, r.location.column + 1), src)}}
            for i, r in enumerate(d.related)]
    if d.fix is not None and d.fix.edits:
        res["fixes"] = [{
            "description": {"text": d.fix.description},
            "artifactChanges": [{
                "artifactLocation": _artifact(d.path, root),
                "replacements": [{
                    "deletedRegion": _fix_region(d.path, e.start, e.end, src),
                    "insertedContent": {"text": e.text},
                } for e in d.fix.edits],
            }],
            "properties": {"applicability": d.fix.applicability},
        }]
    return res


def _fix_region(path: str, start: Location, end: Location, src: SourceLines) -> dict:
    """An edit's region may be empty (an insertion): SARIF allows endColumn == startColumn."""
    r = {"startLine": start.line, "startColumn": src.char_column(path, start.line, start.column),
         "endLine": max(end.line, start.line)}
    r["endColumn"] = src.char_column(path, r["endLine"], end.column)
    if r["endLine"] == r["startLine"] and r["endColumn"] < r["startColumn"]:
        r["endColumn"] = r["startColumn"]
    return r


def sarif_document(results: list[FileResult], root: Optional[str] = None) -> dict:
    from ..rules.registry import all_rules

    root = os.path.abspath(root or os.getcwd())
    rules = all_rules()
    rule_index = {r.code: i for i, r in enumerate(rules)}
    src = SourceLines()
    seen: Counter = Counter()
    out_results = []
    notifications = []
    for fr in results:
        for d in sorted(fr.diagnostics, key=Diagnostic.sort_key):
            out_results.append(_result(d, rule_index, root, src, seen))
        if fr.error:
            notifications.append({"level": "error", "message": {"text": f"{fr.path}: {fr.error}"},
                                  "locations": [{"physicalLocation": {"artifactLocation": _artifact(fr.path, root)}}]})
    invocation = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "cudalint", "version": __version__, "semanticVersion": __version__,
                                "informationUri": INFO_URI, "rules": [_rule_descriptor(r) for r in rules]}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(root).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [invocation],
            "results": out_results,
        }],
    }


def render_sarif(results: list[FileResult], root: Optional[str] = None) -> str:
    return json.dumps(sarif_document(results, root), indent=2) + "\n"
