"""Compat (Clarke et al.'s compatibility with an ideal ranking) and Accuracy, as ir_measures defines them."""

from __future__ import annotations
