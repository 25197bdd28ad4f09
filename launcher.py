"""The ``cudalint`` command's entry point: ``--version`` is answered before the command line
interface (typer, the subcommands and what they import) is loaded; a one-file check starts its
analysing process first (``preload``); everything goes to :func:`cudalint.cli.main`."""
from __future__ import annotations

import sys
from typing import Optional


def main(argv: Optional[list[str]] = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-V"]):
        from . import __version__

        sys.stdout.write(f"cudalint {__version__}\n")
        raise SystemExit(0)
    from . import preload

    preload.start(args)  # a one-file check: the analyses load while the command line is read
    try:
        from .cli import main as cli_main

        cli_main(args)
    finally:
        preload.discard()
        # What the run built lives until the process ends: frozen, the interpreter's last
        # collection does not walk it all (20 ms, a tenth of a run answered from the cache).
        import gc

        gc.freeze()
