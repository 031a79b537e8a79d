"""``rw.agreement``: ``manage.py agreement`` (Cohen's, weighted and pooled kappa, AC1/AC2, Krippendorff's
alpha, Fleiss', Conger's and Light's kappa, with SEs, z tests and PABAK; overlap; system-ranking tau)
as a function.

It calls :func:`judging.agreement.agreement_report` with the arguments the command passes
(``judging/cli.py`` run_agreement), so :meth:`AgreementResults.to_dict` equals the command's
``--format json`` output (without its ``files`` entry).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.measures.base import EvalOptions
from engine.names import parse_measures
from judging.agreement import (
    DEFAULT_MEASURES,
    AgreementReport,
    TableAgreement,
    agreement_report,
    report_as_dict,
)
from judging.agreement.inference import Estimate, GroupInference, PairInference
from judging.cli import assessor_name, split_measures
from relevance_workbench.frames import frame
from relevance_workbench.inputs import InputError, is_path, measure_specs, run_sources, to_qrels, to_run

AGREEMENT_COLUMNS = ["a", "b", "topic", "statistic", "value"]
GROUP = "all"  # the a and b of the rows about all assessors together (Fleiss' kappa)


class AgreementResults:
    """Agreement between assessors; ``report`` is the engine's :class:`AgreementReport`."""

    def __init__(self, report: AgreementReport) -> None:
        self.report = report
        self.assessors = list(report.assessors)

    def to_dict(self, *, per_topic: bool = False) -> dict[str, Any]:
        """Everything, as ``manage.py agreement --format json`` writes it (null where undefined)."""
        return report_as_dict(self.report, per_topic=per_topic)

    def overall(self) -> dict[tuple[str, str], dict[str, float]]:
        """``{(a, b): {statistic: value}}`` on each pair's table concatenated over all topics."""
        return {(p.a, p.b): _statistics(p.overall) for p in self.report.pairs}

    def rows(self, *, per_topic: bool = True) -> list[tuple[str, str, str, str, float]]:
        """(a, b, topic, statistic, value) tuples: each pair overall (topic "all") and per topic;
        Fleiss' kappa of all assessors together as a = b = "all" (SEs, tests: :meth:`inference_rows`)."""
        out: list[tuple[str, str, str, str, float]] = []
        for p in self.report.pairs:
            tables = [("all", p.overall)] + (list(p.per_topic.items()) if per_topic else [])
            for topic, table in tables:
                out += [(p.a, p.b, topic, s, v) for s, v in _statistics(table).items()]
        g = self.report.group
        if g is not None:
            out.append((GROUP, GROUP, "all", "fleiss", float(g.fleiss.value)))
            if per_topic:
                out += [(GROUP, GROUP, t, "fleiss", float(s.fleiss.value)) for t, s in g.per_topic.items()]
        return out

    def inference_rows(self) -> list[tuple[str, str, str, str, float]]:
        """(a, b, "all", statistic, value) on the concatenated tables: SEs and CIs of pooled κ, AC1
        and AC2 (Gwet 2014), z tests of κ (``cohen_z``, ``cohen_p``; FCE 1969), PABAK, prevalence
        and bias indices, α interval/ratio; for a = b = "all" the group's complete-items and
        missing-data Fleiss' κ and AC1 with SEs, Fleiss' κ z test, Conger's and Light's κ."""
        out: list[tuple[str, str, str, str, float]] = []
        for p in self.report.pairs:
            if p.inference is not None:
                out += [(p.a, p.b, "all", s, v) for s, v in _pair_inference(p.inference).items()]
        g = self.report.group
        if g is not None and g.inference is not None:
            out += [(GROUP, GROUP, "all", s, v) for s, v in _group_inference(g.inference).items()]
        return out

    def inference_frame(self) -> Any:
        """:meth:`inference_rows` as a long DataFrame with the columns of :meth:`to_frame`."""
        return frame(self.inference_rows(), AGREEMENT_COLUMNS)

    def to_frame(self, *, per_topic: bool = True) -> Any:
        """Long DataFrame: a, b, topic ("all" = concatenated over topics), statistic, value."""
        return frame(self.rows(per_topic=per_topic), AGREEMENT_COLUMNS)

    def __repr__(self) -> str:
        parts = [f"{a} vs {b}: kappa={s['cohen']:.4f}" for (a, b), s in self.overall().items()]
        return f"AgreementResults over {len(self.report.topics)} topics; " + "; ".join(parts)


def _statistics(t: TableAgreement) -> dict[str, float]:
    """One table's numbers by name (the command's column names; binary_* at the threshold)."""
    return {
        "items": float(t.n),
        "p_o": float(t.p_o),
        "cohen": float(t.cohen.value),
        "cohen_se": float(t.cohen.se),
        "linear": float(t.linear.value),
        "quadratic": float(t.quadratic.value),
        "pooled": float(t.pooled.value),
        "ac1": float(t.ac1.value),
        "alpha_nominal": float(t.alpha_nominal),
        "alpha_ordinal": float(t.alpha_ordinal),
        "overlap": float(t.overlap.value),
        "binary_cohen": float(t.binary.cohen.value),
        "binary_pooled": float(t.binary.pooled.value),
        "binary_ac1": float(t.binary.ac1.value),
    }


def _estimate(name: str, e: Estimate, *, value: bool = True) -> dict[str, float]:
    """SE and CI of ``name`` (and its value, unless :func:`_statistics` already gives it)."""
    out = {f"{name}_se": float(e.se), f"{name}_ci_low": e.ci_low, f"{name}_ci_high": e.ci_high}
    return {name: float(e.value), **out} if value else out


def _pair_inference(i: PairInference) -> dict[str, float]:
    """The pair's SEs (Gwet 2014), z tests (FCE 1969), PABAK and prevalence/bias indices by name."""
    out: dict[str, float] = {}
    for name in ("pooled", "ac1", "ac2_linear", "ac2_quadratic"):
        out.update(_estimate(name, getattr(i, name), value=name.startswith("ac2")))
    for name in ("cohen", "linear", "quadratic"):
        t = getattr(i, f"{name}_test")
        out.update({f"{name}_se0": t.se0, f"{name}_z": t.z, f"{name}_p": t.p})
    out.update(_estimate("binary_pooled", i.binary_pooled, value=False))
    out.update(_estimate("binary_ac1", i.binary_ac1, value=False))
    out.update(
        {
            "pabak": i.pabak,
            "binary_pabak": i.binary.pabak,
            "prevalence_index": i.binary.prevalence_index,
            "bias_index": i.binary.bias_index,
            "alpha_interval": i.alpha_interval,
            "alpha_ratio": i.alpha_ratio,
        }
    )
    return {k: float(v) for k, v in out.items()}


def _group_inference(i: GroupInference) -> dict[str, float]:
    out: dict[str, float] = {}
    for name in (
        "fleiss_complete",
        "ac1_complete",
        "fleiss_missing",
        "ac1_missing",
        "ac2_linear",
        "ac2_quadratic",
    ):
        estimate = getattr(i, name)
        if estimate is not None:
            out.update(_estimate(name, estimate))
    out.update({"fleiss_se0": i.fleiss_test.se0, "fleiss_z": i.fleiss_test.z, "fleiss_p": i.fleiss_test.p})
    out.update({"conger": i.conger, "light": i.light, "alpha_interval": i.alpha_interval})
    out["alpha_ratio"] = i.alpha_ratio
    return {k: float(v) for k, v in out.items()}


def _assessors(judgments: Any) -> dict[str, Any]:
    """``{name: qrels}`` from a dict or a list of qrels paths (named as the command names them)."""
    if isinstance(judgments, Mapping):
        return {str(n): to_qrels(q) for n, q in judgments.items()}
    if (
        isinstance(judgments, Sequence)
        and not isinstance(judgments, str)
        and all(is_path(p) for p in judgments)
    ):
        names = [assessor_name(str(p)) for p in judgments]
        if len(set(names)) < len(names):
            names = [str(p) for p in judgments]
        return {n: to_qrels(p) for n, p in zip(names, judgments, strict=True)}
    raise InputError("agreement takes a dict {assessor: qrels} or a list of qrels file paths")


def agreement(
    judgments: Any,
    *,
    threshold: int = 1,
    negative: str = "missing",
    scale: Sequence[int] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    runs: Any = None,
    measures: Any = None,
) -> AgreementResults:
    """Agreement between two or more assessors' judgments, as ``manage.py agreement``; see docs/python_api.md.

    ``judgments``: ``{assessor: qrels}`` (any qrels shape :func:`evaluate` takes) or a list of qrels
    paths. With ``runs`` the system rankings under each assessor are correlated on ``measures``.
    """
    specs = [m for spec in measure_specs(measures) for m in split_measures(spec)] or list(DEFAULT_MEASURES)
    if runs is not None:
        parse_measures(specs)  # MeasureError before any file is read
    qrels = _assessors(judgments)
    if len(qrels) < 2:
        raise InputError("agreement needs at least two assessors")
    ranked = [to_run(s.source, s.name) for s in run_sources(runs)] if runs is not None else None
    report = agreement_report(
        qrels,
        threshold=threshold,
        negative=negative,
        scale=scale,
        bootstrap=bootstrap,
        seed=seed,
        confidence=confidence,
        runs=ranked,
        measures=specs,
        options=EvalOptions(level=threshold),
    )
    return AgreementResults(report)
