"""How often the d_av interval covers the population d_av, against a percentile bootstrap of d_av.

The study behind docs/significance.md#effect-sizes: IR-like per-topic scores (a topic difficulty
Beta(0.8, 2) shared by both runs, run a 0.12 better on average, noise sd 0.05, clipped to [0, 1]),
600 data sets per topic count, 95% intervals; the population d_av from four million topics.
Seeded: ``python benchmarks/coverage_d_av.py`` prints the same table every time (about a minute).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.effects import effect_size

SIMULATIONS = 600
RESAMPLES = 2000  # of the bootstrap of each data set


def scores(rng: np.random.Generator, topics: int) -> tuple[np.ndarray, np.ndarray]:
    theta = rng.beta(0.8, 2.0, topics)
    a = np.clip(theta + rng.normal(0.12, 0.05, topics), 0, 1)
    b = np.clip(theta + rng.normal(0.0, 0.05, topics), 0, 1)
    return a, b


def bootstrap_d_av(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    idx = rng.integers(0, len(a), (RESAMPLES, len(a)))
    ra, rb = a[idx], b[idx]
    values = (ra - rb).mean(axis=1) / ((ra.std(axis=1, ddof=1) + rb.std(axis=1, ddof=1)) / 2)
    lo, hi = np.percentile(values[np.isfinite(values)], [2.5, 97.5])
    return float(lo), float(hi)


def main() -> None:
    rng = np.random.default_rng(2013)
    big_a, big_b = scores(rng, 4_000_000)
    delta = (big_a - big_b).mean() / ((big_a.std() + big_b.std()) / 2)
    print(f"population d_av {delta:.3f}; {SIMULATIONS} data sets per row, 95% intervals")
    print("topics  Algina-Keselman  bootstrap percentile")
    for topics in (10, 25, 50):
        ak = boot = 0
        for _ in range(SIMULATIONS):
            a, b = scores(rng, topics)
            e = effect_size(np.round(a - b, 12), 0.95, a=a, b=b)
            ak += e.d_av_ci[0] <= delta <= e.d_av_ci[1]
            lo, hi = bootstrap_d_av(a, b, rng)
            boot += lo <= delta <= hi
        print(f"{topics:>6}  {ak / SIMULATIONS:>15.3f}  {boot / SIMULATIONS:>20.3f}")


if __name__ == "__main__":
    main()
