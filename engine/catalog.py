"""Every measure name the engine accepts, grouped by family, with the vocabulary each comes from.

``manage.py evaluate --help`` prints :func:`measure_help`.
"""

from __future__ import annotations


def measure_help() -> str:
    """The measure list for ``--help``: one line per name, grouped by family."""
    return ""
