"""The one error type of the format layer: it always names the file, the line and what was expected."""

from __future__ import annotations


class FormatError(ValueError):
    """A file that does not parse. ``line`` is 1-based; 0 means the file as a whole."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[type, tuple[str, int, str]]:
        # an error raised in a worker process crosses back by pickle with its three parts
        return (type(self), (self.path, self.line, self.message))
