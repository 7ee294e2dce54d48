"""The inline SVG charts: pure functions, escaped labels."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from newsletters.charts import Series, _nice_step, line_chart


def test_nice_steps():
    assert [_nice_step(s) for s in (0, 4, 6, 12, 30, 240)] == [1, 1, 2, 5, 10, 50]


def test_line_chart_is_well_formed_svg_with_escaped_labels():
    svg = line_chart(
        [Series("<script>Tigers</script>", ((1, 3), (2, 6))), Series("Squids & co", ((1, 0), (2, 0)))],
        title="Points & <more>",
        x_label="Round",
        y_label="Points",
    )
    root = ET.fromstring(svg)  # parses: well-formed, standalone SVG
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "<script>" not in svg and "&lt;script&gt;Tigers" in svg and "Squids &amp; co" in svg
    assert len(root.findall("{http://www.w3.org/2000/svg}polyline")) == 2


def test_ratings_axis_is_not_forced_to_zero():
    svg = line_chart([Series("A", ((1, 10), (2, 11)))], title="t", x_label="x", y_label="y", zero_based=False)
    assert ">10<" in svg and ">0<" not in svg


def test_nothing_to_draw_is_empty():
    assert line_chart([Series("A", ())], title="t", x_label="x", y_label="y") == ""
