"""fg.show and fg.to_dot contents, and pictures rendered for real through Graphviz.

The SVG tests need Graphviz's ``dot`` program. They are skipped on a machine
without it, except in CI (``CI`` set), where a missing ``dot`` is a failure:
CI installs it with ``apt-get install -y graphviz``.
"""

import os
import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.cli import demo
from funcgrad.io.show import GraphvizNotFound, format_value, render, to_svg

SVG = {"svg": "http://www.w3.org/2000/svg"}


@pytest.fixture
def needs_dot():
    if shutil.which("dot") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Graphviz (apt-get install -y graphviz) for the SVG tests")
        pytest.skip("Graphviz's dot is not installed")


def svg_counts(text):
    root = ET.fromstring(text)
    return (
        len(root.findall(".//svg:g[@class='node']", SVG)),
        len(root.findall(".//svg:g[@class='edge']", SVG)),
    )


def example():
    x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    f = (x + y) * x
    return f, x, y


# ---------------------------------------------------------------- show


def test_show_format_is_stable():
    f, _x, _y = example()
    assert fg.show(f, grads=fg.backprop(f)).splitlines() == [
        "%0  x  var               -->   2.0  grad 1.0",
        "%1  y  var               -->  -3.0  grad 2.0",
        "%2     add(%0, %1)       -->  -1.0  grad 2.0",
        "%3     multiply(%2, %0)  -->  -2.0  grad 1.0",
    ]


def test_show_marks_constants_without_gradient_and_takes_labels():
    x = fg.var(3.0, name="x")
    f = x * 2.0
    text = fg.show(f, grads=fg.backprop(f), labels={f: "twice x"})
    assert re.search(r"%1\s+const\s+-->\s+2.0\s+grad -", text)
    assert "%2  twice x  multiply(%0, %1)" in text


def test_show_follows_the_requested_order():
    t, _s, names = demo.layered_dag(layers=2, width=2)
    for method in ("dfs", "kahn"):
        listed = [line.split()[1] for line in fg.show(t, labels=names, method=method).splitlines()]
        assert listed == [names[n] for n in fg.toposort(t, method=method)]


def test_show_summarises_long_graphs():
    x = fg.var(0.5, name="x")
    y = x
    for _ in range(200):
        y = fnp.tanh(y)
    text = fg.show(y, limit=10)
    lines = text.splitlines()
    assert len(lines) == 11 and "191 more nodes not shown" in text
    assert lines[0].startswith("%0 ") and lines[-1].startswith("%200 ")


def test_show_prints_path_counts_as_integers():
    t, _s, names = demo.layered_dag()
    text = fg.show(t, grads=fg.sum_product(t, None, fg.semirings.count), labels=names, limit=None)
    assert text.splitlines()[0].endswith("grad 729")


def test_show_refuses_a_grads_that_is_not_a_map():
    f, _x, _y = example()
    with pytest.raises(TypeError, match="grads must be a map"):
        fg.show(f, grads=[1.0])


def test_format_value():
    assert format_value(2.0) == "2.0"
    assert format_value(np.array(1.5)) == "1.5"
    assert format_value(np.ones(7)) == "array(7,)"
    assert format_value(1e-20) == "1e-20"


# ---------------------------------------------------------------- to_dot


def test_to_dot_draws_shared_nodes_once():
    f, _ = demo.shared()
    src = fg.to_dot(f)
    assert len(re.findall(r"^  n\d+ \[label=", src, re.M)) == 8  # x, 2, a, b, c, d, e, f
    assert src.count(" -> ") == 9  # c = a + b has two children, a three edges in
    assert len(re.findall(r"n4 -> ", src)) == 2


def test_to_dot_shows_grads_kinds_and_argument_numbers():
    x = fg.var(3.0, name="x")
    f = fg.const(1.0) / x
    src = fg.to_dot(f, grads=fg.backprop(f))
    assert 'style="filled,bold"' in src  # the variable
    assert 'style="filled,dashed"' in src  # the constant
    assert 'label="0"' in src and 'label="1"' in src  # divide's arguments are ordered
    assert "grad -0.111111" in src and "penwidth=2" in src  # the output is bold


def test_to_dot_backward_steps_follow_the_reversed_order():
    L, v = demo.chain()
    src = fg.to_dot(L, backward=True, labels={L: "L", v["d"]: "d"})
    steps = dict(re.findall(r"%\d+ (\w+) \| \w+ \| value [^|]+\| backward step (\d)", src))
    assert steps == {"L": "0", "c": "1", "d": "2", "b": "3", "a": "4"}


def test_to_dot_summarises_large_graphs_with_a_note():
    x = fg.var(0.5, name="x")
    y = x
    for _ in range(50):
        y = fnp.sin(y) + y
    src = fg.to_dot(y, limit=20)
    assert len(re.findall(r"^  n\d+ \[label=", src, re.M)) == 20
    assert "earlier nodes not drawn" in src and "note -> " in src


def test_to_dot_escapes_record_characters():
    x = fg.var(1.0, name="x")
    src = fg.to_dot(x * x, labels={x: "a|b{c}<d>"})
    assert "a\\|b\\{c\\}\\<d\\>" in src


# ---------------------------------------------------------------- rendered for real


def test_svg_of_the_729_path_dag_has_20_nodes_and_51_edges(needs_dot):
    t, _s, names = demo.layered_dag()
    nodes, edges = svg_counts(to_svg(t, labels=names))
    assert (nodes, edges) == (20, 51)


def test_render_writes_svg_with_one_node_per_graph_node(needs_dot, tmp_path):
    f, _x, _y = example()
    path = render(f, tmp_path / "f.svg", grads=fg.backprop(f), backward=True)
    nodes, edges = svg_counts((tmp_path / "f.svg").read_text())
    assert path == tmp_path / "f.svg" and (nodes, edges) == (4, 4)
    assert "grad 2.0" in (tmp_path / "f.svg").read_text()


def test_summarised_svg_counts_the_note(needs_dot):
    x = fg.var(0.5, name="x")
    y = x
    for _ in range(30):
        y = fnp.tanh(y)
    nodes, _ = svg_counts(to_svg(y, limit=10))
    assert nodes == 11  # 10 drawn nodes and the note


def test_render_png_and_dot(needs_dot, tmp_path):
    f, _x, _y = example()
    render(f, tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    render(f, tmp_path / "f.dot")
    assert (tmp_path / "f.dot").read_text().startswith("digraph")


def test_render_refuses_unknown_formats(tmp_path):
    f, _x, _y = example()
    with pytest.raises(ValueError, match="cannot write format 'jpeg'"):
        render(f, tmp_path / "f.jpeg")


def test_render_without_graphviz_names_the_program(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    f, _x, _y = example()
    with pytest.raises(GraphvizNotFound, match="apt-get install graphviz"):
        render(f, tmp_path / "f.svg")
    with pytest.raises(FileNotFoundError):  # an ordinary FileNotFoundError too
        to_svg(f)


def test_gradient_maps_print_briefly_and_draw_as_html():
    x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    g = fg.backprop((x + y) * x)
    text = repr(g)
    assert text == "<NodeMap of 4 nodes: x 1.0, y 2.0, add(...) 2.0, multiply(...) 1.0>"
    html = g._repr_html_()
    assert html.count("<tr>") == 5 and "multiply" in html  # a header and one row per node
    chain = x
    for _ in range(100):
        chain = chain * 1.0
    big = fg.backprop(chain)
    assert "... 95 more" in repr(big) and len(repr(big)) < 300
    assert "more nodes" in big._repr_html_()
