"""Judging: assessors, assignments, judgments and agreement (arrives with issue 4)."""
