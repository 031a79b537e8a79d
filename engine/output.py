"""Rendering evaluation results as trec_eval text, JSON or CSV."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable
from typing import Any

from engine.evaluate import RunResult
from trec.progress import TextOut


def _value(result: RunResult, name: str, value: float, digits: int) -> str:
    if name == "runid":
        return result.run
    if name in result.integer:
        return str(round(value))
    if math.isnan(value):
        return "nan"
    return f"{value:.{digits}f}"


def trec_lines(
    result: RunResult, *, per_topic: bool, digits: int, with_run: bool, trec_eval_layout: bool = False
) -> Iterable[str]:
    """``measure<TAB>topic<TAB>value`` lines: per-topic lines first (with -q), then 'all'.

    ``trec_eval_layout`` pads the measure column to 22 characters, as trec_eval prints it.
    """
    prefix = f"{result.run}\t" if with_run else ""

    def line(name: str, topic: str, text: str) -> str:
        label = f"{name:<22}" if trec_eval_layout else name
        return f"{prefix}{label}\t{topic}\t{text}"

    if per_topic:
        for i, topic in enumerate(result.topics):
            for name in result.names:
                if name in result.summary_only:
                    continue
                yield line(name, topic, _value(result, name, float(result.per_topic[name][i]), digits))
    for name in result.names:
        yield line(name, "all", _value(result, name, result.summary[name], digits))


def result_dict(result: RunResult, *, per_topic: bool, digits: int | None = None) -> dict[str, Any]:
    def num(name: str, v: float) -> Any:
        if name == "runid":
            return result.run
        if name in result.integer:
            return round(v)
        return round(v, digits) if digits is not None else v

    out: dict[str, Any] = {
        "run": result.run,
        "all": {n: num(n, result.summary[n]) for n in result.names},
        "missing_topics": result.missing_topics,
    }
    if per_topic:
        out["per_topic"] = {
            t: {
                n: num(n, float(result.per_topic[n][i])) for n in result.names if n not in result.summary_only
            }
            for i, t in enumerate(result.topics)
        }
    return out


class Writer:
    """Streams results run by run so that memory stays bounded with many runs."""

    def __init__(
        self,
        stream: TextOut,
        fmt: str,
        *,
        per_topic: bool,
        digits: int,
        with_run: bool,
        trec_eval_layout: bool,
    ) -> None:
        self.stream = stream
        self.fmt = fmt
        self.per_topic = per_topic
        self.digits = digits
        self.with_run = with_run
        self.trec_eval_layout = trec_eval_layout
        self._json: list[dict[str, Any]] = []
        self._csv: Any = None

    def write(self, result: RunResult) -> None:
        if self.fmt == "trec":
            for line in trec_lines(
                result,
                per_topic=self.per_topic,
                digits=self.digits,
                with_run=self.with_run,
                trec_eval_layout=self.trec_eval_layout,
            ):
                self.stream.write(line + "\n")
        elif self.fmt == "json":
            self._json.append(result_dict(result, per_topic=self.per_topic))
        else:
            if self._csv is None:
                self._csv = csv.writer(self.stream, lineterminator="\n")
                self._csv.writerow(["run", "measure", "topic", "value"])
            for line in trec_lines(result, per_topic=self.per_topic, digits=self.digits, with_run=False):
                name, topic, value = line.split("\t")
                self._csv.writerow([result.run, name, topic, value])

    def close(self, meta: dict[str, Any]) -> None:
        if self.fmt == "json":
            json.dump({**meta, "runs": self._json}, self.stream, indent=1)
            self.stream.write("\n")
