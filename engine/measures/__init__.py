"""Measure kernels and their registry. Importing this package registers every family."""

from engine.measures import compat as _compat  # noqa: F401  (Compat, Accuracy: ir_measures)
from engine.measures import cwl as _cwl  # noqa: F401  (INST, INSQ, SDCG, NERR8-11, BPM: cwl_eval)
from engine.measures import diversity as _diversity  # noqa: F401  (alpha_nDCG, ERR_IA...: ndeval)
from engine.measures import extra as _extra  # noqa: F401  (statAP, bpref-10, judged@k, RBP, ERR)
from engine.measures import sample_eval as _sample_eval  # noqa: F401  (xinfAP, xinfNDCG, iP_k...)
from engine.measures import trec_eval as _trec_eval  # noqa: F401  (core trec_eval families)
from engine.measures import trec_eval_extra as _trec_eval_extra  # noqa: F401  (the rest of all_trec)
from engine.measures.base import ORDER, REGISTRY, Context, EvalOptions, Family, Measure, register

__all__ = ["ORDER", "REGISTRY", "Context", "EvalOptions", "Family", "Measure", "register"]
