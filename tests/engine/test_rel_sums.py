"""The standard measures' compiled pass (``Context.sums``, trec/_kernels.c ``rel_sums``) gives
every value the numpy kernels give, bit for bit: map, bpref, infAP, ndcg, ndcg_cut, P, Rprec,
recip_rank and num_rel_ret, at every relevance level, on runs with unjudged and unpooled
documents, empty topics and topics longer than the largest cutoff."""

from __future__ import annotations

import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.measures import REGISTRY, trec_eval
from engine.measures.base import CUTOFFS, NONPOOL, UNJUDGED, Context, EvalOptions, TopicStats, discounts
from tests.conftest import kernels_or_skip


@pytest.fixture(autouse=True)
def _kernels_built() -> None:
    kernels_or_skip()  # a skip on a machine without a compiler; under CI a failure


# every family the pass serves, with parameters in and out of CUTOFFS (7 and 2000 fall back)
CASES = [
    ("num_rel_ret", None),
    ("map", None),
    ("bpref", None),
    ("infAP", None),
    ("ndcg", None),
    ("Rprec", None),
    ("recip_rank", None),
    *[("P", k) for k in (*CUTOFFS, 7, 2000)],
    *[("ndcg_cut", k) for k in (*CUTOFFS, 7)],
]


def make_context(
    rel: np.ndarray, offsets: np.ndarray, extra_rel: np.ndarray, extra_nonrel: np.ndarray, level: int
) -> Context:
    """A run's context whose judgments hold every judged document it retrieves plus ``extra_rel``
    more relevant and ``extra_nonrel`` more non-relevant ones a topic (unretrieved), as real
    qrels would."""
    n = len(offsets) - 1
    seg = np.repeat(np.arange(n), np.diff(offsets))
    judged = rel >= 0
    num_rel = np.bincount(seg[rel >= level], minlength=n) + extra_rel
    num_nonrel = np.bincount(seg[judged & (rel < level)], minlength=n) + extra_nonrel
    topic_rel = [rel[offsets[t] : offsets[t + 1]] for t in range(n)]
    gains = [np.sort(r[r > 0])[::-1] for r in topic_rel]
    stats = TopicStats(
        num_rel=num_rel.astype(np.int64),
        num_nonrel=num_nonrel.astype(np.int64),
        num_judged=np.bincount(seg[judged], minlength=n),
        num_pooled=np.bincount(seg[rel != NONPOOL], minlength=n),
        ideal_gains=[g.astype(np.float64) + 1 for g in gains],
        grade_counts=[{} for _ in range(n)],
    )
    topics = tuple(f"t{t}" for t in range(n))
    return Context(topics, offsets, rel, stats, EvalOptions(level=level))


def values_both_ways(*args) -> tuple[dict, dict]:
    """Every case's per-topic values (as bytes) with the compiled pass, then with numpy."""
    got = {}
    for mode in ("1", "0"):
        with mock.patch.dict(os.environ, {"WORKBENCH_KERNELS": mode}):
            ctx = make_context(*args)
            assert (ctx.sums is not None) == (mode == "1")
            got[mode] = {(f, k): REGISTRY[f].kernel(ctx, k).tobytes() for f, k in CASES}
    return got["1"], got["0"]


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    ntopics=st.integers(1, 6),
    longest=st.sampled_from([0, 3, 40, 250, 1200]),
    level=st.sampled_from([0, 1, 2, 3]),
)
def test_the_compiled_pass_equals_numpy_bit_for_bit(seed, ntopics, longest, level) -> None:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, longest + 1, size=ntopics)
    offsets = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    grades = np.array([NONPOOL, UNJUDGED, 0, 1, 2, 3], dtype=np.int64)
    weights = rng.dirichlet(np.ones(len(grades)))
    rel = rng.choice(grades, size=int(offsets[-1]), p=weights)
    extra = rng.integers(0, 5, size=(2, ntopics))
    compiled, plain = values_both_ways(rel, offsets, extra[0], extra[1], level)
    assert compiled.keys() == plain.keys()
    for case in compiled:
        assert compiled[case] == plain[case], case


def test_a_worked_example_by_hand(monkeypatch) -> None:
    """Topic 0 ranks relevant, non-relevant, unpooled, relevant (R = 3, N = 2); topic 1 is empty."""
    rel = np.array([1, 0, NONPOOL, 2], dtype=np.int64)
    offsets = np.array([0, 4, 4], dtype=np.int64)
    monkeypatch.setenv("WORKBENCH_KERNELS", "1")
    ctx = make_context(rel, offsets, np.array([1, 0]), np.array([1, 0]), 1)
    sums = ctx.sums
    assert sums is not None
    assert sums.ap.tolist() == [1 / 1 + 2 / 4, 0.0]
    assert sums.bpref.tolist() == [1.0 + (1 - 1 / 2), 0.0]  # min(N, R) = 2, one non-relevant above
    pooled_term = 1 / 4 + (3 / 4) * (2 / 3) * ((1 + 0.00001) / (1 + 1 + 2 * 0.00001))
    assert sums.infap.tolist() == [1.0 + pooled_term, 0.0]
    assert sums.dcg.tolist() == [1 / np.log2(2.0) + 2 / np.log2(5.0), 0.0]
    assert sums.rel_ret.tolist() == [2.0, 0.0]
    assert sums.first.tolist() == [1.0, 0.0]
    assert sums.rel_at_R.tolist() == [1.0, 0.0]  # R = 3: the top 3 hold one relevant
    top5 = sums.rel_at(5)
    assert top5 is not None and top5.tolist() == [2.0, 0.0]
    assert sums.rel_at(7) is None
    assert trec_eval._map(ctx, None).tolist() == [(1 + 2 / 4) / 3, 0.0]


def test_infaps_epsilon_has_one_home_the_kernel_reads(monkeypatch) -> None:
    """The compiled pass holds no constant of a measure: infAP's ε is engine/measures/base.py's,
    passed in. Changed there, both paths change together (and still agree bit for bit)."""
    from engine.measures import base

    rel = np.array([1, 1, 0, NONPOOL, 2], dtype=np.int64)  # at rank 2: (1 + ε) / (1 + 0 + 2ε)
    offsets = np.array([0, 5], dtype=np.int64)
    args = (rel, offsets, np.array([1]), np.array([1]), 1)
    before, _ = values_both_ways(*args)
    monkeypatch.setattr(base, "INFAP_EPSILON", 0.25)
    monkeypatch.setattr(trec_eval, "INFAP_EPSILON", 0.25)
    compiled, plain = values_both_ways(*args)
    assert compiled[("infAP", None)] == plain[("infAP", None)] != before[("infAP", None)]
    assert compiled[("map", None)] == before[("map", None)]


def test_the_discount_table_grows_with_the_longest_topic() -> None:
    table = discounts(5000)
    assert len(table) > 5000
    assert table[4999] == np.log2(np.array([5000.0]))[0]
    assert discounts(10)[:11].tobytes() == np.log2(np.arange(11, dtype=np.float64) + 1.0).tobytes()


def test_grades_that_are_not_integers_use_numpy(monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_KERNELS", "1")
    ctx = make_context(np.array([1, 0], dtype=np.int64), np.array([0, 2]), np.array([0]), np.array([0]), 1)
    assert ctx.sums is not None
    floats = Context(ctx.topics, ctx.offsets, ctx.rel.astype(np.float64), ctx.stats, ctx.options)
    assert floats.sums is None
    assert trec_eval._map(floats, None).tobytes() == trec_eval._map(ctx, None).tobytes()
