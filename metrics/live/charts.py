"""The live page's chart of R̂ per topic, as server-rendered SVG: first load and refresh (the API's
``chart=1``) draw it with the same code."""

from __future__ import annotations

import math
from typing import Any

from django.template.loader import render_to_string

CHART_WIDTH = 760
LABEL_WIDTH = 64
RIGHT_MARGIN = 24
TOP = 34
ROW = 24
BOTTOM = 34


def _nice_step(top: float, ticks: int = 6) -> float:
    """A 1-2-5 step giving at most ``ticks`` intervals up to ``top``."""
    raw = max(top, 1.0) / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return float(max(m * power, 1))
    return float(10 * power)


def chart_context(report: dict[str, Any]) -> dict[str, Any]:
    """Geometry of the R̂ chart: per topic a bar for relevant found, R̂ as a dot with its interval
    as a whisker, or (no estimate) a dashed line over the logical range found … found + unjudged."""
    topics = report["topics"]
    scale_top = 1.0
    for t in topics:
        scale_top = max(scale_top, float(t["found"]))
        if t["r_hat"] is not None:
            scale_top = max(scale_top, float(t["high"]), float(t["r_hat"]))
    step = _nice_step(scale_top)
    x_max = step * math.ceil(scale_top / step)
    plot = CHART_WIDTH - LABEL_WIDTH - RIGHT_MARGIN

    def x(v: float) -> float:
        return round(LABEL_WIDTH + plot * min(max(v, 0.0), x_max) / x_max, 1)

    rows = []
    for i, t in enumerate(topics):
        estimated = t["r_hat"] is not None
        high = float(t["high"])
        rows.append(
            {
                "topic": t["topic"],
                "design": t["design"],
                "y": TOP + i * ROW,
                "found": t["found"],
                "found_w": round(x(t["found"]) - LABEL_WIDTH, 1),
                "estimated": estimated,
                "r_hat": t["r_hat"],
                "low": t["low"],
                "high": t["high"],
                "x_rhat": x(float(t["r_hat"])) if estimated else None,
                "x_low": x(float(t["low"])),
                "x_high": x(high),
                "clipped": high > x_max,
                "interval": t["interval_text"],
            }
        )
    height = TOP + len(topics) * ROW + BOTTOM
    ticks = []
    v = 0.0
    while v <= x_max + 1e-9:
        ticks.append({"x": x(v), "label": f"{v:g}"})
        v += step
    return {
        "width": CHART_WIDTH,
        "height": height,
        "left": LABEL_WIDTH,
        "right": CHART_WIDTH - RIGHT_MARGIN,
        "axis_y": TOP + len(topics) * ROW + 4,
        "rows": rows,
        "ticks": ticks,
        "confidence": round(100 * float(report["confidence"]), 1),
    }


def live_chart_svg(report: dict[str, Any]) -> str:
    return render_to_string("metrics/live_chart.html", {"chart": chart_context(report)})
