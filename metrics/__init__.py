"""Metrics: a campaign's evaluation pages (sources, leaderboards, comparisons, live/, downloads)."""
