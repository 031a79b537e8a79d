"""pandas, imported only when a DataFrame is asked for: the API's dict outputs work without it."""

from __future__ import annotations

from typing import Any


class PandasMissing(ImportError):
    """pandas is needed for a DataFrame and is not installed."""


def pandas() -> Any:
    """The pandas module, or :class:`PandasMissing` saying how to install it."""
    try:
        import pandas as pd
    except ImportError as exc:
        raise PandasMissing(
            "to_frame() needs pandas: pip install 'relevance-workbench[api]' (or pip install pandas); "
            "the dict methods work without it"
        ) from exc
    return pd


def frame(rows: list[tuple[Any, ...]], columns: list[str]) -> Any:
    """A DataFrame of ``rows`` under ``columns`` (empty, with the columns, when there are none)."""
    pd = pandas()
    return pd.DataFrame.from_records(rows, columns=columns)
