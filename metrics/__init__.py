"""Metrics: pure measure kernels (measures/), evaluation (evaluate.py) and the evaluate/compare commands."""
