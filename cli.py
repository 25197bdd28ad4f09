"""Command-line interface. ``cudalint FILE...`` is ``cudalint check FILE...``.

Exit codes: 0 clean, 1 findings (warnings or errors), 2 usage/config/tool error or a file that
could not be analysed (CL000).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from . import __version__
from .analyzer.target import DEFAULT_ARCH

app = typer.Typer(
    name="cudalint",
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Static analyzer for CUDA C/C++: memory spaces, coalescing, bank conflicts, CGMA, "
         "occupancy and barriers, before anything runs.",
)

CUDA_SUFFIXES = (".cu", ".cuh")


def _err(msg: str) -> None:
    typer.echo(f"cudalint: error: {msg}", err=True)


def _parse_dim(text: Optional[str], what: str) -> Optional[tuple[int, int, int]]:
    if text is None:
        return None
    parts = [p for p in text.replace("x", ",").split(",") if p.strip()]
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        _err(f"{what} must be 1 to 3 positive integers like 16,16 (got {text!r})")
        raise typer.Exit(2)
    if not 1 <= len(vals) <= 3 or any(v <= 0 for v in vals):
        _err(f"{what} must be 1 to 3 positive integers like 16,16 (got {text!r})")
        raise typer.Exit(2)
    return tuple((vals + [1, 1])[:3])


def _parse_params(items: Optional[List[str]]) -> dict:
    out = {}
    for it in items or []:
        if "=" not in it:
            _err(f"--param expects NAME=VALUE (got {it!r})")
            raise typer.Exit(2)
        k, v = it.split("=", 1)
        try:
            out[k.strip()] = int(v, 0)
        except ValueError:
            try:
                out[k.strip()] = float(v)
            except ValueError:
                _err(f"--param {k}: value must be a number (got {v!r})")
                raise typer.Exit(2)
    return out


def collect_files(paths: List[Path], exclude=None) -> list[str]:
    """Expand directories to the .cu/.cuh files they contain (sorted, hidden dirs and what an
    exclude glob matches skipped); keep explicit file paths as given, even if missing (they get
    CL000). ``exclude(directory)`` gives the exclude globs that apply under a directory."""
    from .analyzer.frontend.project_files import excluded

    out: list[str] = []
    for p in paths:
        if p.is_dir():
            pats = exclude(p) if exclude else []
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and
                                 not excluded(os.path.join(root, d), pats, below=str(p)))
                for f in sorted(files):
                    if f.endswith(CUDA_SUFFIXES) and not excluded(os.path.join(root, f), pats, below=str(p)):
                        out.append(os.path.join(root, f))
        else:
            out.append(str(p))
    return out


def _analysis_options(arch, block, grid, dynamic_smem, params, include, define, std,
                      compile_commands, frontend, device=None, peak_gflops=None, bandwidth_gbs=None):
    from .analyzer.options import AnalysisOptions
    from .analyzer.target import load_target

    try:
        load_target(arch)
    except ValueError as e:
        _err(str(e))
        raise typer.Exit(2)
    if frontend not in ("clang", "pycparser"):
        _err(f"--frontend must be clang or pycparser (got {frontend!r})")
        raise typer.Exit(2)
    if device is not None or peak_gflops is not None or bandwidth_gbs is not None:
        from .analyzer.devices import resolve_device
        try:  # an unknown --device or bad figures is a usage error, before any file is read
            resolve_device(device, peak_gflops=peak_gflops, bandwidth_gbs=bandwidth_gbs, arch=arch)
        except ValueError as e:
            _err(str(e))
            raise typer.Exit(2)
    return AnalysisOptions(
        arch=arch, block=_parse_dim(block, "--block"), grid=_parse_dim(grid, "--grid"),
        dynamic_smem=dynamic_smem, params=_parse_params(params),
        include_dirs=[str(i) for i in include or []], defines=list(define or []), std=std,
        frontend=frontend, compile_commands=str(compile_commands) if compile_commands else None,
        device=device, peak_gflops=peak_gflops, bandwidth_gbs=bandwidth_gbs,
    )


# Options shared by check and explain (typer needs them spelled out per command).
ArchOpt = typer.Option(DEFAULT_ARCH, "--arch", help="Target architecture, e.g. sm_80, sm_90.")
BlockOpt = typer.Option(None, "--block", help="Block shape X[,Y[,Z]]; overrides launch sites.")
GridOpt = typer.Option(None, "--grid", help="Grid shape X[,Y[,Z]].")
SmemOpt = typer.Option(None, "--dynamic-smem", help="Dynamic shared memory per block, bytes.")
ParamOpt = typer.Option(None, "--param", help="Kernel parameter value NAME=VALUE (repeatable).")
IncludeOpt = typer.Option(None, "-I", "--include-dir", help="Include directory (repeatable).")
DefineOpt = typer.Option(None, "-D", "--define", help="Preprocessor define NAME[=VALUE] (repeatable).")
StdOpt = typer.Option("c++17", "--std", help="C++ standard for parsing.")
CCOpt = typer.Option(None, "--compile-commands", help="compile_commands.json (file or its directory).")
FrontendOpt = typer.Option("clang", "--frontend", help="clang (CUDA C++) or pycparser (plain C kernels).")
DeviceOpt = typer.Option(None, "--device", help="GPU preset for the roofline, e.g. h100-sxm, a100-80gb, g80.")
PeakOpt = typer.Option(None, "--peak-gflops", help="Peak GFLOPS of a device with no preset.")
BandwidthOpt = typer.Option(None, "--bandwidth-gbs", help="DRAM bandwidth (GB/s) of a device with no preset.")
ConfigOpt = typer.Option(None, "--config", help="Use this configuration file (cudalint.toml or pyproject.toml) for every file.")
IsolatedOpt = typer.Option(False, "--isolated", help="Ignore all configuration files.")
ExcludeOpt = typer.Option(None, "--exclude", help="Globs of files/directories not to check or analyse as headers (replaces the configured and default list; repeatable).")
ExtendExcludeOpt = typer.Option(None, "--extend-exclude", help="Globs added to the exclude list (repeatable).")


@app.command("check")
def check_cmd(
    ctx: typer.Context,
    paths: List[Path] = typer.Argument(..., help="CUDA files or directories (.cu/.cuh searched)."),
    arch: str = ArchOpt,
    block: Optional[str] = BlockOpt,
    grid: Optional[str] = GridOpt,
    dynamic_smem: Optional[int] = SmemOpt,
    param: Optional[List[str]] = ParamOpt,
    include: Optional[List[Path]] = IncludeOpt,
    define: Optional[List[str]] = DefineOpt,
    std: str = StdOpt,
    compile_commands: Optional[Path] = CCOpt,
    frontend: str = FrontendOpt,
    device: Optional[str] = DeviceOpt,
    peak_gflops: Optional[float] = PeakOpt,
    bandwidth_gbs: Optional[float] = BandwidthOpt,
    select: Optional[List[str]] = typer.Option(None, "--select", help="Only these codes/prefixes (comma-separated or repeated)."),
    extend_select: Optional[List[str]] = typer.Option(None, "--extend-select", help="Codes/prefixes added to the selected ones."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Skip these codes/prefixes."),
    exclude: Optional[List[str]] = ExcludeOpt,
    extend_exclude: Optional[List[str]] = ExtendExcludeOpt,
    output_format: str = typer.Option("text", "--output-format", help="text | full | json | sarif | github"),
    output_file: Optional[Path] = typer.Option(None, "--output-file", help="Write the report here."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    statistics: bool = typer.Option(False, "--statistics", help="Show how many diagnostics each rule produced instead of the list."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", help="Findings recorded in this file are accepted; only new ones are reported (a missing file is created with today's findings)."),
    update_baseline: bool = typer.Option(False, "--update-baseline", help="Rewrite the --baseline file with today's findings."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: the machine's cores; 1 = in-process, as on a machine of 2 cores or fewer, where one process already uses both)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the result cache."),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", help="Per-file analysis time limit in seconds (default 60)."),
    fix: Optional[bool] = typer.Option(None, "--fix/--no-fix", help="Apply safe fixes, re-check, report what remains (config key `fix`)."),
    unsafe_fixes: Optional[bool] = typer.Option(None, "--unsafe-fixes/--no-unsafe-fixes", help="Also apply (and count as fixable) fixes that may change behaviour (config key `unsafe-fixes`)."),
    diff: bool = typer.Option(False, "--diff", help="Print a diff of what the fixes would change instead of writing it (implies --fix-only)."),
    fix_only: bool = typer.Option(False, "--fix-only", help="Apply fixes but do not report (or fail on) what remains."),
    config: Optional[Path] = ConfigOpt,
    isolated: bool = IsolatedOpt,
):
    """Check files and report diagnostics."""
    from .engine import ResultCache, check_files, default_cache_dir

    aopts = _analysis_options(arch, block, grid, dynamic_smem, param, include, define, std,
                              compile_commands, frontend, device, peak_gflops, bandwidth_gbs)
    if output_format not in OUTPUT_FORMATS:
        _err(f"--output-format must be one of {', '.join(OUTPUT_FORMATS)} (got {output_format!r})")
        raise typer.Exit(2)
    if jobs is not None and jobs < 1:
        _err(f"--jobs must be at least 1 (got {jobs})")
        raise typer.Exit(2)
    if update_baseline and baseline is None:
        _err("--update-baseline needs --baseline FILE")
        raise typer.Exit(2)
    sel, ext, ign = _codes(select, "--select"), _codes(extend_select, "--extend-select"), _codes(ignore, "--ignore")
    excl = _Excludes(_resolver(config, isolated), exclude, extend_exclude)
    files = collect_files(paths, excl.for_dir)
    if not files:
        _err("no .cu/.cuh files found")
        raise typer.Exit(2)
    tasks, first = _plan(ctx, files, aopts, sel, ign, config, isolated, time_limit, excl, ext)
    cache = None
    if not no_cache:
        cache = ResultCache(default_cache_dir(first.cache_dir))
    results = check_files(tasks, jobs=jobs or first.jobs, cache=cache, progress=sys.stderr.isatty())
    unsafe = first.unsafe_fixes if unsafe_fixes is None else unsafe_fixes
    if diff or fix_only or (first.fix if fix is None else fix):
        from .fix import run_fix
        results, code = run_fix(tasks, results, unsafe, diff, fix_only or diff, jobs or first.jobs)
        if code is not None:
            raise typer.Exit(code)
    if baseline is not None:
        from .baseline import BaselineError, filter_baseline, write_baseline
        if update_baseline or not baseline.exists():
            n = write_baseline(baseline, results)
            typer.echo(f"cudalint: recorded {n} finding(s) in baseline {baseline}", err=True)
            results = [r.__class__(path=r.path, diagnostics=[d for d in r.diagnostics if d.code == "CL000"],
                                   error=r.error, notes=r.notes) for r in results]
        else:
            try:
                results, _ = filter_baseline(baseline, results)
            except BaselineError as e:
                _err(str(e))
                raise typer.Exit(2)
    _emit(_render(results, output_format, statistics, output_file, unsafe), output_file)
    if any(r.error for r in results):
        raise typer.Exit(2)
    if exit_zero:
        raise typer.Exit(0)
    failing = any(d.severity != "info" for r in results for d in r.diagnostics)
    raise typer.Exit(1 if failing else 0)


OUTPUT_FORMATS = ("text", "full", "json", "sarif", "github")
_CLI_FIELDS = ("arch", "block", "grid", "dynamic_smem", "std", "frontend", "compile_commands", "device")


def _resolver(config: Optional[Path], isolated: bool):
    from .config import ConfigError, ConfigResolver
    try:
        return ConfigResolver(config, isolated)
    except ConfigError as e:
        _err(str(e))
        raise typer.Exit(2)


class _Excludes:
    """The exclude globs for a place: --exclude (replacing) / --extend-exclude (adding) over the
    configuration's ``exclude``/``extend-exclude`` (or the default list)."""

    def __init__(self, resolver, exclude, extend_exclude):
        from .analyzer.frontend.project_files import absolute_patterns
        self.resolver = resolver
        self.exclude = None if exclude is None else absolute_patterns(exclude, os.getcwd())
        self.extend = absolute_patterns(extend_exclude or [], os.getcwd())

    def for_settings(self, st) -> list[str]:
        base = self.exclude if self.exclude is not None else st.excluded_patterns()
        return list(base) + [p for p in self.extend if p not in base]

    def for_dir(self, path) -> list[str]:
        from .config import ConfigError
        try:
            return self.for_settings(self.resolver.for_path(path))
        except ConfigError as e:
            _err(str(e))
            raise typer.Exit(2)


def _plan(ctx, files, aopts, select, ignore, config, isolated, time_limit, excl=None, extend_select=()):
    """One Task per file: its configuration (closest config file, or --config / --isolated)
    merged under the command line's options."""
    from .config import ConfigError, analysis_options_for, check_options_for
    from .engine import Task
    from .rules.options import DEFAULT_TIME_LIMIT_S

    resolver = _resolver(config, isolated)
    explicit = {f for f in _CLI_FIELDS  # options given on the command line (not defaults)
                if getattr(ctx.get_parameter_source(f), "name", "DEFAULT") not in ("DEFAULT", "DEFAULT_MAP")}
    per_settings: dict = {}
    tasks = []
    first = None
    for f in files:
        try:
            st = resolver.for_path(f)
        except ConfigError as e:
            _err(str(e))
            raise typer.Exit(2)
        first = first or st
        if id(st) not in per_settings:
            a = analysis_options_for(st, aopts, explicit)
            if excl is not None:
                import dataclasses
                a = dataclasses.replace(a, exclude=excl.for_settings(st))
            per_settings[id(st)] = a
        copts = check_options_for(st, f, list(select or []), list(ignore or []))
        if extend_select and copts.select:
            copts.select += [c for c in extend_select if c not in copts.select]
        limit = time_limit if time_limit is not None else (st.time_limit or DEFAULT_TIME_LIMIT_S)
        tasks.append(Task(f, per_settings[id(st)], copts, limit))
    return tasks, first


def _render(results, output_format: str, statistics: bool, output_file: Optional[Path],
            unsafe_fixes: bool = False) -> str:
    if statistics:
        from .reporters.statistics import render_statistics
        return render_statistics(results, "json" if output_format == "json" else "text", unsafe_fixes)
    if output_format == "json":
        from .reporters.json_report import render_json
        return render_json(results)
    if output_format == "sarif":
        from .reporters.sarif import render_sarif
        return render_sarif(results)
    if output_format == "github":
        from .reporters.github import render_github
        return render_github(results)
    if output_format == "full":
        from .reporters.text import render_full
        text = render_full(results, color=output_file is None and sys.stdout.isatty())
        return text + ("\n" if text and not text.endswith("\n") else "")
    from .reporters.text import render_text
    return render_text(results)


def _codes(items: Optional[List[str]], option: str = "--select") -> list[str]:
    """Rule codes or prefixes from the command line; an unknown one is a usage error (exit 2)
    naming the nearest real code."""
    from .config import unknown_code_message
    from .rules.registry import all_rules

    out = []
    known = None
    for it in items or []:
        for c in (c.strip().upper() for c in it.split(",") if c.strip()):
            known = known or [r.code for r in all_rules()]
            if c == "ALL" and option != "--ignore":
                c = "CL"
            if not c.startswith("CL") or not any(k.startswith(c) for k in known):
                _err(f"{option}: {unknown_code_message(c, known)}")
                raise typer.Exit(2)
            out.append(c)
    return out


def _emit(text: str, output_file: Optional[Path]) -> None:
    if output_file is not None:
        output_file.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


@app.command("explain")
def explain_cmd(
    ctx: typer.Context,
    paths: List[Path] = typer.Argument(..., help="CUDA files or directories."),
    arch: str = ArchOpt,
    block: Optional[str] = BlockOpt,
    grid: Optional[str] = GridOpt,
    dynamic_smem: Optional[int] = SmemOpt,
    param: Optional[List[str]] = ParamOpt,
    include: Optional[List[Path]] = IncludeOpt,
    define: Optional[List[str]] = DefineOpt,
    std: str = StdOpt,
    compile_commands: Optional[Path] = CCOpt,
    frontend: str = FrontendOpt,
    device: Optional[str] = DeviceOpt,
    peak_gflops: Optional[float] = PeakOpt,
    bandwidth_gbs: Optional[float] = BandwidthOpt,
    kernel: Optional[str] = typer.Option(None, "--kernel", help="Only this kernel."),
    output_format: str = typer.Option("text", "--output-format", help="text | json"),
    output_file: Optional[Path] = typer.Option(None, "--output-file", help="Write the report here."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw the device's roofline with each kernel as a point (e.g. roofline.png; needs matplotlib)."),
    exclude: Optional[List[str]] = ExcludeOpt,
    extend_exclude: Optional[List[str]] = ExtendExcludeOpt,
    config: Optional[Path] = ConfigOpt,
    isolated: bool = IsolatedOpt,
):
    """Show per-kernel facts: launch configuration and where every variable lives."""
    aopts = _analysis_options(arch, block, grid, dynamic_smem, param, include, define, std,
                              compile_commands, frontend, device, peak_gflops, bandwidth_gbs)
    if output_format not in ("text", "json"):
        _err(f"--output-format must be text or json (got {output_format!r})")
        raise typer.Exit(2)
    from .engine import _plan as plan_tasks
    from .includers import confirmed, plan, unique_kernels

    excl = _Excludes(_resolver(config, isolated), exclude, extend_exclude)
    files = collect_files(paths, excl.for_dir)
    tasks, _ = _plan(ctx, files, aopts, None, None, config, isolated, None, excl)  # configuration
    roots, covered = plan_tasks(tasks, plan)
    done: dict[int, object] = {}
    # Each file is parsed and lowered in a forked process of its own (a libclang crash or hang
    # is that file's error), meanwhile the analyses load here; forked before any thread starts.
    from .isolation import frontends

    fronts = frontends(tasks, roots)
    from .analyzer.lowering import FrontendGone
    from .analyzer.pipeline import analyze_file
    from .analyzer.ptxas_jobs import start as start_ptxas
    from .reporters.explain import render_explain_json, render_explain_text
    for f, task in zip(files, tasks):
        start_ptxas(f, task.aopts)  # compiles in the background while the files are analysed

    def explain_one(i: int) -> None:
        from .analyzer.pipeline import FileAnalysis, ParseProblem
        try:
            fa = analyze_file(files[i], tasks[i].aopts)
        except FrontendGone:
            fa = FileAnalysis(path=files[i], error=ParseProblem(fronts[i].why()))
        except Exception as exc:  # never a traceback for the user
            fa = FileAnalysis(path=files[i], error=ParseProblem(f"internal error: {type(exc).__name__}: {exc}"))
        if i in fronts:
            fronts[i].end(60.0)  # (its compile of the register report, if the analysis did not wait for it)
        done[i] = fa

    for i in roots:
        explain_one(i)
    if covered:  # a file included by another one is explained through it (see `check`)
        for i in confirmed(covered, files, {i: fa.dependencies for i, fa in done.items()})[1]:
            explain_one(i)
    analyses = unique_kernels([done[i] for i in sorted(done)])
    failed = False
    for fa in analyses:
        if kernel:
            fa.kernels = [k for k in fa.kernels if kernel in (k.name, k.function.name)]
        # A file, or a kernel in it, that could not be analysed fails the run (exit 2).
        failed |= fa.error is not None or bool(fa.kernel_errors)
    arch = tasks[0].aopts.arch if tasks else arch  # the configured arch when --arch was not given
    if output_format == "json":
        text = render_explain_json(analyses, arch)
    else:
        text = render_explain_text(analyses, arch, color=output_file is None and sys.stdout.isatty())
    _emit(text, output_file)
    if plot is not None:
        from .reporters.roofline_plot import plot_kernels
        try:
            plot_kernels(analyses, plot, aopts)
        except (ImportError, ValueError, OSError) as e:
            _err(f"--plot: {e}")
            raise typer.Exit(2)
    raise typer.Exit(2 if failed else 0)


@app.command("rule")
def rule_cmd(code: str = typer.Argument(..., help="Rule code, e.g. CL101.")):
    """Show a rule's documentation."""
    from .rules.registry import get_rule

    r = get_rule(code)
    if r is None:
        _err(f"unknown rule {code!r}; `cudalint rules` lists them")
        raise typer.Exit(2)
    typer.echo(r.docs_markdown())


@app.command("rules")
def rules_cmd(
    output_format: str = typer.Option("text", "--output-format", help="text | json | markdown (the README's rule table)"),
    write_docs: Optional[Path] = typer.Option(None, "--write-docs", help="Write one page per rule, DIR/<CODE>.md (the repository's docs/rules)."),
    update_readme: Optional[Path] = typer.Option(None, "--update-readme", help="Replace the rule table between the markers of this README."),
):
    """List all rules (or write their documentation)."""
    import json

    from .reporters import rule_docs
    from .rules.registry import all_rules

    rules = all_rules()
    if write_docs is not None or update_readme is not None:
        if write_docs is not None:
            n = len(rule_docs.write_pages(rules, write_docs))
            typer.echo(f"wrote {n} rule pages to {write_docs}")
        if update_readme is not None:
            if not update_readme.is_file() or not rule_docs.update_readme(update_readme, rules):
                _err(f"{update_readme}: no rule table markers ({rule_docs.TABLE_BEGIN})")
                raise typer.Exit(2)
            typer.echo(f"updated the rule table in {update_readme}")
        return
    if output_format == "markdown":
        typer.echo(rule_docs.rules_table(rules), nl=False)
        return
    if output_format == "json":
        typer.echo(json.dumps([{"code": r.code, "name": r.name, "severity": r.severity,
                                "summary": r.summary, "family": r.family} for r in rules], indent=2))
        return
    for r in rules:
        typer.echo(f"{r.code}  {r.name:<36} {r.severity:<8} {r.summary}")


@app.command("config")
def config_cmd(
    path: Optional[Path] = typer.Argument(None, help="Show the configuration that applies to this file or directory (default: the working directory)."),
    show: bool = typer.Option(False, "--show", help="Show the resolved configuration (after `extend`)."),
    output_format: str = typer.Option("text", "--output-format", help="text (TOML) | json"),
    config: Optional[Path] = ConfigOpt,
    isolated: bool = IsolatedOpt,
):
    """Show which configuration file applies and what it resolves to."""
    import json

    from .config import ConfigError, dump_toml

    if output_format not in ("text", "json"):
        _err(f"--output-format must be text or json (got {output_format!r})")
        raise typer.Exit(2)
    resolver = _resolver(config, isolated)
    try:
        settings = resolver.for_path(path or Path.cwd())
    except ConfigError as e:
        _err(str(e))
        raise typer.Exit(2)
    if not show:
        typer.echo(str(settings.path) if settings.path else "(no configuration file: defaults)")
        return
    if output_format == "json":
        typer.echo(json.dumps(settings.to_json(), indent=2))
    else:
        typer.echo(dump_toml(settings), nl=False)


def _register_optional_commands() -> None:
    """Commands implemented in their own modules (kept out of this file's imports)."""
    try:
        from .commands.occupancy import occupancy_command
        app.command("occupancy", help="Occupancy calculator (NVIDIA's algorithm).")(occupancy_command)
    except ImportError:
        pass
    try:
        from .commands.server import server_command
        app.command("server", help="Language server (LSP over stdio) for editors.")(server_command)
    except ImportError:
        pass
    try:
        from .commands.validate import validate_command
        app.command("validate", help="Compile, run and profile a kernel on the GPU (CuPy) and compare with the predictions.")(validate_command)
    except ImportError:
        pass


_register_optional_commands()

COMMANDS = {"check", "explain", "rule", "rules", "occupancy", "validate", "server", "config"}


def main(argv: Optional[list[str]] = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("--version", "-V"):
        typer.echo(f"cudalint {__version__}")
        raise SystemExit(0)
    # `cudalint FILE...` means `cudalint check FILE...` (ruff's convention).
    if args and args[0] not in COMMANDS and args[0] not in ("-h", "--help"):
        args.insert(0, "check")
    try:
        app(args=args, prog_name="cudalint", standalone_mode=True)
    except SystemExit as e:
        raise SystemExit(e.code)


if __name__ == "__main__":
    main()
