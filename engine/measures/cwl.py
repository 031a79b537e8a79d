"""The C/W/L framework's measures as cwl_eval computes them: INST, INSQ, SDCG, NERR8-NERR11, BPM.

ir_measures computes these names with its ``cwl_eval`` provider (``ir_measures/providers/cwl_eval.py``),
which calls cwl_eval's classes (``cwl/ruler/measures/*.py``, ireval/cwl) on rankings built with
``RankingMaker(..., max_n=1000)``. What that fixes, and what every kernel here reproduces:

- **Gains.** A qrels grade r (negative grades first raised to 0) becomes
  g = (clip(r, min_rel, max_rel) − min_rel) / (max_rel − min_rel), a number in [0, 1]; ``max_rel``
  is required, ``min_rel`` defaults to 0. A ranked document absent from the qrels gains 0 (cwl's
  "worst case" for unjudged items). With min_rel >= 0 a grade <= min_rel gains 0.
- **Depth.** Every ranking is cut or padded to exactly 1000 positions (cwl's ``max_n``); padding
  gains 0. The padding matters: the measures that run to full depth normalise over all 1000 ranks.
- **The C/W/L expectation.** A continuation probability c_i per rank i = 1..1000 gives the weights
  P_i = Π_{j<i} c_j (P_1 = 1) and the value is the expected rate of gain
  EU = Σ_i P_i g_i / Σ_i P_i  (cwl's ``CWLMetric.w_vector`` and ``_do_score``: W_i = P_i / Σ P).
- ``rel`` and ``-l`` do not apply (cwl gains are graded); ``-M`` and ``-J`` do, before the cut at 1000.

Ties: the engine ranks score ties by docno descending (trec_eval). ir_measures' provider keeps the
run's input order for equal scores (a stable sort on score), so the two agree whenever tied
documents are given in docno-descending order, and can differ otherwise.

A per-topic kernel is vectorised over topics: gains go into a dense (topics × 1000) matrix,
processed in blocks of rows so memory stays bounded for any number of topics.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.measures.aliases import IR_ALIASES, REQUIRED_CUTOFF, IrAlias, IrCall, Param, default_build
from engine.measures.base import Context, Family, Measure, register
from engine.name_parts import MeasureError

MAX_DEPTH = 1000  # cwl_eval's max_n, as ir_measures' provider passes it
BLOCK_ROWS = 1024  # topics per dense block: 1024 x 1000 float64 = 8 MB per matrix
DEFAULT_T = 1.0
DEFAULT_NERR10_P = 0.9
DEFAULT_MIN_REL = 0

# c_i from (gains G, cumulative gains, ranks r 1..1000 as a row, arguments) for a block of topics
Continuation = Callable[[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]], np.ndarray]


# -------------------------------------------------------------------------------- parameters


def _arguments(param: Any) -> dict[str, Any]:
    """Named arguments from the engine parameter: ``k``, ``pairs``, ``(k, pairs)`` or None.

    ``pairs`` is ``(("T", 2.0), ("max_rel", 3))`` (ir_measures names, defaults omitted) or, for the
    workbench spelling ``-m inst.T=2,max_rel=3``, the same with float values; a cutoff given as
    ``(k, pairs)`` or as a bare int is returned under ``cutoff``.
    """
    if param is None:
        return {}
    if isinstance(param, tuple):
        if len(param) == 2 and not isinstance(param[0], tuple):
            return {**dict(param[1]), "cutoff": param[0]}
        return dict(param)
    return {"cutoff": param}


def _integer(args: dict[str, Any], key: str, measure: str, default: int | None = None) -> int:
    value = args.get(key, default)
    if value is None:
        raise ValueError(f"{measure} needs {key}, e.g. {_example(measure, key)}")
    if float(value) != int(value):
        raise ValueError(f"{measure}: {key} must be an integer, got {value}")
    return int(value)


def _example(measure: str, key: str) -> str:
    return f"{measure}(max_rel=3)@10" if key == "cutoff" else f"{measure}({key}=...)"


def _cutoff(args: dict[str, Any], measure: str) -> int:
    k = _integer(args, "cutoff", measure)
    if k <= 0:
        raise ValueError(f"{measure}: the cutoff must be a positive integer, got {k}")
    return k


def _gain_range(args: dict[str, Any], measure: str) -> tuple[float, float]:
    """(min_rel, max_rel): the grades mapped to gains 0 and 1; max_rel is required, min_rel < max_rel."""
    max_rel = _integer(args, "max_rel", measure)
    min_rel = _integer(args, "min_rel", measure, DEFAULT_MIN_REL)
    if min_rel >= max_rel:
        raise ValueError(f"{measure}: min_rel ({min_rel}) must be less than max_rel ({max_rel})")
    return float(min_rel), float(max_rel)


def _positive(args: dict[str, Any], key: str, default: float, measure: str) -> float:
    value = float(args.get(key, default))
    if not value > 0.0:
        raise ValueError(f"{measure}: {key} must be positive, got {value:g}")
    return value


# -------------------------------------------------------------------------------- the C/W/L machinery


def gains(ctx: Context, min_rel: float, max_rel: float) -> np.ndarray:
    """Each ranked document's cwl gain: (clip(max(grade, 0), min_rel, max_rel) − min_rel) / range.

    ir_measures' provider raises negative grades to 0 (``max(qrel.relevance, 0)``) and its
    ``IrmQrelHandler`` clips and scales; a document missing from the qrels is cwl's unjudged item,
    whose gain is the ranking's min_gain, 0.
    """
    in_qrels = ctx.rel >= -1  # graded, or UNJUDGED (a negative qrels grade, read as 0)
    grade = np.clip(np.maximum(ctx.rel, 0).astype(np.float64), min_rel, max_rel)
    return np.where(in_qrels, (grade - min_rel) / (max_rel - min_rel), 0.0)


def _dense_blocks(ctx: Context, values: np.ndarray) -> Any:
    """(first topic, block) pairs: ``values`` laid into (topics × MAX_DEPTH) rows, zero-padded, cut."""
    inside = ctx.rank <= MAX_DEPTH
    seg = ctx.segment[inside]
    col = ctx.rank[inside] - 1
    vals = values[inside]
    bounds = np.searchsorted(seg, np.arange(0, ctx.ntopics + BLOCK_ROWS, BLOCK_ROWS))
    for b, start in enumerate(range(0, ctx.ntopics, BLOCK_ROWS)):
        rows = min(BLOCK_ROWS, ctx.ntopics - start)
        block = np.zeros((rows, MAX_DEPTH), dtype=np.float64)
        lo, hi = int(bounds[b]), int(bounds[b + 1])
        block[seg[lo:hi] - start, col[lo:hi]] = vals[lo:hi]
        yield start, block


def expected_utility(c: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Per row, Σ P_i g_i / Σ P_i with P_1 = 1, P_i = Π_{j<i} c_j (the last c is never used)."""
    p = np.ones_like(c)
    np.cumprod(c[:, :-1], axis=1, out=p[:, 1:])
    return np.asarray((p * g).sum(axis=1) / p.sum(axis=1))


def _cwl_kernel(ctx: Context, args: dict[str, Any], measure: str, cont: Continuation) -> np.ndarray:
    min_rel, max_rel = _gain_range(args, measure)
    out = np.zeros(ctx.ntopics, dtype=np.float64)
    ranks = np.arange(1, MAX_DEPTH + 1, dtype=np.float64)[None, :]
    for start, g in _dense_blocks(ctx, gains(ctx, min_rel, max_rel)):
        cum = np.cumsum(g, axis=1)  # sequential, as cwl's np.cumsum per ranking
        out[start : start + len(g)] = expected_utility(cont(g, cum, ranks, args), g)
    return out


# -------------------------------------------------------------------------------- the measures


def _inst(ctx: Context, param: Any) -> np.ndarray:
    """inst (ir_measures ``INST(T=1.0, min_rel=0, max_rel=M)``): Moffat, Bailey, Scholer & Thomas, ADCS 2015.

    c_i = ((i + T + T_i − 1) / (i + T + T_i))², T_i = T − Σ_{j<=i} g_j (the gain still wanted after
    rank i); EU = Σ P_i g_i / Σ P_i over 1000 ranks. T > 0 (default 1): cwl accepts any T, and a
    T <= 0 can divide by zero there. Source: cwl/ruler/measures/cwl_inst.py.
    """
    args = _arguments(param)
    t = _positive(args, "T", DEFAULT_T, "INST")

    def cont(g: np.ndarray, cum: np.ndarray, r: np.ndarray, _: dict[str, Any]) -> np.ndarray:
        d = r + t + (t - cum)
        return np.asarray(((d - 1.0) / d) ** 2)

    return _cwl_kernel(ctx, args, "INST", cont)


def _insq(ctx: Context, param: Any) -> np.ndarray:
    """insq (ir_measures ``INSQ(T=1.0, min_rel=0, max_rel=M)``): Moffat, Scholer & Thomas, ADCS 2012.

    c_i = ((i + 2T − 1) / (i + 2T))², independent of the gains; EU = Σ P_i g_i / Σ P_i over 1000
    ranks. T > 0 (default 1). Source: cwl/ruler/measures/cwl_insq.py.
    """
    args = _arguments(param)
    t = _positive(args, "T", DEFAULT_T, "INSQ")

    def cont(g: np.ndarray, cum: np.ndarray, r: np.ndarray, _: dict[str, Any]) -> np.ndarray:
        c = ((r + 2.0 * t - 1.0) / (r + 2.0 * t)) ** 2
        return np.broadcast_to(c, g.shape)

    return _cwl_kernel(ctx, args, "INSQ", cont)


def _sdcg(ctx: Context, param: Any) -> np.ndarray:
    """sdcg (ir_measures ``SDCG(min_rel=0, max_rel=M)@k``): scaled DCG, cwl_eval's NDCG-k.

    c_i = log(i + 1) / log(i + 2) for i < k, else 0, so P_i = 1 / log2(i + 1) for i <= k and
    SDCG@k = Σ_{i<=k} g_i / log2(i + 1) / Σ_{i<=min(k,1000)} 1 / log2(i + 1): DCG with linear gains
    in [0, 1], over the DCG of k fully relevant documents whatever the qrels hold (not trec_eval's
    ndcg). ``dcg`` may only be 'log2'. Source: cwl/ruler/measures/cwl_dcg.py (NDCGCWLMetric).
    """
    args = _arguments(param)
    k = _cutoff(args, "SDCG")

    def cont(g: np.ndarray, cum: np.ndarray, r: np.ndarray, _: dict[str, Any]) -> np.ndarray:
        c = np.where(r < k, np.log(r + 1.0) / np.log(r + 2.0), 0.0)
        return np.broadcast_to(c, g.shape)

    return _cwl_kernel(ctx, args, "SDCG", cont)


def _nerr8(ctx: Context, param: Any) -> np.ndarray:
    """nerr8 (ir_measures ``NERR8(min_rel=0, max_rel=M)@k``): Azzopardi et al., ICTIR 2021, eq. 8.

    c_i = 1 − g_i for i < k, else 0: EU = Σ_{i<=k} g_i Π_{j<i}(1 − g_j) / Σ_{i<=k} Π_{j<i}(1 − g_j).
    Source: cwl/ruler/measures/cwl_nerr.py (NERReq8CWLMetric).
    """
    args = _arguments(param)
    k = _cutoff(args, "NERR8")

    def cont(g: np.ndarray, cum: np.ndarray, r: np.ndarray, _: dict[str, Any]) -> np.ndarray:
        return np.where(r < k, 1.0 - g, 0.0)

    return _cwl_kernel(ctx, args, "NERR8", cont)


def _nerr9(ctx: Context, param: Any) -> np.ndarray:
    """nerr9 (ir_measures ``NERR9(min_rel=0, max_rel=M)@k``): Azzopardi et al., ICTIR 2021, eq. 9.

    c_i = i / (i + 1) · (1 − g_i) for i < k, else 0 (ERR's 1/i discount inside the continuation).
    Source: cwl/ruler/measures/cwl_nerr.py (NERReq9CWLMetric).
    """
    args = _arguments(param)
    k = _cutoff(args, "NERR9")

    def cont(g: np.ndarray, cum: np.ndarray, r: np.ndarray, _: dict[str, Any]) -> np.ndarray:
        return np.where(r < k, (r / (r + 1.0)) * (1.0 - g), 0.0)

    return _cwl_kernel(ctx, args, "NERR9", cont)


def _nerr10(ctx: Context, param: Any) -> np.ndarray:
    """nerr10 (ir_measures ``NERR10(p=0.9, min_rel=0, max_rel=M)``): Azzopardi et al., ICTIR 2021, eq. 10.

    c_i = p · (1 − g_i) at every rank (RBP's patience times ERR's satisfaction), over 1000 ranks.
    0 <= p <= 1 (cwl accepts any p; outside that c is no probability). Source:
    cwl/ruler/measures/cwl_nerr.py (NERReq10CWLMetric, whose parameter is called phi).
    """
    args = _arguments(param)
    p = float(args.get("p", DEFAULT_NERR10_P))
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"NERR10: p must lie between 0 and 1, got {p:g}")

    def cont(g: np.ndarray, cum: np.ndarray, r: np.ndarray, _: dict[str, Any]) -> np.ndarray:
        return p * (1.0 - g)

    return _cwl_kernel(ctx, args, "NERR10", cont)


def _nerr11(ctx: Context, param: Any) -> np.ndarray:
    """nerr11 (ir_measures ``NERR11(T=1.0, min_rel=0, max_rel=M)``): Azzopardi et al., ICTIR 2021, eq. 11.

    c_i = ((i + 2T − 1) / (i + 2T))² · (1 − g_i) (INSQ's patience times ERR's satisfaction), over
    1000 ranks; T > 0 (default 1). Source: cwl/ruler/measures/cwl_nerr.py (NERReq11CWLMetric).
    """
    args = _arguments(param)
    t = _positive(args, "T", DEFAULT_T, "NERR11")

    def cont(g: np.ndarray, cum: np.ndarray, r: np.ndarray, _: dict[str, Any]) -> np.ndarray:
        return ((r + 2.0 * t - 1.0) / (r + 2.0 * t)) ** 2 * (1.0 - g)

    return _cwl_kernel(ctx, args, "NERR11", cont)


def _bpm(ctx: Context, param: Any) -> np.ndarray:
    """bpm (ir_measures ``BPM(T=1.0, min_rel=0, max_rel=M)@k``): static Bejeweled Player Model.

    Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017, as cwl_eval's BPMCWLMetric(T, K=k) with unit costs:
    c_i = 1 while Σ_{j<=i} g_j < T and i < k, else 0; the user reads the first m ranks, m = the first
    rank where the gain reaches T, or k, or 1000, whichever comes first, and BPM = (1/m) Σ_{i<=m} g_i.
    Any T is accepted (T <= 0 gives g_1). Source: cwl/ruler/measures/cwl_bpm.py.
    """
    args = _arguments(param)
    k = _cutoff(args, "BPM")
    t = float(args.get("T", DEFAULT_T))

    def cont(g: np.ndarray, cum: np.ndarray, r: np.ndarray, _: dict[str, Any]) -> np.ndarray:
        return ((cum < t) & (r < k)).astype(np.float64)

    return _cwl_kernel(ctx, args, "BPM", cont)


# -------------------------------------------------------------------------------- registration


def format_named(name: str, param: Any) -> str:
    """The output name of a workbench spelling (``-m inst.T=2,max_rel=3`` prints ``inst_T=2,max_rel=3``)."""
    args = _arguments(param)
    if not args:
        return name
    return (
        name + "_" + ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in args.items())
    )


def _family(name: str, kernel: Any) -> Family:
    return Family(
        name, kernel, kernel.__doc__ or "", params=((),), in_all_trec=False, format_name=format_named
    )


for _name, _kernel in (
    ("inst", _inst),
    ("insq", _insq),
    ("sdcg", _sdcg),
    ("nerr8", _nerr8),
    ("nerr9", _nerr9),
    ("nerr10", _nerr10),
    ("nerr11", _nerr11),
    ("bpm", _bpm),
):
    register(_family(_name, _kernel))


# -------------------------------------------------------------------------------- ir_measures names


def _positive_check(value: Any) -> str | None:
    return None if value > 0 else "it must be positive"


def _probability(value: Any) -> str | None:
    return None if 0.0 <= value <= 1.0 else "it must lie between 0 and 1"


MIN_REL = Param(int, default=DEFAULT_MIN_REL, doc="minimum relevance score")
MAX_REL = Param(int, required=True, doc="maximum relevance score")
T_ANY = Param(float, default=DEFAULT_T, doc="total desired gain (normalized)")
T_PARAM = Param(float, default=DEFAULT_T, check=_positive_check, doc="total desired gain (normalized)")


def _build_cwl(call: IrCall) -> list[Measure]:
    """The default mapping, after ir_measures' provider check that min_rel < max_rel."""
    spec = call.alias.spec
    min_rel = call.args.get("min_rel", spec["min_rel"].default)
    if min_rel >= call.args["max_rel"]:
        raise MeasureError(
            f"measure '{call.spec}': min_rel ({min_rel}) must be less than max_rel ({call.args['max_rel']})"
        )
    return default_build(call)


def _alias(plain: str | None, cutoff: str | None, params: dict[str, Param], doc: str) -> IrAlias:
    return IrAlias(
        plain, cutoff, {**params, "min_rel": MIN_REL, "max_rel": MAX_REL}, build=_build_cwl, doc=doc
    )


IR_ALIASES.update(
    {
        "INST": _alias(
            "inst", None, {"T": T_PARAM}, "INST (cwl_eval): adaptive user model with target gain T"
        ),
        "INSQ": _alias("insq", None, {"T": T_PARAM}, "INSQ (cwl_eval): INST's predecessor, gain-blind"),
        "SDCG": _alias(
            None,
            "sdcg",
            {
                "cutoff": REQUIRED_CUTOFF,
                "dcg": Param(str, default="log2", choices=("log2",), doc="DCG formulation"),
            },
            "Scaled DCG (cwl_eval): DCG@k over the DCG of k fully relevant documents",
        ),
        "NERR8": _alias(
            None, "nerr8", {"cutoff": REQUIRED_CUTOFF}, "NERR eq. 8 (cwl_eval): ERR-like, cut at k"
        ),
        "NERR9": _alias(
            None, "nerr9", {"cutoff": REQUIRED_CUTOFF}, "NERR eq. 9 (cwl_eval): ERR-like with 1/i, cut at k"
        ),
        "NERR10": _alias(
            "nerr10",
            None,
            {"p": Param(float, default=DEFAULT_NERR10_P, check=_probability, doc="persistence")},
            "NERR eq. 10 (cwl_eval): ERR-like with RBP persistence p",
        ),
        "NERR11": _alias(
            "nerr11", None, {"T": T_PARAM}, "NERR eq. 11 (cwl_eval): ERR-like with INST's goal T"
        ),
        "BPM": _alias(
            None,
            "bpm",
            {"cutoff": REQUIRED_CUTOFF, "T": T_ANY},
            "Bejeweled Player Model (cwl_eval, static): stop at gain T or k documents",
        ),
    }
)
