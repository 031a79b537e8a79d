"""Charts as server-rendered SVG: numbers in, markup out (pure; no Django, no JavaScript).

Every text that reaches the markup (run tags, topic ids, titles) is escaped, so a run tagged
``<script>`` draws as text. Each drawn value carries ``data-*`` attributes and a ``<title>``
tooltip, so browser tests and screen readers find the numbers without reading pixels. A value
that is not a number (None or NaN) still gets its element, empty, so element counts match inputs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PALETTE = ("#2458b3", "#d1495b", "#2e933c", "#edae49", "#6b4c9a", "#00798c", "#8d6a9f", "#3d405b")
MEDIAN_COLOR, BEST_COLOR, GRID_COLOR, MUTED = "#edae49", "#2e933c", "#e3e7ee", "#5b6575"


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _attr(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else _e(value)


def el(tag: str, text: str | None = None, /, **attrs: object) -> str:
    """One SVG element; attribute names use ``_`` for ``-`` (``stroke_width``), ``cls`` for class.

    ``text`` is inserted as given (already escaped or markup): pass user text through :func:`_e`.
    """
    parts = " ".join(
        f'{"class" if k == "cls" else k.replace("_", "-")}="{_attr(v)}"' for k, v in attrs.items()
    )
    return f"<{tag} {parts}/>" if text is None else f"<{tag} {parts}>{text}</{tag}>"


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _fmt(value: float | None) -> str:
    return f"{value:.4f}" if value is not None and _finite(value) else "n/a"


def _scale_max(values: Sequence[float | None], given: float | None) -> float:
    """The axis maximum: ``given``, else 1 for scores within [0, 1], else the largest value."""
    if given is not None and given > 0:
        return given
    top = max((v for v in values if v is not None and _finite(v)), default=0.0)
    return 1.0 if top <= 1.0 else top


def _svg(width: int, height: int, css_id: str, title: str, body: list[str]) -> str:
    ident = f' id="{_e(css_id)}"' if css_id else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg"{ident} class="chart" role="img" '
        f'viewBox="0 0 {width} {height}" width="100%" preserveAspectRatio="xMinYMin meet" '
        f'aria-label="{_e(title)}" font-family="system-ui, sans-serif" font-size="11">'
        f"<title>{_e(title)}</title>" + "".join(body) + "</svg>"
    )


def _grid(x1: float, y1: float, x2: float, y2: float) -> str:
    return el("line", cls="grid", x1=x1, y1=y1, x2=x2, y2=y2, stroke=GRID_COLOR)


def bar_chart(
    labels: Sequence[str],
    values: Sequence[float | None],
    *,
    title: str,
    css_id: str = "",
    value_max: float | None = None,
    highlight: str | None = None,
    width: int = 720,
) -> str:
    """Horizontal bars, one row per label in the given order (a leaderboard by one measure)."""
    if len(labels) != len(values):
        raise ValueError("one value per label")
    row, left, right, top = 18, 170, 60, 20
    height = top + row * len(labels) + 24
    plot = width - left - right
    vmax = _scale_max(values, value_max)
    body: list[str] = []
    for i in range(5):  # grid and axis labels at 0, 1/4 ... of the maximum
        x = left + plot * i / 4
        body.append(_grid(x, float(top - 4), x, float(height - 20)))
        body.append(el("text", f"{vmax * i / 4:.2f}", x=x, y=height - 6, text_anchor="middle", fill=MUTED))
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = float(top + i * row)
        ok = _finite(value)
        w = plot * min(max(float(value), 0.0), vmax) / vmax if ok else 0.0  # type: ignore[arg-type]
        shown = _fmt(value)
        body.append(el("text", _e(label[:28]), x=left - 6, y=y + 12, text_anchor="end"))
        body.append(
            el(
                "rect",
                el("title", f"{_e(label)}: {shown}"),
                cls="chart-bar",
                data_label=label,
                data_value=shown if ok else "",
                x=left,
                y=y + 2,
                width=w,
                height=row - 5,
                fill=PALETTE[1] if label == highlight else PALETTE[0],
            )
        )
        body.append(el("text", shown, x=left + w + 4, y=y + 12, fill=MUTED))
    return _svg(width, height, css_id, title, body)


def topic_chart(
    topics: Sequence[str],
    values: Sequence[float | None],
    medians: Sequence[float | None],
    bests: Sequence[float | None],
    *,
    title: str,
    css_id: str = "",
    value_max: float | None = None,
    width: int = 720,
) -> str:
    """A run's value per topic as vertical bars, with the topic's median and best over all runs as ticks."""
    if not len(topics) == len(values) == len(medians) == len(bests):
        raise ValueError("one value, median and best per topic")
    left, right, top, bottom, height = 40, 10, 24, 54, 260
    plot_w, plot_h = width - left - right, height - top - bottom
    base = float(top + plot_h)
    vmax = _scale_max([*values, *bests], value_max)
    slot = plot_w / max(len(topics), 1)
    bar_w = max(slot * 0.7, 0.5)
    body: list[str] = []

    def y_of(v: float) -> float:
        return top + plot_h * (1 - min(max(v, 0.0), vmax) / vmax)

    for i in range(5):
        y = top + plot_h * i / 4
        body.append(_grid(float(left), y, float(width - right), y))
        body.append(
            el("text", f"{vmax * (4 - i) / 4:.2f}", x=left - 4, y=y + 4, text_anchor="end", fill=MUTED)
        )
    label_every = max(1, math.ceil(len(topics) / 40))  # at most ~40 topic labels fit under the axis
    for i, (topic, value, med, best) in enumerate(zip(topics, values, medians, bests, strict=True)):
        x = left + i * slot + (slot - bar_w) / 2
        ok = _finite(value)
        y = y_of(float(value)) if ok else base  # type: ignore[arg-type]
        tip = f"topic {topic}: {_fmt(value)} (median {_fmt(med)}, best {_fmt(best)})"
        body.append(
            el(
                "rect",
                el("title", _e(tip)),
                cls="chart-bar",
                data_topic=topic,
                data_value=_fmt(value) if ok else "",
                x=x,
                y=y,
                width=bar_w,
                height=base - y,
                fill=PALETTE[0],
            )
        )
        for cls, v, color in (("median", med, MEDIAN_COLOR), ("best", best, BEST_COLOR)):
            if _finite(v):
                yv = y_of(float(v))  # type: ignore[arg-type]
                body.append(
                    el(
                        "line",
                        cls=cls,
                        data_topic=topic,
                        data_value=_fmt(v),
                        x1=x - 1,
                        y1=yv,
                        x2=x + bar_w + 1,
                        y2=yv,
                        stroke=color,
                        stroke_width=2,
                    )
                )
        if i % label_every == 0:
            cx, ly = x + bar_w / 2, base + 12
            body.append(
                el(
                    "text",
                    _e(topic[:12]),
                    x=cx,
                    y=ly,
                    text_anchor="end",
                    transform=f"rotate(-45 {cx:.2f} {ly})",
                )
            )
    legend_y = float(height - 8)
    body.append(el("rect", x=left, y=legend_y - 8, width=10, height=8, fill=PALETTE[0]))
    body.append(el("text", "this run", x=left + 14, y=legend_y))
    for x0, color, text in (
        (left + 80, MEDIAN_COLOR, "median of all runs"),
        (left + 214, BEST_COLOR, "best run"),
    ):
        body.append(
            el("line", x1=x0, y1=legend_y - 4, x2=x0 + 14, y2=legend_y - 4, stroke=color, stroke_width=2)
        )
        body.append(el("text", text, x=x0 + 18, y=legend_y))
    return _svg(width, height, css_id, title, body)


def line_chart(
    series: Sequence[tuple[str, Sequence[float], Sequence[float | None]]],
    *,
    title: str,
    css_id: str = "",
    x_label: str = "",
    y_label: str = "",
    width: int = 720,
) -> str:
    """Lines through points on [0, 1] × [0, 1] (precision-recall curves), one colour per series."""
    left, right, top, bottom = 44, 170, 16, 40
    height = 280
    plot_w, plot_h = width - left - right, height - top - bottom
    body: list[str] = []

    def xy(x: float, y: float) -> tuple[float, float]:
        return left + plot_w * min(max(x, 0.0), 1.0), top + plot_h * (1 - min(max(y, 0.0), 1.0))

    for i in range(5):
        gx, gy = left + plot_w * i / 4, top + plot_h * i / 4
        body.append(_grid(float(left), gy, float(left + plot_w), gy))
        body.append(_grid(gx, float(top), gx, float(top + plot_h)))
        body.append(el("text", f"{(4 - i) / 4:.2f}", x=left - 4, y=gy + 4, text_anchor="end", fill=MUTED))
        body.append(el("text", f"{i / 4:.2f}", x=gx, y=top + plot_h + 14, text_anchor="middle", fill=MUTED))
    if x_label:
        body.append(el("text", _e(x_label), x=left + plot_w / 2, y=height - 6, text_anchor="middle"))
    if y_label:
        cy = top + plot_h / 2
        body.append(
            el("text", _e(y_label), x=12, y=cy, text_anchor="middle", transform=f"rotate(-90 12 {cy:.1f})")
        )
    for s, (name, xs, ys) in enumerate(series):
        if len(xs) != len(ys):
            raise ValueError(f"series {name!r}: one y per x")
        color = PALETTE[s % len(PALETTE)]
        points = [(float(x), float(y)) for x, y in zip(xs, ys, strict=True) if y is not None and _finite(y)]
        coords = [xy(x, y) for x, y in points]
        dots = "".join(
            el(
                "circle",
                el("title", f"{_e(name)}: recall {x:.2f}, precision {y:.4f}"),
                cls="point",
                cx=cx,
                cy=cy,
                r=3,
                fill=color,
                data_x=f"{x:.2f}",
                data_y=f"{y:.4f}",
            )
            for (cx, cy), (x, y) in zip(coords, points, strict=True)
        )
        ly = float(top + 6 + 16 * s)
        lx = float(left + plot_w + 12)
        path = " ".join(f"{cx:.2f},{cy:.2f}" for cx, cy in coords)
        body.append(
            el(
                "g",
                el("polyline", points=path, fill="none", stroke=color, stroke_width="1.8")
                + dots
                + el("line", x1=lx, y1=ly, x2=lx + 14, y2=ly, stroke=color, stroke_width=2)
                + el("text", _e(name[:24]), x=lx + 18, y=ly + 4),
                cls="series",
                data_name=name,
            )
        )
    return _svg(width, height, css_id, title, body)
