"""Project configuration: ``[tool.cudalint]`` in ``pyproject.toml``, or ``cudalint.toml`` /
``.cudalint.toml`` (top-level keys, no table header).

Discovery (as ruff does it): for each checked file, the directories from the file's own up to the
filesystem root are searched, and the **closest** configuration wins -- in one directory
``.cudalint.toml`` before ``cudalint.toml`` before a ``pyproject.toml`` that has a
``[tool.cudalint]`` table (a ``pyproject.toml`` without one is skipped). Configurations are never
merged silently: a file inherits from another only through ``extend = "../base.toml"``, and then
its own keys replace the base's (``rules.CODE`` tables merge key by key). ``--config FILE`` uses
FILE for every file; ``--isolated`` ignores all configuration. Command-line options override
configuration values (``--ignore`` adds to the configured ``ignore``).

Keys (kebab-case; snake_case spellings are accepted too)::

    extend = "../cudalint-base.toml"     # inherit, then override
    select = ["CL2", "CL3", "CL601"]     # codes or prefixes (default: all)
    ignore = ["CL5"]
    extend-select = [...]                # added to the (inherited) select
    extend-ignore = [...]
    [per-file-ignores]                   # glob (relative to this file's directory) -> codes
    "legacy/*.cu" = ["CL2"]
    [rules.CL401]                        # per-rule severity and options
    severity = "info"                    # error | warning | info | off
    min_occupancy = 0.25
    arch = "sm_80"          device = "a100-80gb"
    include-dirs = ["include"]           # relative to this file's directory
    defines = ["TILE=16"]
    block = [16, 16]                     # overrides every launch (like --block)
    default-block = [128]                # used only where no launch site / __launch_bounds__
    grid = [64, 64]         dynamic-smem = 0      params = {n = 4096}
    std = "c++17"           frontend = "clang"    compile-commands = "build"
    time-limit = 60         jobs = 8              cache-dir = ".cudalint_cache"
    exclude = ["build", "vendor/*"]      # globs: not walked into, headers not analysed
    extend-exclude = ["generated"]       # added to exclude (default: DEFAULT_EXCLUDE)
    fix = true              unsafe-fixes = false  # `check` applies fixes (--fix/--no-fix)

A configuration error raises :class:`ConfigError` naming the file, the key and the reason
(the CLI turns it into exit status 2).
"""
from __future__ import annotations

import fnmatch
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_NAMES = (".cudalint.toml", "cudalint.toml", "pyproject.toml")
SEVERITIES = ("error", "warning", "info")


class ConfigError(ValueError):
    def __init__(self, path: Optional[Path], key: Optional[str], reason: str):
        self.path, self.key, self.reason = path, key, reason
        where = str(path) if path else "configuration"
        super().__init__(f"{where}: {key}: {reason}" if key else f"{where}: {reason}")


# --------------------------------------------------------------------------------------------
# The resolved settings
# --------------------------------------------------------------------------------------------
@dataclass
class Settings:
    """Configuration values after ``extend`` resolution. ``None`` means "not configured"."""

    path: Optional[Path] = None  # the configuration file (None: defaults)
    chain: list[Path] = field(default_factory=list)  # path, then what it extends, ...
    select: Optional[list[str]] = None
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    # (directory the glob is relative to, glob, codes)
    per_file_ignores: list[tuple[str, str, list[str]]] = field(default_factory=list)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # code -> {severity?, options}
    arch: Optional[str] = None
    device: Optional[str] = None
    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    block: Optional[tuple[int, int, int]] = None
    default_block: Optional[tuple[int, int, int]] = None
    grid: Optional[tuple[int, int, int]] = None
    dynamic_smem: Optional[int] = None
    params: dict[str, float] = field(default_factory=dict)
    std: Optional[str] = None
    frontend: Optional[str] = None
    compile_commands: Optional[str] = None
    time_limit: Optional[float] = None
    jobs: Optional[int] = None
    cache_dir: Optional[str] = None
    exclude: Optional[list[str]] = None  # None: the default list
    extend_exclude: list[str] = field(default_factory=list)
    fix: bool = False  # `check` applies fixes (like --fix)
    unsafe_fixes: bool = False  # ... unsafe ones too (like --unsafe-fixes)

    # ---- what the runner needs ------------------------------------------------------------
    @property
    def root(self) -> Path:
        return self.path.parent if self.path else Path.cwd()

    def selected(self) -> list[str]:
        if self.select is None:
            return []  # everything (extend-select cannot add to "all")
        return list(self.select) + list(self.extend_select)

    def ignored(self) -> list[str]:
        out = list(self.ignore)
        out += [c for c, r in self.rules.items() if r.get("severity") == "off"]
        return out

    def per_file_ignored(self, path: str) -> list[str]:
        return per_file_codes(self.per_file_ignores, path)

    def excluded_patterns(self) -> list[str]:
        """The exclude globs in force (``project_files.excluded`` matches them)."""
        from .analyzer.frontend.project_files import DEFAULT_EXCLUDE
        base = list(DEFAULT_EXCLUDE) if self.exclude is None else list(self.exclude)
        return base + [p for p in self.extend_exclude if p not in base]

    def severity_overrides(self) -> dict[str, str]:
        return {c: r["severity"] for c, r in self.rules.items() if r.get("severity") in SEVERITIES}

    def rule_options(self) -> dict[str, dict[str, Any]]:
        return {c: dict(r["options"]) for c, r in self.rules.items() if r.get("options")}

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "config": str(self.path) if self.path else None,
            "extends": [str(p) for p in self.chain[1:]],
            "select": self.selected() or None,
            "ignore": self.ignored(),
            "per-file-ignores": {os.path.join(b, p) if not os.path.isabs(p) else p: c
                                 for b, p, c in self.per_file_ignores},
            "rules": {c: {**({"severity": r["severity"]} if "severity" in r else {}), **r.get("options", {})}
                      for c, r in sorted(self.rules.items())},
        }
        for k in ("arch", "device", "include_dirs", "defines", "block", "default_block", "grid",
                  "dynamic_smem", "params", "std", "frontend", "compile_commands", "time_limit",
                  "jobs", "cache_dir", "exclude", "extend_exclude", "fix", "unsafe_fixes"):
            v = getattr(self, k)
            out[k.replace("_", "-")] = list(v) if isinstance(v, tuple) else v
        return out


def per_file_codes(table, path: str) -> list[str]:
    """The codes that ``per-file-ignores`` entries ``(base directory, glob, codes)`` ignore in
    ``path`` (the checked file, or a header whose findings it reports)."""
    out: list[str] = []
    ap = os.path.abspath(path)
    for base, pattern, codes in table:
        rel = os.path.relpath(ap, base).replace(os.sep, "/")
        if fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern.rstrip("/") + "/*") \
                or ("/" not in pattern and fnmatch.fnmatchcase(os.path.basename(ap), pattern)) \
                or fnmatch.fnmatchcase(ap.replace(os.sep, "/"), pattern):
            out.extend(codes)
    return out


# --------------------------------------------------------------------------------------------
# Validation of one file's table
# --------------------------------------------------------------------------------------------
def _rules_index():
    from .rules.registry import all_rules
    return {r.code: r for r in all_rules()}


def _check_codes(val, key: str, path: Path, allow_all: bool = False) -> list[str]:
    if isinstance(val, str):
        val = [val]
    if not isinstance(val, list) or not all(isinstance(v, str) for v in val):
        raise ConfigError(path, key, f"expected a list of rule codes or prefixes, got {_tname(val)}")
    rules = _rules_index()
    out = []
    for v in val:
        c = v.strip().upper()
        if allow_all and c == "ALL":
            c = "CL"
        if not c.startswith("CL") or not any(r.startswith(c) for r in rules):
            raise ConfigError(path, key, unknown_code_message(v, rules))
        out.append(c)
    return out


def unknown_code_message(code: str, rules) -> str:
    """"unknown rule code or prefix 'CL2O1' (did you mean CL201?)", the nearest real code or
    prefix by look-alike characters (O/0, I/l/1, S/5, B/8, Z/2) and then by spelling."""
    import difflib
    c = code.strip().upper()
    known = sorted(set(rules) | {r[:n] for r in rules for n in (3, 4)} | {"CL"})
    fixed = c.translate(str.maketrans("OILSBZ", "011582"))
    fixed = "CL" + fixed[2:] if c.startswith("CL") else "CL" + fixed.lstrip("CL")
    near = [fixed] if fixed in known else difflib.get_close_matches(c, known, n=1, cutoff=0.6)
    hint = f"did you mean {near[0]}? " if near else ""
    return f"unknown rule code or prefix {code!r} ({hint}`cudalint rules` lists them)"


def _tname(v) -> str:
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
            list: "an array", dict: "a table"}.get(type(v), type(v).__name__)


def _dim(val, key: str, path: Path) -> tuple[int, int, int]:
    if isinstance(val, int) and not isinstance(val, bool):
        val = [val]
    elif isinstance(val, str):
        try:
            val = [int(p) for p in val.replace("x", ",").split(",") if p.strip()]
        except ValueError:
            raise ConfigError(path, key, f"expected 1 to 3 positive integers like [16, 16], got {val!r}")
    if not isinstance(val, list) or not 1 <= len(val) <= 3 or \
            not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in val):
        raise ConfigError(path, key, f"expected 1 to 3 positive integers like [16, 16], got {val!r}")
    return tuple((list(val) + [1, 1])[:3])


def _str(val, key, path) -> str:
    if not isinstance(val, str):
        raise ConfigError(path, key, f"expected a string, got {_tname(val)}")
    return val


def _strlist(val, key, path) -> list[str]:
    if isinstance(val, str):
        val = [val]
    if not isinstance(val, list) or not all(isinstance(v, str) for v in val):
        raise ConfigError(path, key, f"expected a list of strings, got {_tname(val)}")
    return list(val)


def _number(val, key, path, integer=False, positive=True):
    ok = isinstance(val, int) if integer else isinstance(val, (int, float))
    if not ok or isinstance(val, bool) or (positive and val <= 0) or (not positive and val < 0):
        kind = "integer" if integer else "number"
        raise ConfigError(path, key, f"expected a {'positive' if positive else 'non-negative'} {kind}, got {val!r}")
    return val


def _relpath(val: str, base: Path) -> str:
    p = Path(os.path.expanduser(val))
    return str(p if p.is_absolute() else (base / p).resolve())


_KEYS = {"extend", "select", "ignore", "extend-select", "extend-ignore", "per-file-ignores", "rules",
         "arch", "device", "include-dirs", "defines", "block", "default-block", "grid",
         "dynamic-smem", "params", "std", "frontend", "compile-commands", "time-limit", "jobs",
         "cache-dir", "exclude", "extend-exclude", "fix", "unsafe-fixes"}


def _norm_key(k: str) -> str:
    return k.replace("_", "-")


def _parse_table(table: dict, path: Path, prefix: str) -> dict:
    """Validate one configuration table; return {key: value} with paths made absolute."""
    base = path.parent
    out: dict[str, Any] = {}
    for raw_key, val in table.items():
        key = _norm_key(raw_key)
        qk = prefix + raw_key
        if key not in _KEYS:
            import difflib
            close = difflib.get_close_matches(key, sorted(_KEYS), n=2)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise ConfigError(path, qk, f"unknown key{hint}")
        if key == "extend":
            out[key] = _relpath(_str(val, qk, path), base)
        elif key in ("select", "extend-select"):
            out[key] = _check_codes(val, qk, path, allow_all=True)
        elif key in ("ignore", "extend-ignore"):
            out[key] = _check_codes(val, qk, path)
        elif key == "per-file-ignores":
            if not isinstance(val, dict):
                raise ConfigError(path, qk, f"expected a table of glob = [codes], got {_tname(val)}")
            out[key] = [(str(base), g, _check_codes(c, f"{qk}.{g!r}", path)) for g, c in val.items()]
        elif key == "rules":
            out[key] = _parse_rules(val, path, qk)
        elif key == "arch":
            arch = _str(val, qk, path)
            from .analyzer.target import load_target
            try:
                load_target(arch)
            except ValueError as e:
                raise ConfigError(path, qk, str(e))
            out[key] = arch
        elif key == "device":
            dev = _str(val, qk, path)
            from .analyzer.devices import resolve_device
            try:
                resolve_device(dev)
            except ValueError as e:
                raise ConfigError(path, qk, str(e))
            out[key] = dev
        elif key == "include-dirs":
            out[key] = [_relpath(d, base) for d in _strlist(val, qk, path)]
        elif key == "defines":
            out[key] = _strlist(val, qk, path)
        elif key in ("block", "default-block", "grid"):
            out[key] = _dim(val, qk, path)
        elif key == "dynamic-smem":
            out[key] = _number(val, qk, path, integer=True, positive=False)
        elif key == "params":
            if not isinstance(val, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                    for v in val.values()):
                raise ConfigError(path, qk, "expected a table of NAME = number")
            out[key] = dict(val)
        elif key == "std":
            out[key] = _str(val, qk, path)
        elif key == "frontend":
            v = _str(val, qk, path)
            if v not in ("clang", "pycparser"):
                raise ConfigError(path, qk, f"expected \"clang\" or \"pycparser\", got {v!r}")
            out[key] = v
        elif key in ("compile-commands", "cache-dir"):
            out[key] = _relpath(_str(val, qk, path), base)
        elif key == "time-limit":
            out[key] = float(_number(val, qk, path))
        elif key == "jobs":
            out[key] = _number(val, qk, path, integer=True)
        elif key in ("exclude", "extend-exclude"):
            from .analyzer.frontend.project_files import absolute_patterns
            out[key] = absolute_patterns(_strlist(val, qk, path), str(base))
        elif key in ("fix", "unsafe-fixes"):
            if not isinstance(val, bool):
                raise ConfigError(path, qk, f"expected true or false, got {_tname(val)}")
            out[key] = val
    return out


def _parse_rules(val, path: Path, qk: str) -> dict:
    if not isinstance(val, dict):
        raise ConfigError(path, qk, f"expected a table of rule codes, got {_tname(val)}")
    rules = _rules_index()
    out: dict[str, dict] = {}
    for code, settings in val.items():
        ck = f"{qk}.{code}"
        rule = rules.get(code.upper())
        if rule is None:
            raise ConfigError(path, ck, "unknown rule code (`cudalint rules` lists them)")
        if not isinstance(settings, dict):
            raise ConfigError(path, ck, f"expected a table (severity, options), got {_tname(settings)}")
        entry: dict[str, Any] = {"options": {}}
        by_norm = {o.replace("-", "_"): o for o in rule.options}
        for name, v in settings.items():
            if name == "severity":
                if v not in SEVERITIES + ("off",):
                    raise ConfigError(path, f"{ck}.severity",
                                      f"expected one of error, warning, info, off; got {v!r}")
                entry["severity"] = v
                continue
            opt = by_norm.get(name.replace("-", "_"))
            if opt is None:
                have = ", ".join(rule.options) or "none"
                raise ConfigError(path, f"{ck}.{name}", f"unknown option for {rule.code} "
                                  f"(options: {have}; or `severity`)")
            default = rule.options[opt]
            if isinstance(default, bool):
                good = isinstance(v, bool)
            elif isinstance(default, (int, float)):
                good = isinstance(v, (int, float)) and not isinstance(v, bool)
            else:
                good = isinstance(v, type(default))
            if not good:
                raise ConfigError(path, f"{ck}.{name}", f"expected {_tname(default)} like the default "
                                  f"{default!r}, got {v!r}")
            entry["options"][opt] = v
        out[rule.code] = entry
    return out


# --------------------------------------------------------------------------------------------
# Loading and discovery
# --------------------------------------------------------------------------------------------
def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ConfigError(path, None, f"cannot read: {e.strerror or e}")
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(path, None, f"invalid TOML: {e}")


def _table_of(path: Path, data: dict, required: bool) -> Optional[tuple[dict, str]]:
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        if not isinstance(tool, dict) or "cudalint" not in tool:
            if required:
                raise ConfigError(path, None, "no [tool.cudalint] table")
            return None
        t = tool["cudalint"]
        if not isinstance(t, dict):
            raise ConfigError(path, "tool.cudalint", "expected a table")
        return t, "tool.cudalint."
    return data, ""


def load_config(path: Path | str, _seen: Optional[list[Path]] = None) -> Settings:
    """Load one configuration file (following ``extend``)."""
    path = Path(path).resolve()
    seen = list(_seen or [])
    if path in seen:
        raise ConfigError(path, "extend", "circular extend: " + " -> ".join(str(p) for p in seen + [path]))
    if not path.is_file():
        raise ConfigError(path, None, "no such configuration file")
    table, prefix = _table_of(path, _read_toml(path), required=True)
    own = _parse_table(table, path, prefix)
    if "extend" in own:
        base = load_config(own["extend"], seen + [path])
    else:
        base = Settings()
    return _merge(base, own, path)


def _merge(base: Settings, own: dict, path: Path) -> Settings:
    s = Settings(**{k: v for k, v in base.__dict__.items()})
    s.path = path
    s.chain = [path] + list(base.chain)
    s.rules = {c: {**r, "options": dict(r.get("options", {}))} for c, r in base.rules.items()}
    for key, val in own.items():
        attr = key.replace("-", "_")
        if key == "extend":
            continue
        if key == "select":
            s.select, s.extend_select = list(val), []
        elif key == "exclude":
            s.exclude, s.extend_exclude = list(val), []
        elif key == "extend-exclude":
            s.extend_exclude = list(s.extend_exclude) + list(val)
        elif key == "extend-select":
            s.extend_select = list(s.extend_select) + list(val)
        elif key == "extend-ignore":
            s.ignore = list(s.ignore) + list(val)
        elif key == "rules":
            for code, entry in val.items():
                cur = s.rules.setdefault(code, {"options": {}})
                if "severity" in entry:
                    cur["severity"] = entry["severity"]
                cur["options"].update(entry["options"])
        else:
            setattr(s, attr, val)
    return s


def find_config_file(start: Path | str) -> Optional[Path]:
    """The closest configuration file for ``start`` (a file or directory), or None."""
    p = Path(start).resolve()
    d = p if p.is_dir() else p.parent
    for directory in [d, *d.parents]:
        for name in CONFIG_NAMES:
            cand = directory / name
            if not cand.is_file():
                continue
            if name == "pyproject.toml":
                try:
                    data = _read_toml(cand)
                except ConfigError:
                    return cand  # a broken pyproject.toml: let load_config report it
                if _table_of(cand, data, required=False) is None:
                    continue
            return cand
    return None


class ConfigResolver:
    """Settings for each checked file: ``--config`` (one file for all), ``--isolated`` (none),
    or discovery (closest configuration, cached per directory)."""

    def __init__(self, config: Optional[Path | str] = None, isolated: bool = False):
        self.isolated = isolated
        self.fixed: Optional[Settings] = None
        if isolated:
            self.fixed = Settings()
        elif config is not None:
            self.fixed = load_config(config)
        self._by_dir: dict[str, Settings] = {}
        self._by_file: dict[Path, Settings] = {}

    def for_path(self, path: str | Path) -> Settings:
        if self.fixed is not None:
            return self.fixed
        p = Path(path)
        d = str((p if p.is_dir() else p.parent).resolve())
        if d not in self._by_dir:
            cfg = find_config_file(d)
            if cfg is None:
                self._by_dir[d] = Settings()
            else:
                if cfg not in self._by_file:
                    self._by_file[cfg] = load_config(cfg)
                self._by_dir[d] = self._by_file[cfg]
        return self._by_dir[d]


def dump_toml(settings: Settings) -> str:
    """A readable TOML rendering of the resolved settings (`cudalint config --show`)."""
    doc = settings.to_json()
    lines = [f"# configuration: {doc.pop('config') or '(none: defaults)'}"]
    ext = doc.pop("extends")
    if ext:
        lines.append("# extends: " + " -> ".join(ext))
    pfi = doc.pop("per-file-ignores")
    rules = doc.pop("rules")
    for k, v in doc.items():
        if v is None or v == [] or v == {}:
            lines.append(f"# {k} = (default)")
        else:
            lines.append(f"{k} = {_toml_value(v)}")
    if pfi:
        lines += ["", "[per-file-ignores]"] + [f"{json.dumps(g)} = {_toml_value(c)}" for g, c in pfi.items()]
    for code, entry in rules.items():
        lines += ["", f"[rules.{code}]"] + [f"{k} = {_toml_value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


# --------------------------------------------------------------------------------------------
# From settings (and the command line) to the analyzer's and the runner's options
# --------------------------------------------------------------------------------------------
#: AnalysisOptions field <- Settings attribute, for values the command line may override.
_SCALAR_FIELDS = ("arch", "device", "block", "grid", "dynamic_smem", "std", "frontend",
                  "compile_commands", "default_block")


def analysis_options_for(settings: Settings, base, explicit: set[str]):
    """``base`` (AnalysisOptions built from the command line) with the configured values filled
    in where the command line did not give one (``explicit`` names the CLI fields given)."""
    import dataclasses

    kw: dict[str, Any] = {}
    for f in _SCALAR_FIELDS:
        v = getattr(settings, f)
        if v is not None and f not in explicit:
            kw[f] = v
    if settings.include_dirs:
        kw["include_dirs"] = list(base.include_dirs) + [d for d in settings.include_dirs
                                                        if d not in base.include_dirs]
    if settings.defines:
        kw["defines"] = list(settings.defines) + list(base.defines)  # the command line's last: it wins
    if settings.params:
        kw["params"] = {**settings.params, **base.params}
    return dataclasses.replace(base, **kw) if kw else base


def check_options_for(settings: Settings, path: str, cli_select: list[str], cli_ignore: list[str]):
    from .rules.options import CheckOptions

    return CheckOptions(select=list(cli_select) if cli_select else settings.selected(),
                        ignore=settings.ignored() + settings.per_file_ignored(path) + list(cli_ignore),
                        rule_options=settings.rule_options(),
                        severity_overrides=settings.severity_overrides(),
                        per_file_ignores=list(settings.per_file_ignores))
