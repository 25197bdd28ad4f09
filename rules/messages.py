"""Wording and confidence shared by the access rules (coalescing, banks): numbers and
percentages as messages print them, "load"/"store", the assumptions a figure rests on, and
whether it rests on none (a warning) or on a guess (downgraded to info)."""
from __future__ import annotations


def pct(v) -> str:
    return f"{100 * v:.1f}".rstrip("0").rstrip(".") + "%"


def num(v) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def kinds(group) -> str:
    """'load', 'store' or 'load and store' for a group of accesses of one expression."""
    ks = sorted({a.kind for a in group})
    return "load and store" if len(ks) == 2 else ks[0]


def assumed(a) -> str:
    """`` [assumption; ...]`` for the guessed values an access's figures rest on, else ''."""
    notes = [n for n in a.assumptions if ("assumed" in n or "sampled" in n or "__launch_bounds__" in n)
             and not n.startswith("offset of member")]
    return f" [{'; '.join(notes)}]" if notes else ""


def confident(a) -> bool:
    """The figures rest on no guessed value: no default, no sampling, a known block shape."""
    return bool(a.exact and not a.launch_assumed)
