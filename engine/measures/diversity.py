"""Diversity measures over subtopic qrels, as ndeval (TREC Web track) computes them: alpha_nDCG, ERR_IA, NRBP, ..."""

from __future__ import annotations
