"""Plumbing shared by the file-based commands (evaluate, build_pool...) that run without Django."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from trec.progress import TextOut


class UsageError(Exception):
    """A bad file, measure or option: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose help ends with ``raw_epilog`` printed as written (the description
    and options are still wrapped to the terminal, which a raw formatter would not do)."""

    raw_epilog = ""

    def format_help(self) -> str:
        text = super().format_help()
        return f"{text}\n{self.raw_epilog.rstrip()}\n" if self.raw_epilog else text


def run_command(
    argv: list[str],
    stdout: TextOut,
    stderr: TextOut,
    *,
    prog: str,
    description: str,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    run: Callable[[dict[str, Any], TextOut, TextOut], object],
    epilog: str | None = None,
) -> int:
    """Parse ``argv`` and run; a UsageError prints one line as Django's CommandError would, exit 2.

    An ``epilog`` (e.g. the measure list) is printed after the options by ``--help``, as written.
    """
    parser = _Parser(prog=prog, description=description)
    parser.raw_epilog = epilog or ""
    add_arguments(parser)
    opts = vars(parser.parse_args(argv))
    try:
        run(opts, stdout, stderr)
    except UsageError as exc:
        stderr.write(f"CommandError: {exc}\n")
        return 2
    except BrokenPipeError:  # e.g. piped into head
        return 0
    return 0


def text_table(rows: list[list[str]], align: str) -> list[str]:
    """Columns padded to their widest cell; ``align`` has one 'l' or 'r' per column."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(align))]
    return [
        "  ".join(
            cell.ljust(w) if a == "l" else cell.rjust(w) for cell, w, a in zip(r, widths, align, strict=True)
        ).rstrip()
        for r in rows
    ]
