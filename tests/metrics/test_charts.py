"""The SVG charts: one element per value, positions from the numbers, every text escaped (pure)."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from metrics.charts import bar_chart, line_chart, topic_chart

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def elements(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}{tag}") if e.get("class") == cls]


def test_bar_chart_draws_one_bar_per_run_with_width_proportional_to_the_value() -> None:
    root = parse(bar_chart(["a", "b", "c"], [0.5, 0.25, 0.0], title="AP", css_id="board", width=720))
    bars = elements(root, "rect", "chart-bar")
    assert [b.get("data-label") for b in bars] == ["a", "b", "c"]
    assert [b.get("data-value") for b in bars] == ["0.5000", "0.2500", "0.0000"]
    # the plot is 720 - 170 (labels) - 60 (values) = 490 px wide for the axis maximum 1.0
    assert [float(b.get("width", "")) for b in bars] == [245.0, 122.5, 0.0]
    assert root.get("id") == "board"


def test_values_above_one_scale_to_the_largest() -> None:
    bars = elements(parse(bar_chart(["x", "y"], [4.0, 2.0], title="t")), "rect", "chart-bar")
    assert [float(b.get("width", "")) for b in bars] == [490.0, 245.0]


def test_a_value_that_is_not_a_number_keeps_its_empty_bar() -> None:
    bars = elements(parse(bar_chart(["x", "y"], [None, math.nan], title="t")), "rect", "chart-bar")
    assert len(bars) == 2 and all(b.get("width") == "0.00" and b.get("data-value") == "" for b in bars)


def test_every_text_is_escaped() -> None:
    evil = '<script>alert("x")</script>&'
    for svg in (
        bar_chart([evil], [0.5], title=evil),
        topic_chart([evil], [0.5], [0.4], [0.9], title=evil),
        line_chart([(evil, [0.0, 1.0], [1.0, 0.5])], title=evil, x_label=evil, y_label=evil),
    ):
        assert "<script>" not in svg
        root = parse(svg)
        assert evil in "".join(root.itertext())  # shown as text, not markup


def test_topic_chart_has_a_bar_and_median_and_best_ticks_per_topic() -> None:
    topics = ["401", "402", "403"]
    root = parse(
        topic_chart(
            topics, [0.2, 0.8, None], [0.5, 0.5, 0.1], [1.0, 0.8, None], title="per topic", value_max=1.0
        )
    )
    bars = elements(root, "rect", "chart-bar")
    assert [b.get("data-topic") for b in bars] == topics
    medians = elements(root, "line", "median")
    bests = elements(root, "line", "best")
    assert [m.get("data-topic") for m in medians] == topics
    assert [b.get("data-topic") for b in bests] == ["401", "402"]  # topic 403 has no best value
    # plot height 260 - 24 - 54 = 182 px: a value of 0.8 is a bar 0.8 * 182 = 145.6 px tall
    assert float(bars[1].get("height", "")) == pytest.approx(145.6, abs=0.01)
    # the best tick of topic 402 sits on top of its bar (it is the best run there)
    assert float(bests[1].get("y1", "")) == pytest.approx(float(bars[1].get("y", "")), abs=0.01)


def test_line_chart_draws_one_point_per_finite_value_and_one_line_per_series() -> None:
    recall = [i / 10 for i in range(11)]
    precision = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, None]
    root = parse(line_chart([("bm25", recall, precision), ("dense", recall, [0.5] * 11)], title="P-R"))
    series = [g for g in root.iter(f"{SVG}g") if g.get("class") == "series"]
    assert [g.get("data-name") for g in series] == ["bm25", "dense"]
    assert len(elements(series[0], "circle", "point")) == 10
    assert len(elements(series[1], "circle", "point")) == 11
    first = elements(series[0], "circle", "point")[0]
    assert (first.get("data-x"), first.get("data-y")) == ("0.00", "1.0000")
    polyline = series[0].find(f"{SVG}polyline")
    assert polyline is not None and len(re.findall(r"[\d.]+,[\d.]+", polyline.get("points", ""))) == 10


def test_mismatched_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="one value per label"):
        bar_chart(["a"], [], title="t")
    with pytest.raises(ValueError, match="one value, median and best"):
        topic_chart(["a"], [0.1], [], [0.2], title="t")
    with pytest.raises(ValueError, match="one y per x"):
        line_chart([("a", [0.0], [])], title="t")
