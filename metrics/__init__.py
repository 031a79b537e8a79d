"""Metrics: the evaluation pages over the engine: sources, leaderboards, comparisons, live/, downloads."""
