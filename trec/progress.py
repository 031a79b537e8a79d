"""A dependency-free progress bar for long command-line work (drawn only on a terminal)."""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol


class TextOut(Protocol):
    """What the command writes to: a text stream or Django's OutputWrapper."""

    def write(self, text: str, /) -> Any: ...

    def flush(self) -> Any: ...

    def isatty(self) -> bool: ...


class ProgressCallback(Protocol):
    """Told how far long work is: ``phase`` names the work, ``done`` of ``total`` (bytes, lines, runs).

    The one callback shape of every long operation: services take it, background jobs feed it to
    their progress bar, commands draw it on the terminal.
    """

    def __call__(self, phase: str, done: int, total: int, /) -> None: ...


def quiet_progress(phase: str, done: int, total: int, /) -> None:
    """A :class:`ProgressCallback` that ignores what it is told."""


class Progress:
    """``with Progress(total, "evaluating") as p: ... p.advance(label)``; silent when not a TTY."""

    def __init__(
        self, total: int, what: str, stream: TextOut | None = None, enabled: bool | None = None
    ) -> None:
        self.total = max(total, 0)
        self.what = what
        self.stream: TextOut = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.done = 0
        self.started = time.monotonic()
        self._last_draw = 0.0

    def __enter__(self) -> Progress:
        self._draw("", force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._draw("", force=True)
            self.stream.write("\n")
            self.stream.flush()

    def advance(self, label: str = "", step: int = 1) -> None:
        self.done += step
        self._draw(label)

    def update(self, done: int, total: int, label: str = "") -> None:
        """Set how far: for work that reports ``done`` of ``total`` itself (a ProgressCallback)."""
        self.done, self.total = done, max(total, 0)
        self._draw(label)

    def _draw(self, label: str, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < 0.1 and self.done < self.total:
            return
        self._last_draw = now
        width = 30
        frac = self.done / self.total if self.total else 1.0
        filled = int(width * frac)
        elapsed = now - self.started
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        line = (
            f"\r{self.what} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
            f" {elapsed:5.1f}s eta {eta:5.1f}s {label[:30]:<30}"
        )
        self.stream.write(line)
        self.stream.flush()
