"""The evaluation context every measure kernel reads, and the measure registry.

A run is evaluated as one concatenation of its topics' ranked lists: ``rel[i]`` is the judgment
of the document at position i (a grade >= 0, :data:`UNJUDGED` for pooled-but-unjudged, or
:data:`NONPOOL` for a document absent from the qrels), topic t owning ``offsets[t]:offsets[t+1]``.
Kernels are branch-light numpy over these arrays and return one float64 per topic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from trec import kernels

# trec_eval's RELVALUE_UNJUDGED (-2) / RELVALUE_NONPOOL (-1), renamed so that any grade >= 0 is judged.
UNJUDGED = -1
NONPOOL = -2

# trec_eval's cutoffs for P, ndcg_cut, recall, map_cut... (``-m P`` prints these)
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# trec_eval's recall levels for iprec_at_recall and 11pt_avg (and their trec_eval 9 variants)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
# infAP's smoothing ε (trec_eval m_infap.c): the numpy kernel (trec_eval.py) and the compiled pass
# (trec/_kernels.c rel_sums, which takes it as an argument) both read it from here.
INFAP_EPSILON = 0.00001
_CUTOFF_ARRAY = np.array(CUTOFFS, dtype=np.int64)
_DISCOUNTS = np.log2(np.arange(1001, dtype=np.float64) + 1.0)


def discounts(longest: int) -> np.ndarray:
    """``log2(r + 1)`` for every rank r up to ``longest`` (index r), as numpy computes it."""
    global _DISCOUNTS
    table = _DISCOUNTS
    if len(table) <= longest:
        table = np.log2(np.arange(max(longest + 1, 2 * len(table)), dtype=np.float64) + 1.0)
        _DISCOUNTS = table
    return table


class RelSums:
    """A run's per-topic sums of the standard measures, from :func:`trec.kernels.rel_sums`.

    Each array equals, bit for bit, what the numpy kernel sums (tests/engine/test_rel_sums.py).
    """

    __slots__ = ("_cut", "ap", "bpref", "dcg", "first", "infap", "rel_at_R", "rel_ret")

    def __init__(self, out: np.ndarray) -> None:
        self.ap, self.bpref, self.infap, self.dcg = out[0], out[1], out[2], out[3]
        self.rel_ret = out[4]  # relevant retrieved
        self.first = out[5]  # rank of the first relevant document, 0 when none
        self.rel_at_R = out[6]  # relevant in the top R (0 when R = 0)
        self._cut = out[7:]

    def rel_at(self, k: int) -> np.ndarray | None:
        """Relevant documents in the top k, per topic; None when k is not one of :data:`CUTOFFS`."""
        j = _cutoff_index(k)
        return None if j is None else self._cut[j]

    def dcg_at(self, k: int) -> np.ndarray | None:
        """DCG of the top k, per topic; None when k is not one of :data:`CUTOFFS`."""
        j = _cutoff_index(k)
        return None if j is None else self._cut[len(CUTOFFS) + j]


def _cutoff_index(k: int) -> int | None:
    try:
        return CUTOFFS.index(k)
    except ValueError:
        return None


@dataclass(frozen=True)
class EvalOptions:
    """trec_eval / sample_eval switches that change numbers."""

    level: int = 1  # -l: relevant means rel >= level
    max_docs: int | None = None  # -M: keep the top N after sorting, before -J
    judged_only: bool = False  # -J: drop unjudged and unpooled documents, then rank
    complete: bool = False  # -c: average over every qrels topic, missing ones score 0
    sample_variant: str = "trec2011"  # sample_eval.pl version: "trec2011" or "trecvid2012"
    sample_prior: str = "third"  # xinfAP's empty-sample prior: sample_eval's 1/3 or trec_eval's 1/2
    max_result_size: int = 1000  # sample_eval's $maxResultSize
    num_docs_in_coll: int = (
        0  # -N: documents in the collection (trec_eval's default 0; only utility reads it)
    )


@dataclass(frozen=True)
class TopicStats:
    """Per-topic facts of the judgments alone (independent of any run), for one relevance level."""

    num_rel: np.ndarray  # judged rel >= level
    num_nonrel: np.ndarray  # judged 0 <= rel < level
    num_judged: np.ndarray  # rel >= 0
    num_pooled: np.ndarray  # every qrels line, judged or not
    ideal_gains: list[np.ndarray]  # judged grades > 0, sorted descending (trec_eval's ideal ranking)
    grade_counts: list[dict[int, int]]  # rel >= 0 grade -> count


class Context:
    """One run (or the empty run, for ``-c``) aligned with the judgments of its evaluated topics."""

    def __init__(
        self,
        topics: tuple[str, ...],
        offsets: np.ndarray,
        rel: np.ndarray,
        stats: TopicStats,
        options: EvalOptions,
        *,
        level: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.topics = topics
        self.offsets = offsets
        self.rel = rel
        self.stats = stats
        self.options = options
        self.level = options.level if level is None else level
        # Kernels of other designs (strata, inclusion probabilities, scores) read what they need here.
        self.extra: dict[str, Any] = extra or {}

    @cached_property
    def sums(self) -> RelSums | None:
        """The standard measures' sums in one compiled pass (:class:`RelSums`), or None where the
        compiled kernels are off or the grades are not integers: the numpy kernels then compute."""
        rel, offsets = self.rel, self.offsets
        if not kernels.enabled() or rel.dtype.kind not in "iu" or len(offsets) == 0 or offsets[0] != 0:
            return None
        longest = int(np.max(self.lengths)) if len(self.lengths) else 0
        return RelSums(
            kernels.rel_sums(
                rel,
                offsets,
                self.level,
                NONPOOL,
                self.stats.num_rel,
                self.stats.num_nonrel,
                discounts(longest),
                _CUTOFF_ARRAY,
                INFAP_EPSILON,
            )
        )

    @property
    def ntopics(self) -> int:
        return len(self.topics)

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def segment(self) -> np.ndarray:
        """Topic index of every position."""
        return np.repeat(np.arange(self.ntopics), self.lengths)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of every position within its topic."""
        return np.arange(len(self.rel), dtype=np.int64) - np.repeat(self.offsets[:-1], self.lengths) + 1

    @cached_property
    def is_rel(self) -> np.ndarray:
        return self.rel >= self.level

    @cached_property
    def is_judged(self) -> np.ndarray:
        return self.rel >= 0

    @cached_property
    def is_nonrel(self) -> np.ndarray:
        return self.is_judged & ~self.is_rel

    @cached_property
    def cum_rel(self) -> np.ndarray:
        """Relevant documents at or above each position, within its topic."""
        return self.seg_cumsum(self.is_rel)

    # Sparse views: most measures only read the relevant positions, a tenth of a run or less, so
    # they compute there instead of over every position. Sums keep the positions' order, so each
    # value is bit for bit what the dense formula gives (adding the dense form's zeros is exact).

    @cached_property
    def rel_positions(self) -> np.ndarray:
        """Positions of the relevant documents (rel >= level), in order."""
        return np.flatnonzero(self.is_rel)

    @cached_property
    def rel_segment(self) -> np.ndarray:
        """Topic index of each relevant position."""
        return np.searchsorted(self.offsets, self.rel_positions, side="right") - 1

    @cached_property
    def rel_rank(self) -> np.ndarray:
        """1-based rank of each relevant position."""
        return self.rel_positions - self.offsets[self.rel_segment] + 1

    @cached_property
    def rel_ordinal(self) -> np.ndarray:
        """``cum_rel`` at each relevant position: 1 for a topic's first relevant document, 2..."""
        first = np.searchsorted(self.rel_segment, np.arange(self.ntopics))
        return np.arange(len(self.rel_positions), dtype=np.int64) - first[self.rel_segment] + 1

    def before_rel(self, mask: np.ndarray) -> np.ndarray:
        """For each relevant position, how many positions where ``mask`` holds lie above it in its topic."""
        counts = np.cumsum(mask, dtype=np.int64)
        heads = self.offsets[:-1]
        start = np.where(heads > 0, counts[np.maximum(heads - 1, 0)], 0) if len(counts) else heads
        return counts[self.rel_positions] - mask[self.rel_positions] - start[self.rel_segment]

    @cached_property
    def nonrel_above(self) -> np.ndarray:
        """For each relevant position, the judged non-relevant documents above it (bpref, infAP)."""
        return self.before_rel(self.is_nonrel)

    def rel_sum(self, values: np.ndarray) -> np.ndarray:
        """Per topic, the sum of ``values`` given at the relevant positions."""
        return np.bincount(self.rel_segment, weights=values, minlength=self.ntopics)[: self.ntopics]

    def seg_cumsum(self, x: np.ndarray) -> np.ndarray:
        cs = np.cumsum(x, dtype=np.float64 if x.dtype.kind == "f" else np.int64)
        if len(cs) == 0:
            return cs
        base = np.r_[0, cs][self.offsets[:-1]]
        return cs - np.repeat(base, self.lengths)

    def seg_sum(self, x: np.ndarray) -> np.ndarray:
        return np.bincount(self.segment, weights=x, minlength=self.ntopics)[: self.ntopics]

    def seg_count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.segment[mask], minlength=self.ntopics)[: self.ntopics].astype(np.float64)

    def at_cutoff(self, cum: np.ndarray, k: int) -> np.ndarray:
        """Per topic, ``cum`` at rank k (its last value when the list is shorter; 0 when empty)."""
        idx = np.minimum(self.offsets[:-1] + k, self.offsets[1:]) - 1
        out = np.zeros(self.ntopics, dtype=np.float64)
        nonempty = self.lengths > 0
        out[nonempty] = cum[idx[nonempty]]
        return out

    def first(self, mask: np.ndarray) -> np.ndarray:
        """Per topic, the 1-based rank of the first position where ``mask`` holds (0 if none)."""
        out = np.zeros(self.ntopics, dtype=np.float64)
        seg = self.segment[mask]
        if seg.size:
            uniq, idx = np.unique(seg, return_index=True)
            out[uniq] = self.rank[mask][idx]
        return out

    def num_rel(self) -> np.ndarray:
        return self.stats.num_rel.astype(np.float64)


Kernel = Callable[[Context, Any], np.ndarray]
TextKernel = Callable[[Context, Any], list[str]]
Aggregate = Callable[[Context, np.ndarray], float]


def mean(ctx: Context, values: np.ndarray) -> float:
    return float(np.mean(values)) if len(values) else 0.0


def total(ctx: Context, values: np.ndarray) -> float:
    return float(np.sum(values))


def geometric_mean(ctx: Context, values: np.ndarray) -> float:
    """trec_eval's gm_*: exp of the mean of log(max(x, 0.00001))."""
    if not len(values):
        return 0.0
    return float(np.exp(np.mean(np.log(np.maximum(values, 0.00001)))))


@dataclass(frozen=True)
class Family:
    """A measure family: one kernel, its trec_eval name and parameters, and how topics aggregate."""

    name: str
    kernel: Kernel
    doc: str
    params: tuple[Any, ...] = ()  # default parameters (cutoffs...), empty if none
    aggregate: Aggregate = mean
    integer: bool = False  # printed without decimals (num_ret...)
    per_topic: bool = True  # sample_eval's iprec@rec has only an 'all' line
    in_all_trec: bool = True
    design: str = "qrels"  # "qrels", "prel" (sample_eval strata) or "mq" (inclusion probabilities)
    format_name: Callable[[str, Any], str] | None = None
    # a per-topic string instead of a number (trec_eval's relstring): printed per topic only
    text: TextKernel | None = None
    # how trec_eval reads ``name.params`` (meas_init.c): "long_cutoffs" (P.5,10), "double_cutoffs"
    # (iprec_at_recall..1,.5), "double_params" (utility.1,-1,0,0), "pairs" (ndcg.1=3,2=9), "" none
    param_kind: str = ""

    def output_name(self, param: Any) -> str:
        if self.format_name is not None:
            return self.format_name(self.name, param)
        if param is None:
            return self.name
        return f"{self.name}_{format_param(param)}"


def format_param(param: Any) -> str:
    if isinstance(param, float) and not param.is_integer():
        return f"{param:.2f}"
    if isinstance(param, float):
        return f"{param:.2f}" if param < 10 else str(int(param))
    return str(param)


@dataclass(frozen=True)
class Measure:
    """One requested output column: a family, its parameter, an optional level override, a name."""

    family: str
    param: Any = None
    name: str = ""
    level: int | None = None  # ir_measures' rel=N
    # Under -c, the value of a qrels topic the run lacks, instead of what its empty ranking scores:
    # ir_measures' Measure.DEFAULT (0) for its names, since its Evaluator gives such topics that
    # value (so NumQ counts only the topics the run has, NumRel sums only their R). None keeps the
    # empty ranking's value, as trec_eval's -c does (num_q counts every qrels topic).
    missing_value: float | None = None

    def measure_name(self) -> str:
        """The column's name: the one asked for (ir_measures' spelling), else trec_eval's output name."""
        return self.name or REGISTRY[self.family].output_name(self.param)


REGISTRY: dict[str, Family] = {}
# trec_eval -m all_trec prints families in this order
ORDER: list[str] = []


def register(family: Family, after: str | None = None) -> Family:
    REGISTRY[family.name] = family
    if family.name in ORDER:
        ORDER.remove(family.name)
    if after is not None and after in ORDER:
        ORDER.insert(ORDER.index(after) + 1, family.name)
    else:
        ORDER.append(family.name)
    return family
