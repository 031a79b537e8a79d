"""The canonical ranking order: topic, score descending as a double, ties by docno descending (strcmp)."""

from __future__ import annotations

import numpy as np

from trec.order import canonical_order, docno_keys, hash_strings, rank_pairs, sort_by_topic_docno


def test_rank_pairs_sorts_by_score_then_docno_descending() -> None:
    pairs = [("d1", 1.0), ("d9", 1.0), ("d10", 1.0), ("x", 2.0), ("a", -1.0)]
    assert rank_pairs(pairs) == ["x", "d9", "d10", "d1", "a"]


def test_rank_pairs_of_nothing_is_empty() -> None:
    assert rank_pairs([]) == []


def test_uppercase_sorts_below_lowercase_in_byte_order() -> None:
    assert rank_pairs([("D", 0.0), ("d", 0.0), ("DD", 0.0)]) == ["d", "DD", "D"]


def test_scores_are_compared_as_doubles_not_float32() -> None:
    # these differ as doubles but collapse to the same float32, where the docno would decide
    a, b = 0.1, 0.1 + 2**-55
    assert a != b and np.float32(a) == np.float32(b)
    assert rank_pairs([("z", a), ("a", b)]) == ["a", "z"]


def test_presorted_input_and_shuffled_input_give_the_same_order() -> None:
    rng = np.random.default_rng(11)
    n = 400
    codes = np.sort(rng.integers(0, 5, n))
    scores = rng.integers(0, 20, n).astype(np.float64)  # many ties
    docnos = np.array([f"d{i}".encode() for i in rng.permutation(n)], dtype="S")
    reference = sorted(range(n), key=lambda i: (codes[i], -scores[i], [-b for b in docnos[i]] + [1]))
    expected = [(int(codes[i]), float(scores[i]), bytes(docnos[i])) for i in reference]

    def as_rows(perm: np.ndarray, c: np.ndarray, s: np.ndarray, d: np.ndarray) -> list:
        return [(int(c[i]), float(s[i]), bytes(d[i])) for i in perm.tolist()]

    shuffle = rng.permutation(n)
    c, s, d = codes[shuffle], scores[shuffle], docnos[shuffle]
    assert as_rows(canonical_order(c, s, d), c, s, d) == expected
    # already in canonical order: the fast path must return the identity
    c, s, d = (np.array([r[k] for r in expected]) for k in range(3))
    d = d.astype("S")
    assert canonical_order(c, s, d).tolist() == list(range(n))


def test_contiguous_topics_out_of_code_order_are_reordered() -> None:
    codes = np.array([2, 2, 0, 1, 1])
    scores = np.array([5.0, 4.0, 1.0, 3.0, 3.0])
    docnos = np.array([b"a", b"b", b"c", b"d", b"e"])
    assert canonical_order(codes, scores, docnos).tolist() == [2, 4, 3, 0, 1]


def test_docno_keys_compare_like_strcmp_for_prefixes() -> None:
    keys = docno_keys(np.array([b"d1", b"d10", b"d1234567", b"d12345678"], dtype="S"))
    rows = list(zip(*(k.tolist() for k in keys), strict=True))
    assert rows == sorted(rows)


def test_sort_by_topic_docno_is_ascending_bytes_within_topic() -> None:
    codes = np.array([1, 0, 1, 0])
    docnos = np.array([b"b", "é".encode(), b"a", b"z"])
    assert sort_by_topic_docno(codes, docnos).tolist() == [3, 1, 2, 0]


def test_hash_of_a_value_does_not_depend_on_the_array_width() -> None:
    # a run's and a qrels' docnos are hashed in arrays of different widths and joined on the hashes
    narrow = hash_strings(np.array([b"a", b"doc-17"], dtype="S6"))
    wide = hash_strings(np.array([b"x" * 40, b"doc-17", b"a"], dtype="S40"))
    assert narrow.tolist() == [wide[2], wide[1]]
    assert len(set(wide.tolist())) == 3


def test_score_sorted_topics_with_ties_in_any_docno_order_are_fixed() -> None:
    """Scores already descending (as runs are written): ties whose docnos descend are left as
    they are, any other tie is sorted, and the result is the canonical order either way."""
    rng = np.random.default_rng(5)
    for trial in range(30):
        n = int(rng.integers(2, 300))
        codes = np.sort(rng.integers(0, 4, n))
        scores = np.concatenate(
            [np.sort(rng.integers(0, 6, (codes == c).sum()))[::-1] for c in np.unique(codes)]
        )
        scores = scores.astype(np.float64)
        names = [f"d{i}" for i in rng.permutation(n)] if trial % 2 else [f"d{i:04d}" for i in range(n)[::-1]]
        docnos = np.array([x.encode() for x in names], dtype="S")
        reference = sorted(range(n), key=lambda i: (codes[i], -scores[i], [-b for b in docnos[i]] + [1]))
        assert canonical_order(codes, scores, docnos).tolist() == reference, trial
