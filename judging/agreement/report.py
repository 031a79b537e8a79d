"""Agreement per assessor pair and over all assessors, per topic and pooled over topics; topic bootstrap.

"Pooled over topics" has three readings (docs/agreement.md#overview), all reported and named:

- ``concatenated``: one table summed over the topics, then the statistic (the micro average);
- ``de_vries``: De Vries, Elliott, Kanouse & Teleki (2008, *Field Methods* 20:272–282) pooled κ,
  (mean P_o − mean P_e)/(1 − mean P_e) with the means over topics; only for the (P_o, P_e)
  statistics (the κ family and Fleiss' κ), None for the others;
- ``mean_per_topic``: the mean of the per-topic values over the topics where it is defined.

The bootstrap resamples topics with replacement and recomputes every reading; its CI is the
percentile interval of the defined resampled values. A resample is summarised by how many times
it drew each topic, so a reading is a weighted sum over per-topic parts: one matrix product for
thousands of resamples.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import NamedTuple

import numpy as np

from judging.agreement.inference import GroupInference, PairInference, group_inference, pair_inference
from judging.agreement.labels import Ratings
from judging.agreement.multi import alpha_values, light_kappa
from judging.agreement.tables import (
    Kappa,
    TableAgreement,
    _ac1_parts,
    _alpha,
    _binarized,
    _cohen_parts,
    _coincidence,
    _corrected,
    _fleiss_parts,
    _overlap_counts,
    _ratio,
    _scott_parts,
    agreement_weights,
    rating_counts,
    table_agreements,
)

READINGS = ("concatenated", "de_vries", "mean_per_topic")
KAPPA_STATISTICS = ("cohen", "linear", "quadratic", "pooled", "ac1")
# κ, pooled κ and AC1 of the labels binarized at the threshold (relevant = grade ≥ threshold)
BINARY_STATISTICS = ("binary_cohen", "binary_pooled", "binary_ac1")
# Krippendorff's α at the interval and ratio levels reads the grade values (judging.agreement.multi)
ALPHA_STATISTICS = ("alpha_nominal", "alpha_ordinal", "alpha_interval", "alpha_ratio")
PAIR_STATISTICS = ("p_o", *KAPPA_STATISTICS, *ALPHA_STATISTICS, "overlap", *BINARY_STATISTICS)
GROUP_STATISTICS = ("fleiss", *ALPHA_STATISTICS)
_BATCH = 2_000_000  # resample × topic cells drawn at once


class Interval(NamedTuple):
    low: float
    high: float


@dataclass(frozen=True)
class Pooled:
    """One statistic pooled over topics in the three readings; ``topics`` counts the topics with a
    defined value (the denominator of ``mean_per_topic``); ``ci`` holds bootstrap percentile
    intervals per reading (empty without a bootstrap)."""

    concatenated: float
    de_vries: float | None  # None: not a (P_o, P_e) statistic; NaN: undefined on these data
    mean_per_topic: float
    topics: int
    ci: dict[str, Interval] = field(default_factory=dict)


@dataclass(frozen=True)
class PairReport:
    """Two assessors on the items both judged. ``overall`` is the concatenated table with its
    asymptotic SEs; ``pooled`` maps each of :data:`PAIR_STATISTICS` to its three readings
    (for ``overlap``: concatenated = micro, mean_per_topic = macro; ``binary_*``: the statistic
    of the tables binarized at the threshold, :class:`~judging.agreement.tables.Binary`)."""

    a: str
    b: str
    labels: tuple[int, ...]
    items: int
    only_a: int  # judged by a but not b: not shared, left out
    only_b: int
    overall: TableAgreement
    pooled: dict[str, Pooled]
    per_topic: dict[str, TableAgreement]
    inference: PairInference | None = None  # SEs, z tests, PABAK: judging.agreement.inference


@dataclass(frozen=True)
class GroupTopic:
    items: int  # judged by every assessor: Fleiss' κ
    pairable: int  # judged by two or more: Krippendorff's α
    fleiss: Kappa
    alpha_nominal: float
    alpha_ordinal: float


@dataclass(frozen=True)
class GroupReport:
    """All assessors together. Fleiss' κ needs the same raters per item, so it uses the items every
    assessor judged (``items``); Krippendorff's α takes missing values, so it uses every item
    judged by at least two (``pairable``). Items judged by one assessor only (``single``) carry no
    agreement information."""

    assessors: tuple[str, ...]
    labels: tuple[int, ...]
    items: int
    pairable: int
    single: int
    fleiss: Kappa
    pooled: dict[str, Pooled]
    per_topic: dict[str, GroupTopic]
    inference: GroupInference | None = None  # SEs, missing-data versions: judging.agreement.inference


# --------------------------------------------------------------------------- readings


def _mean(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Σ_t c_t v_t / Σ_t c_t over the topics where v is defined; NaN when none is."""
    defined = np.isfinite(values)
    return _ratio(counts @ np.where(defined, values, 0.0), counts @ defined.astype(np.float64))


def _pair_values(
    tables: np.ndarray, labels: tuple[int, ...], threshold: int
) -> tuple[dict[str, np.ndarray], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Every pair statistic of a stack of tables, and (P_o, P_e) of the κ family."""
    q = len(labels)
    parts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, kind in (("cohen", "none"), ("linear", "linear"), ("quadratic", "quadratic")):
        p_o, p_e, _ = _cohen_parts(tables, agreement_weights(q, kind))
        parts[name] = (p_o, p_e)
    parts["pooled"] = _scott_parts(tables)
    parts["ac1"] = _ac1_parts(tables)
    relevant = np.asarray(labels, dtype=np.int64) >= threshold
    two = _binarized(tables, relevant)
    parts["binary_cohen"] = _cohen_parts(two, agreement_weights(2, "none"))[:2]
    parts["binary_pooled"] = _scott_parts(two)
    parts["binary_ac1"] = _ac1_parts(two)
    values = {name: _corrected(*pe) for name, pe in parts.items()}
    values["p_o"] = parts["cohen"][0]
    coincidence = tables + np.swapaxes(tables, -1, -2)
    values["alpha_nominal"] = _alpha(coincidence, "nominal")
    values["alpha_ordinal"] = _alpha(coincidence, "ordinal")
    for level in ("interval", "ratio"):
        values[f"alpha_{level}"] = alpha_values(coincidence, labels, level)
    inter, union = _overlap_counts(tables, relevant)
    values["overlap"] = _ratio(inter, union)
    return values, parts


def _pair_readings(
    counts: np.ndarray,
    tables: np.ndarray,
    labels: tuple[int, ...],
    threshold: int,
    per_values: dict[str, np.ndarray],
    per_parts: dict[str, tuple[np.ndarray, np.ndarray]],
) -> dict[str, dict[str, np.ndarray]]:
    """Readings of every pair statistic for each row of ``counts`` (times each topic is drawn);
    ``de_vries`` only for the (P_o, P_e) statistics. ``per_values`` and ``per_parts`` are each
    topic's own (:func:`_per_topic`); the concatenated table spans the pair's ``labels``."""
    concat = np.einsum("bt,tij->bij", counts, tables)
    con_values, _ = _pair_values(concat, labels, threshold)
    out: dict[str, dict[str, np.ndarray]] = {}
    for stat in PAIR_STATISTICS:
        out[stat] = {"concatenated": con_values[stat]}
        if stat in per_parts:
            p_o, p_e = per_parts[stat]
            out[stat]["de_vries"] = _corrected(_mean(counts, p_o), _mean(counts, p_e))
        out[stat]["mean_per_topic"] = _mean(counts, per_values[stat])
    return out


def _group_readings(
    counts: np.ndarray,
    fleiss_sums: tuple[np.ndarray, np.ndarray, np.ndarray],
    coincidence: np.ndarray,
    raters: int,
    labels: tuple[int, ...],
) -> dict[str, dict[str, np.ndarray]]:
    items, agree, totals = fleiss_sums
    p_bar, p_e = _fleiss_parts(items, agree, totals, raters)  # per topic; NaN without items
    concat_bar, concat_e = _fleiss_parts(counts @ items, counts @ agree, counts @ totals, raters)
    out = {
        "fleiss": {
            "concatenated": _corrected(concat_bar, concat_e),
            "de_vries": _corrected(_mean(counts, p_bar), _mean(counts, p_e)),
            "mean_per_topic": _mean(counts, _corrected(p_bar, p_e)),
        }
    }
    concat_o = np.einsum("bt,tij->bij", counts, coincidence)
    for level in ("nominal", "ordinal"):
        out[f"alpha_{level}"] = {
            "concatenated": _alpha(concat_o, level),
            "mean_per_topic": _mean(counts, _alpha(coincidence, level)),
        }
    for level in ("interval", "ratio"):
        out[f"alpha_{level}"] = {
            "concatenated": alpha_values(concat_o, labels, level),
            "mean_per_topic": _mean(counts, alpha_values(coincidence, labels, level)),
        }
    return out


def _pooled(
    readings_of: Callable[[np.ndarray], dict[str, dict[str, np.ndarray]]],
    per_topic: dict[str, np.ndarray],
    topics: int,
    resamples: int,
    rng: np.random.Generator | None,
    confidence: float,
) -> dict[str, Pooled]:
    """Point readings (every topic drawn once) and, with ``resamples``, their bootstrap CIs."""
    point = readings_of(np.ones((1, topics)))
    cis = _bootstrap(readings_of, topics, resamples, rng, confidence) if resamples > 0 else {}
    return {
        stat: Pooled(
            concatenated=float(r["concatenated"][0]),
            de_vries=float(r["de_vries"][0]) if "de_vries" in r else None,
            mean_per_topic=float(r["mean_per_topic"][0]),
            topics=int(np.count_nonzero(np.isfinite(per_topic[stat]))),
            ci=cis.get(stat, {}),
        )
        for stat, r in point.items()
    }


def _bootstrap(
    readings_of: Callable[[np.ndarray], dict[str, dict[str, np.ndarray]]],
    topics: int,
    resamples: int,
    rng: np.random.Generator | None,
    confidence: float,
) -> dict[str, dict[str, Interval]]:
    """Percentile bootstrap over topics (Efron & Tibshirani 1993, §13.3), numpy's linear quantiles.

    Each resample draws ``topics`` topics with replacement; resamples where a reading is undefined
    (NaN) are left out of that reading's quantiles. Bounds are the (1 ∓ confidence)/2 quantiles.
    """
    if rng is None:
        raise ValueError("a bootstrap needs a numpy Generator (rng)")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be between 0 and 1")
    if topics == 0:
        return {}
    chunks: dict[str, dict[str, list[np.ndarray]]] = {}
    per = max(1, _BATCH // topics)
    for start in range(0, resamples, per):
        b = min(per, resamples - start)
        drawn = rng.integers(0, topics, size=(b, topics))
        rows = np.repeat(np.arange(b), topics)
        counts = np.bincount(rows * topics + drawn.ravel(), minlength=b * topics).reshape(b, topics)
        for stat, r in readings_of(counts.astype(np.float64)).items():
            for reading, values in r.items():
                chunks.setdefault(stat, {}).setdefault(reading, []).append(values)
    lo, hi = 50 * (1 - confidence), 50 * (1 + confidence)
    out: dict[str, dict[str, Interval]] = {}
    for stat, by_reading in chunks.items():
        out[stat] = {}
        for reading, parts in by_reading.items():
            drawn_values = np.concatenate(parts)
            defined = drawn_values[np.isfinite(drawn_values)]
            if defined.size:
                low, high = np.percentile(defined, [lo, hi])
                out[stat][reading] = Interval(float(low), float(high))
            else:
                out[stat][reading] = Interval(float("nan"), float("nan"))
    return out


# --------------------------------------------------------------------------- public


def _scale(values: np.ndarray, scale: tuple[int, ...] | None) -> tuple[int, ...]:
    seen = tuple(int(v) for v in np.unique(values))
    if scale is None:
        return seen
    cats = tuple(sorted(set(scale)))
    outside = sorted(set(seen) - set(cats))
    if outside:
        raise ValueError(f"grade {outside[0]} is not on the scale {list(cats)}")
    return cats


def _topic_categories(tables: np.ndarray, fixed: bool) -> np.ndarray:
    """topics × q: the categories each topic's table counts over. A fixed scale is the same for
    every topic; without one, a topic's categories are the grades given on its shared items, so
    that its statistics (AC1's q, the weights' positions) depend on its own labels only."""
    if fixed:
        return np.ones(tables.shape[:2], dtype=bool)
    return (tables.sum(axis=-1) + tables.sum(axis=-2)) > 0


def _per_topic(
    tables: np.ndarray,
    labels: tuple[int, ...],
    categories: np.ndarray,
    *,
    threshold: int,
    confidence: float,
) -> tuple[list[TableAgreement], dict[str, np.ndarray], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Each topic's :class:`TableAgreement`, statistic values and (P_o, P_e) parts, every topic on
    its own categories (``categories[t]`` of ``labels``). Topics with the same categories go
    through the batched kernels together."""
    topics = len(tables)
    empty_values, empty_parts = _pair_values(tables[:0], labels, threshold)
    values = {k: np.full(topics, np.nan) for k in empty_values}
    parts = {k: (np.full(topics, np.nan), np.full(topics, np.nan)) for k in empty_parts}
    per: list[TableAgreement | None] = [None] * topics
    if topics == 0:
        return [], values, parts
    kinds, which = np.unique(categories, axis=0, return_inverse=True)
    which = np.asarray(which).reshape(-1)
    for k, keep in enumerate(kinds):
        rows = np.flatnonzero(which == k)
        sub = tables[rows][:, keep][:, :, keep]
        cats = tuple(label for label, kept in zip(labels, keep.tolist(), strict=True) if kept)
        for i, s in zip(
            rows.tolist(),
            table_agreements(sub, cats, threshold=threshold, confidence=confidence),
            strict=True,
        ):
            per[i] = s
        sub_values, sub_parts = _pair_values(sub, cats, threshold)
        for name, v in sub_values.items():
            values[name][rows] = v
        for name, (p_o, p_e) in sub_parts.items():
            parts[name][0][rows] = p_o
            parts[name][1][rows] = p_e
    return [s for s in per if s is not None], values, parts


def pair_agreement(
    ratings: Ratings,
    a: str,
    b: str,
    *,
    threshold: int = 1,
    scale: tuple[int, ...] | None = None,
    resamples: int = 0,
    rng: np.random.Generator | None = None,
    confidence: float = 0.95,
) -> PairReport:
    """Agreement of assessors ``a`` (rows) and ``b`` (columns) on the items both judged.

    Labels are the sorted union of both assessors' grades on those items, or ``scale``: the
    categories of the overall (concatenated) table. Per-topic tables cover the topics with at
    least one shared item, each over its own categories: ``scale`` when given, else the grades
    given on that topic's shared items (so a topic's statistics never depend on another topic's
    labels). Items judged by only one of the two are excluded (and counted). Overlap and the
    binarized statistics: relevant = grade ≥ ``threshold``.
    With ``resamples`` > 0, every pooled reading gets a percentile CI from resampling those topics
    (``rng`` required).
    """
    ia, ib = ratings.index(a), ratings.index(b)
    shared = ratings.judged[:, ia] & ratings.judged[:, ib]
    ga, gb = ratings.grades[shared, ia], ratings.grades[shared, ib]
    labels = _scale(np.concatenate([ga, gb]), scale)
    q = len(labels)
    cats = np.asarray(labels, dtype=np.int64)
    topic_of = ratings.item_topic[shared]
    present = np.unique(topic_of)
    t = np.searchsorted(present, topic_of)
    cells = (t * q + np.searchsorted(cats, ga)) * q + np.searchsorted(cats, gb)
    tables = np.bincount(cells, minlength=len(present) * q * q).reshape(len(present), q, q)
    overall = table_agreements(tables.sum(axis=0)[None], labels, threshold=threshold, confidence=confidence)
    categories = _topic_categories(tables, fixed=scale is not None)
    per, per_values, per_parts = _per_topic(
        tables, labels, categories, threshold=threshold, confidence=confidence
    )

    def readings_of(counts: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        return _pair_readings(counts, tables, labels, threshold, per_values, per_parts)

    return PairReport(
        a=a,
        b=b,
        labels=labels,
        items=int(shared.sum()),
        only_a=int(np.count_nonzero(ratings.judged[:, ia] & ~ratings.judged[:, ib])),
        only_b=int(np.count_nonzero(ratings.judged[:, ib] & ~ratings.judged[:, ia])),
        overall=overall[0],
        pooled=_pooled(readings_of, per_values, len(present), resamples, rng, confidence),
        per_topic={ratings.topics[i]: s for i, s in zip(present.tolist(), per, strict=True)},
        inference=pair_inference(overall[0].counts, overall[0].binary.counts, labels, confidence=confidence),
    )


def group_agreement(
    ratings: Ratings,
    *,
    scale: tuple[int, ...] | None = None,
    resamples: int = 0,
    rng: np.random.Generator | None = None,
    confidence: float = 0.95,
) -> GroupReport:
    """Fleiss' κ and Krippendorff's α (nominal, ordinal) over all the assessors of ``ratings``.

    Fleiss' κ (:func:`~judging.agreement.tables.fleiss_kappa`) on the items judged by every
    assessor; items judged by fewer are left out of it (and counted) since Fleiss' P_i needs the
    same m raters per item. Krippendorff's α (:func:`~judging.agreement.tables.krippendorff_alpha`)
    on every item judged by at least two. Labels: ``scale``, or the sorted union of every grade
    any assessor gave, on items judged once included: the categories of every group coefficient,
    Gwet's missing-data ones (which take those items) as much as Fleiss' κ and AC1 on the items
    judged by all. Fleiss' κ, Conger's κ and Krippendorff's α do not change with unused
    categories; AC1 and AC2 count them (q). Readings and bootstrap as for :func:`pair_agreement`.
    """
    raters = len(ratings.assessors)
    if raters < 2:
        raise ValueError("agreement needs at least two assessors")
    m = ratings.judged.sum(axis=1)
    pairable = m >= 2
    labels = _scale(ratings.grades[ratings.judged], scale)
    cats = np.asarray(labels, dtype=np.int64)
    q = len(cats)
    topic_of = ratings.item_topic[pairable]
    present = np.unique(topic_of)
    t = np.searchsorted(present, topic_of)
    unit_counts = rating_counts(ratings.grades[pairable], ratings.judged[pairable], labels)
    # per-topic sufficient statistics: Fleiss (complete items) and coincidences (all pairable)
    full = m[pairable] == raters
    items = np.bincount(t[full], minlength=len(present)).astype(np.float64)
    agree_i = ((unit_counts[full] ** 2).sum(axis=1) - raters) / (raters * (raters - 1.0))
    agree = np.bincount(t[full], weights=agree_i, minlength=len(present))
    totals = np.zeros((len(present), q))
    np.add.at(totals, t[full], unit_counts[full])
    coincidence = np.zeros((len(present), q, q))
    np.add.at(coincidence, t, _coincidence(unit_counts[:, None, :]))
    sums = (items, agree, totals)

    def readings_of(counts: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        return _group_readings(counts, sums, coincidence, raters, labels)

    p_bar, p_e = _fleiss_parts(items, agree, totals, raters)
    fleiss_t = _corrected(p_bar, p_e)
    alphas = {level: _alpha(coincidence, level) for level in ("nominal", "ordinal")}
    per_values = {
        "fleiss": fleiss_t,
        **{f"alpha_{k}": v for k, v in alphas.items()},
        **{f"alpha_{k}": alpha_values(coincidence, labels, k) for k in ("interval", "ratio")},
    }
    pooled = _pooled(readings_of, per_values, len(present), resamples, rng, confidence)
    all_bar, all_e = _fleiss_parts(
        items.sum(keepdims=True), agree.sum(keepdims=True), totals.sum(axis=0)[None], raters
    )
    pairable_t = np.bincount(t, minlength=len(present))
    # Gwet's missing-data versions keep items rated once (they inform π_k)
    judged_any = m >= 1
    every = rating_counts(ratings.grades[judged_any], ratings.judged[judged_any], labels)
    return GroupReport(
        assessors=ratings.assessors,
        labels=labels,
        items=int(full.sum()),
        pairable=int(pairable.sum()),
        single=int(np.count_nonzero(m == 1)),
        fleiss=Kappa(float(_corrected(all_bar, all_e)[0]), float(all_bar[0]), float(all_e[0])),
        pooled=pooled,
        per_topic={
            ratings.topics[topic]: GroupTopic(
                items=int(items[i]),
                pairable=int(pairable_t[i]),
                fleiss=Kappa(float(fleiss_t[i]), float(p_bar[i]), float(p_e[i])),
                alpha_nominal=float(alphas["nominal"][i]),
                alpha_ordinal=float(alphas["ordinal"][i]),
            )
            for i, topic in enumerate(present.tolist())
        },
        inference=group_inference(
            unit_counts[full],
            every,
            complete_grades=ratings.grades[pairable][full],
            labels=labels,
            pairable=unit_counts,
            light=light_kappa(ratings.grades, ratings.judged),
            confidence=confidence,
        ),
    )


def assessor_pairs(assessors: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every unordered pair, in the order the assessors were given."""
    return list(combinations(assessors, 2))
