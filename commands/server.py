"""`cudalint server`: a Language Server Protocol server over stdio (pygls 2).

* Diagnostics are published for a document when it is opened and saved, and after it changes
  (debounced: analysis starts once the buffer has been quiet for ``DEBOUNCE_S``). The buffer's
  text is analysed, not the file on disk; the configuration that applies to the file on disk
  (``cudalint.toml`` / ``pyproject.toml``) is used.
* Each diagnostic has the rule code (linking to its documentation), severity, range (UTF-16
  columns, as LSP wants), related locations (e.g. the other access of a race witness), and
  the ``Unnecessary`` tag for unused suppressions (editors fade them).
* Code actions: a quick fix for each diagnostic whose rule offers a fix (the edit travels in
  the diagnostic's ``data``), and "ignore CODE on this line" for every diagnostic.
* Analysis runs in a worker process (engine.WorkerPool): a libclang crash on a half-typed
  buffer becomes a CL000 diagnostic instead of killing the server.
* The same analysis gives the facts shown in place (commands/editor_facts.py, worded by
  commands/editor_render.py): hover on a variable, an access or a kernel name; inlay hints
  after each line that accesses memory; a code lens above each kernel. A request that arrives
  while the buffer's newest version is being analysed waits for that analysis, so what is
  shown always matches the text; after each analysis the client is asked to refresh them.
"""
from __future__ import annotations

import os
import re

from .. import __version__

DEBOUNCE_S = 0.3  # typing pauses between keystrokes are ~0.1-0.25 s
SOURCE = "cudalint"


def _lsp():
    try:
        from lsprotocol import types
        from pygls.lsp.server import LanguageServer
    except ImportError as e:  # pragma: no cover - the lsp extra is missing
        raise ImportError("cudalint server needs pygls 2: pip install 'cudalint[lsp]'") from e
    return types, LanguageServer


class _Columns:
    """clang byte columns -> LSP UTF-16 positions, using the buffer for the main file."""

    def __init__(self, main_path: str, buffer: str):
        from ..reporters.common import SourceLines
        self.main = os.path.abspath(main_path)
        self.buffer_lines = buffer.splitlines()
        self.disk = SourceLines()

    def position(self, types, path: str, line: int, byte_col: int):
        line0 = max(line - 1, 0)
        if os.path.abspath(path) == self.main:
            text = self.buffer_lines[line0] if line0 < len(self.buffer_lines) else ""
            raw = text.encode("utf-8", "surrogatepass")
            prefix = raw[:max(byte_col - 1, 0)]
            char = len(prefix.decode("utf-8", "replace").encode("utf-16-le")) // 2
            char += max(byte_col - 1 - len(raw), 0)
        else:
            char = self.disk.utf16_column(path, line, byte_col)
        return types.Position(line=line0, character=max(char, 0))


def _uri(path: str) -> str:
    from pygls.uris import from_fs_path
    return from_fs_path(os.path.abspath(path))


def to_lsp_diagnostic(types, d, cols: _Columns):
    sev = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
           "info": types.DiagnosticSeverity.Information}.get(d.severity, types.DiagnosticSeverity.Warning)
    start = cols.position(types, d.path, d.location.line, d.location.column)
    end = cols.position(types, d.path, d.end_location.line, d.end_location.column)
    if (end.line, end.character) <= (start.line, start.character):
        end = types.Position(line=start.line, character=start.character + 1)
    related = None
    if d.related:
        related = []
        for r in d.related:
            p = cols.position(types, r.path, r.location.line, r.location.column)
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=_uri(r.path), range=types.Range(
                    start=p, end=types.Position(line=p.line, character=p.character + 1))),
                message=r.message))
    data = {"name": d.name}
    if d.fix is not None and d.fix.edits:
        data["fix"] = {"title": d.fix.description, "applicability": d.fix.applicability,
                       "caveat": d.fix.caveat, "edits": [
            {"range": {"start": _pos_json(cols.position(types, d.path, e.start.line, e.start.column)),
                       "end": _pos_json(cols.position(types, d.path, e.end.line, e.end.column))},
             "newText": e.text} for e in d.fix.edits]}
    tags = [types.DiagnosticTag.Unnecessary] if d.code == "CL010" else None
    return types.Diagnostic(range=types.Range(start=start, end=end), message=d.message, severity=sev,
                            code=d.code, code_description=types.CodeDescription(href=d.url),
                            source=SOURCE, related_information=related, tags=tags, data=data)


def _byte_column(text: str, line0: int, utf16_char: int) -> int:
    """The 1-based byte column of an LSP position (UTF-16 units) in ``text``."""
    lines = text.splitlines()
    if not 0 <= line0 < len(lines):
        return utf16_char + 1
    raw = lines[line0].encode("utf-16-le")[:2 * utf16_char].decode("utf-16-le", "ignore")
    return len(raw.encode("utf-8")) + 1


def _pos_json(p) -> dict:
    return {"line": p.line, "character": p.character}


class CudalintServerState:
    def __init__(self):
        self.pool = None
        self.tasks: dict = {}  # uri -> asyncio.Task of its pending check
        self.generation: dict[str, int] = {}
        self.facts: dict[str, dict] = {}  # uri -> editor facts of the newest analysed text
        self.texts: dict[str, str] = {}  # uri -> the text those facts describe
        self.refresh: set[str] = set()  # what the client lets us refresh: inlay, lens

    def get_pool(self):
        if self.pool is None:
            from ..engine import WorkerPool
            self.pool = WorkerPool(1)
        return self.pool

    def close(self):
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def analyse_buffer(state: CudalintServerState, path: str, text: str):
    """Run the check of one editor buffer in the worker process (blocking); the TaskResult
    carries the diagnostics and the editor facts."""
    from ..analyzer.options import AnalysisOptions
    from ..config import ConfigError, ConfigResolver, analysis_options_for, check_options_for
    from ..engine import Task, TaskResult, crash_result
    from ..rules.options import DEFAULT_TIME_LIMIT_S

    try:
        settings = ConfigResolver().for_path(path)
    except ConfigError as e:
        return TaskResult(crash_result(path, f"bad configuration: {e}"))
    aopts = analysis_options_for(settings, AnalysisOptions(), set())
    copts = check_options_for(settings, path, [], [])
    task = Task(path, aopts, copts, settings.time_limit or DEFAULT_TIME_LIMIT_S, source=text,
                editor_facts=True)
    for _, tr in state.get_pool().run([task]):
        return tr
    return TaskResult(crash_result(path, "no result from the analyser process"))


def create_server():
    import asyncio  # here, not at the top: `cudalint check` imports this module to list the command

    types, LanguageServer = _lsp()
    server = LanguageServer("cudalint", __version__,
                            text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    state = CudalintServerState()
    server.cudalint_state = state  # type: ignore[attr-defined]

    def path_of(uri: str) -> str:
        from pygls.uris import to_fs_path
        p = to_fs_path(uri)
        if not p or not uri.startswith("file:"):
            name = re.sub(r"[^\w.-]", "_", uri.rsplit("/", 1)[-1]) or "untitled"
            p = os.path.join(os.getcwd(), name if name.endswith((".cu", ".cuh")) else name + ".cu")
        return p

    async def run_check(uri: str, delay: float) -> None:
        gen = state.generation.get(uri, 0) + 1
        state.generation[uri] = gen
        if delay:
            await asyncio.sleep(delay)
        if state.generation.get(uri) != gen:
            return
        doc = server.workspace.get_text_document(uri)
        text, version = doc.source, doc.version
        path = path_of(uri)
        loop = asyncio.get_running_loop()
        tr = await loop.run_in_executor(None, analyse_buffer, state, path, text)
        result = tr.result
        if state.generation.get(uri) != gen:
            return  # a newer edit is being analysed
        state.facts[uri], state.texts[uri] = tr.facts or {}, text
        for what in state.refresh:  # ask the client to fetch hints and lenses again
            try:
                (server.workspace_inlay_hint_refresh if what == "inlay" else server.workspace_code_lens_refresh)(None)
            except Exception:  # noqa: BLE001 - a client that cannot refresh still gets them on request
                pass
        cols = _Columns(path, text)
        diags = [to_lsp_diagnostic(types, d, cols) for d in result.diagnostics
                 if os.path.abspath(d.path) == os.path.abspath(path)]
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version))

    def schedule(uri: str, delay: float) -> None:
        old = state.tasks.get(uri)
        if old is not None and not old.done():
            old.cancel()
        state.tasks[uri] = asyncio.ensure_future(run_check(uri, delay))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls, params: types.DidOpenTextDocumentParams):
        schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls, params: types.DidChangeTextDocumentParams):
        schedule(params.text_document.uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls, params: types.DidSaveTextDocumentParams):
        schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls, params: types.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        state.generation[uri] = state.generation.get(uri, 0) + 1
        t = state.tasks.pop(uri, None)
        if t is not None and not t.done():
            t.cancel()
        state.facts.pop(uri, None)
        state.texts.pop(uri, None)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls, params: types.CodeActionParams):
        actions = []
        uri = params.text_document.uri
        try:
            lines = server.workspace.get_text_document(uri).lines
        except Exception:
            lines = []
        for d in params.context.diagnostics:
            if d.source != SOURCE or not isinstance(d.data, dict):
                continue
            fix = d.data.get("fix")
            if fix:
                edits = [types.TextEdit(range=types.Range(
                    start=types.Position(**e["range"]["start"]), end=types.Position(**e["range"]["end"])),
                    new_text=e["newText"]) for e in fix["edits"]]
                unsafe = fix.get("applicability") == "unsafe"  # offered, never preferred
                actions.append(types.CodeAction(
                    title=f"{fix['title']} ({d.code})" + (f" (unsafe: {fix.get('caveat')})" if unsafe else ""),
                    kind=types.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=not unsafe,
                    edit=types.WorkspaceEdit(changes={uri: edits})))
            if d.code and d.code not in ("CL000", "CL010"):
                line = d.range.start.line
                text = lines[line].rstrip("\r\n") if line < len(lines) else ""
                if "cudalint:" in text:
                    continue
                pos = types.Position(line=line, character=len(text.encode("utf-16-le")) // 2)
                actions.append(types.CodeAction(
                    title=f"Ignore {d.code} on this line", kind=types.CodeActionKind.QuickFix,
                    diagnostics=[d], edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(
                        range=types.Range(start=pos, end=pos), new_text=f"  // cudalint: ignore[{d.code}]")]})))
        return actions

    async def current(uri: str):
        """(facts, text) of the buffer's newest version: waits for a pending analysis."""
        for _ in range(100):
            t = state.tasks.get(uri)
            if t is None or t.done():
                break
            try:
                await asyncio.wait_for(asyncio.shield(t), timeout=120)
            except (asyncio.CancelledError, asyncio.TimeoutError):
                if state.tasks.get(uri) is t:
                    break
        return state.facts.get(uri) or {}, state.texts.get(uri, "")

    @server.feature(types.INITIALIZED)
    def initialized(ls, params):
        ws = getattr(ls.client_capabilities, "workspace", None)
        for what, cap in (("inlay", "inlay_hint"), ("lens", "code_lens")):
            if getattr(getattr(ws, cap, None), "refresh_support", False):
                state.refresh.add(what)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls, params: types.HoverParams):
        from .editor_render import hover_markdown
        facts, text = await current(params.text_document.uri)
        line = params.position.line
        byte_col = _byte_column(text, line, params.position.character)
        md = hover_markdown(facts, line + 1, byte_col) if facts else None
        if md is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=md))

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(ls, params: types.InlayHintParams):
        from .editor_render import inlay_labels
        facts, text = await current(params.text_document.uri)
        lines = text.splitlines()
        lo, hi = params.range.start.line, params.range.end.line
        hints = []
        for line, label in inlay_labels(facts):
            l0 = line - 1
            if not lo <= l0 <= hi or l0 >= len(lines):
                continue
            end = len(lines[l0].encode("utf-16-le")) // 2
            hints.append(types.InlayHint(position=types.Position(line=l0, character=end), label=label,
                                         padding_left=True))
        return hints

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(ls, params: types.CodeLensParams):
        from .editor_render import lens_title
        uri = params.text_document.uri
        facts, text = await current(uri)
        cols = _Columns(path_of(uri), text)
        lenses = []
        for k in facts.get("kernels", []):
            span = k.get("definition")
            if not span:
                continue
            start = cols.position(types, path_of(uri), span[0], span[1])
            end = cols.position(types, path_of(uri), span[0], span[2])
            lenses.append(types.CodeLens(range=types.Range(start=start, end=end),
                                         command=types.Command(title=lens_title(k), command="")))
        return lenses

    @server.feature(types.SHUTDOWN)
    def shutdown(ls, params=None):
        state.close()

    return server


def server_command() -> None:
    """Language server (LSP over stdio) for editors."""
    server = create_server()
    try:
        server.start_io()
    finally:
        server.cudalint_state.close()
