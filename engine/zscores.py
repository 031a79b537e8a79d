"""trec_eval's ``-Z zscore_file``: print each value as a z-score against per-topic reference statistics.

The file has lines ``qid measure_name mean stddev`` (trec_eval ``get_zscores.c``). Every per-topic
value v of measure m on topic q becomes ``(v - mean) / stddev`` (``convert_zscores.c``); when
stddev is 0 it becomes 0 if v equals the mean, else the missing value -1000000; a (topic, measure)
pair absent from the file also gives -1000000. The 'all' line aggregates the converted values as
the measure always does (mean, sum or geometric mean), since trec_eval converts before it
accumulates. ``num_q`` and ``runid`` are not converted (trec_eval keeps no value for them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from trec.columns import concat, read_columns

MISSING_ZSCORE_VALUE = -1000000.0  # trec_eval.h
ZSCORE_COLUMNS = ("qid", "measure", "mean", "stddev")


class ZScores:
    """Reference mean and standard deviation per (topic, measure name)."""

    def __init__(self, table: dict[tuple[str, str], tuple[float, float]]) -> None:
        self.table = table

    def convert(self, measure: str, topics: Sequence[str], values: np.ndarray) -> np.ndarray:
        """The z-scores of one measure's per-topic ``values`` (aligned with ``topics``)."""
        out = np.empty(len(values), dtype=np.float64)
        for i, (topic, value) in enumerate(zip(topics, values.tolist(), strict=True)):
            ref = self.table.get((topic, measure))
            if ref is None:
                out[i] = MISSING_ZSCORE_VALUE
                continue
            mean, sd = ref
            if sd:
                out[i] = (value - mean) / sd
            else:
                out[i] = 0.0 if value == mean else MISSING_ZSCORE_VALUE
        return out


def read_zscores(path: str) -> ZScores:
    """Read a z-score file; a line without exactly four fields raises :class:`trec.FormatError`.

    Divergence: blank and ``#`` lines are skipped (trec_eval calls them malformed).
    """
    parts, _ = read_columns(
        path,
        ZSCORE_COLUMNS,
        lambda cols: {
            "qid": cols.strings(0),
            "measure": cols.strings(1),
            "mean": cols.floats(2, "a mean"),
            "sd": cols.floats(3, "a standard deviation"),
        },
    )
    table: dict[tuple[str, str], tuple[float, float]] = {}
    qids = concat(parts.get("qid", [])).tolist()
    measures = concat(parts.get("measure", [])).tolist()
    means = concat(parts.get("mean", []), np.float64).tolist()
    sds = concat(parts.get("sd", []), np.float64).tolist()
    for q, m, mean, sd in zip(qids, measures, means, sds, strict=True):
        # trec_eval sorts the lines and binary-searches them, so which of two duplicates wins is
        # arbitrary there; here the first one does
        table.setdefault((q.decode(errors="replace"), m.decode(errors="replace")), (mean, sd))
    return ZScores(table)
