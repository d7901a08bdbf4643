"""fg.explore's data against the functions it replays: orders, backprop, semiring folds, best paths.

What the page shows in a browser is tested in test_explore_browser.py; here,
every number the page will replay is checked against funcgrad's own functions
and against finite differences, on the graphs users explore.
"""

import json
import math
import pathlib
import re
import shutil

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.cli import commands, demo
from funcgrad.io.explore import Explorer


def seeds_example():
    x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    return (x + y) * x, x, y


def values(page, fold):
    """{node: short text} of one fold."""
    return {n: page.folds[fold]["values"].get(i, [None])[0] for n, i in page.number.items()}


def graphs():
    f, x, y = seeds_example()
    yield "seeds", (f,)
    a = fg.var(np.array([0.5, -1.0, 2.0]), name="a")
    yield "vector", (fnp.sum(fnp.tanh(a) * a + fnp.sin(a) ** 2),)
    yield "twice", (x * x + x,)  # two edges from x to one node
    t, _, _ = demo.layered_dag(3, 2)
    yield "layered", (t,)
    yield "two outputs", (fnp.sin(x) * y, x + y)


@pytest.mark.parametrize("name,outputs", list(graphs()), ids=[g[0] for g in graphs()])
def test_orders_and_folds_are_funcgrads_own(name, outputs):
    page = fg.explore(*outputs, layout="layered")
    number = page.number
    assert [page.nodes[i]["id"] for i in range(len(number))] == list(range(len(number)))
    for method in ("dfs", "kahn"):
        assert page.orders[method] == [number[n] for n in fg.toposort(*outputs, method=method)]
    # gradients: backprop from each output, summed
    total = {}
    for out in outputs:
        for n, g in fg.backprop(out, seed=np.ones_like(out.value)).items():
            total[n] = total.get(n, 0) + np.asarray(g)
    shown = values(page, "gradient")
    for n, g in total.items():
        assert shown[n] == fg.io.show.format_value(g), n
    if len(outputs) == 1:
        (out,) = outputs
        counts = fg.sum_product(out, None, fg.semirings.count)
        reach = fg.sum_product(out, None, fg.semirings.boolean)
        for n in number:
            assert values(page, "paths")[n] == str(counts[n])
            assert values(page, "reachable")[n] == ("true" if reach[n] else "false")


def test_sends_are_each_nodes_contributions_to_its_parents():
    f, x, y = seeds_example()
    page = fg.explore(f, layout="layered")
    n = page.number
    # f = (x + y) * x sends x + y = -1 to x (argument 1) and x = 2 to the sum (argument 0)
    assert page.folds["gradient"]["sends"][n[f]] == [
        [n[f.args[0]], "2.0", "2.0"],
        [n[x], "-1.0", "-1.0"],
    ]
    assert page.folds["paths"]["sends"][n[f.args[0]]] == [[n[x], "1", "1"], [n[y], "1", "1"]]


def test_gradients_match_finite_differences_on_an_array_graph():
    a0 = np.array([0.3, -0.7, 1.1])
    a = fg.var(a0, name="a")
    out = fnp.sum(fnp.exp(fnp.sin(a)) * a)
    page = fg.explore(out, layout="layered")
    full = page.folds["gradient"]["values"][page.number[a]][1]
    shown = np.array(
        [float(v) for v in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", full.split("\n", 1)[1])]
    )

    def f(v):
        return float(np.sum(np.exp(np.sin(v)) * v))

    h = 1e-6
    fd = np.array([(f(a0 + h * e) - f(a0 - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(shown, fd, rtol=1e-6)


def test_a_seed_comes_from_the_grads_given():
    a = fg.var(np.array([1.0, 2.0]), name="a")
    out = fnp.sin(a)
    seed = np.array([3.0, -1.0])
    page = fg.explore(out, grads=fg.backprop(out, seed=seed), layout="layered")
    full = page.folds["gradient"]["values"][page.number[a]][1]
    np.testing.assert_allclose(
        [float(v) for v in re.findall(r"-?\d+\.\d+", full.split("\n", 1)[1])],
        seed * np.cos([1.0, 2.0]),
        rtol=1e-7,
    )


def test_the_best_path_is_best_path_s_with_back_pointers_everywhere():
    t, s, names = demo.layered_dag(6, 3)
    length, _ = demo._edge_tables(names, demo._children(t))
    page = fg.explore(
        t, semiring=fg.semirings.min_plus, weight=length, source=s, labels=names, layout="layered"
    )
    score, nodes = fg.best_path(t, s, length, fg.semirings.min_plus)
    best = page.folds["best"]
    assert page.start == "best"
    assert best["path"] == [page.number[n] for n in nodes]
    assert best["values"][page.number[s]][0] == fg.io.show.format_value(score)
    # every back-pointer leads to a child that gives the node its score
    inverse = {i: n for n, i in page.number.items()}
    for i, j in best["pointer"].items():
        assert inverse[i] in inverse[j].args


def test_start_fold_follows_the_semiring_and_a_custom_semiring_is_its_own_fold():
    f, x, _y = seeds_example()
    assert fg.explore(f, semiring=fg.semirings.count).start == "paths"
    assert fg.explore(f, semiring=fg.semirings.boolean).start == "reachable"
    assert fg.explore(f).start == "gradient"
    longest = fg.Semiring("longest", -math.inf, 0, max, lambda a, b: a + b)
    page = fg.explore(f, semiring=longest, weight=lambda p, c: 1)
    assert page.start == "longest"
    assert page.folds["longest"]["values"][page.number[x]][0] == "2"  # x -> add -> multiply


def test_refusals_name_the_call_and_a_fix():
    f, _x, _y = seeds_example()
    with pytest.raises(fg.FuncgradError, match="layout must be"):
        fg.explore(f, layout="spring")
    with pytest.raises(fg.FuncgradError, match=r"semiring must be a fg.Semiring"):
        fg.explore(f, semiring="count")
    with pytest.raises(fg.FuncgradError, match="weight must be a function"):
        fg.explore(f, weight=3)
    with pytest.raises(fg.FuncgradError, match=r"source .* is not in the graph"):
        fg.explore(f, source=fg.var(1.0))
    with pytest.raises(fg.FuncgradError, match="limit must be at least 1"):
        fg.explore(f, limit=0)
    with pytest.raises(fg.FuncgradError):
        fg.explore(2.0)


def embedded(text):
    found = re.search(
        r'<script type="application/json" id="fg-data">(.*?)</script>', text, re.DOTALL
    )
    return json.loads(found.group(1))


def test_the_page_is_one_file_whose_data_is_text_not_markup(tmp_path):
    hostile = "</script><script>alert(1)</script><!--"
    x = fg.var(1.0, name=hostile)
    page = fg.explore(fnp.sin(x), layout="layered")
    path = page.save(tmp_path / "page.html")
    text = path.read_text()
    assert text.count("</script>") == 2  # the data's end and the script's end, no other
    assert embedded(text)["nodes"][0]["name"] == hostile[:60]
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    frame = page._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and "<script" not in frame


def test_dot_lays_out_every_node_and_edge():
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (the page lays the graph out itself)")
    f, _x, _y = seeds_example()
    page = fg.explore(f, layout="dot")
    boxes, splines = page.layout["boxes"], page.layout["splines"]
    assert sorted(boxes) == list(range(4))
    assert sum(map(len, splines.values())) == 4
    assert all(w > 0 and h > 0 for _, _, w, h in boxes.values())


def test_a_large_graph_is_a_summary_with_its_gradients():
    x = fg.var(0.5, name="x")
    y = x
    for _ in range(1500):
        y = fnp.sin(y) * 0.9
    page = fg.explore(y, limit=1000)
    assert page.large and page.layout is None and set(page.folds) == {"gradient"}
    assert page.folds["gradient"]["sends"] == {}
    assert page.folds["gradient"]["values"][page.number[x]][0] == fg.io.show.format_value(
        fg.grad(lambda v: _chain(v, 1500))(0.5)
    )


def _chain(v, n):
    for _ in range(n):
        v = fnp.sin(v) * 0.9
    return v


def test_a_loop_node_folds_like_any_other():
    x = fg.var(0.7, name="x")
    out = fg.fori_loop(0, 5, lambda i, c: fnp.sin(c) * x, x)
    page = fg.explore(out, layout="layered")
    want = fg.grad(lambda v: fg.fori_loop(0, 5, lambda i, c: fnp.sin(c) * v, v))(0.7)
    assert page.folds["gradient"]["values"][page.number[x]][0] == fg.io.show.format_value(want)


def test_the_command_writes_the_page(tmp_path, capsys):
    path = tmp_path / "cli.html"
    code = commands.main(
        [
            "explore",
            "(x + y) * z",
            "--at",
            "x=-2",
            "--at",
            "y=5",
            "--at",
            "z=-4",
            "--html",
            str(path),
        ]
    )
    assert code == 0 and "wrote" in capsys.readouterr().out
    data = embedded(path.read_text())
    by_name = {n["name"]: n for n in data["nodes"]}
    grads = data["folds"]["gradient"]["values"]
    assert [grads[str(by_name[v]["id"])][0] for v in "xyz"] == ["-4.0", "-4.0", "3.0"]
    assert data["nodes"][data["outputs"][0]]["value"][0] == "-12.0"
    assert commands.main(["explore", "x * y", "--at", "x=1", "--at", "y=2"]) == 2
    assert "needs --html FILE" in capsys.readouterr().err
    assert commands.main(["explore", "x *", "--at", "x=1", "--html", str(path)]) == 2


def test_the_explorer_is_an_explorer():
    f, _, _ = seeds_example()
    assert isinstance(fg.explore(f), Explorer)


def test_the_page_in_the_docs_is_what_explore_saves_today(tmp_path):
    # docs/expressions-and-orderings.md embeds this page; regenerate it with the lines below.
    committed = (
        pathlib.Path(__file__).resolve().parents[2] / "docs" / "_static" / "explorer-seeds.html"
    )
    x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    fresh = fg.explore((x + y) * x, layout="layered").html(title="fg.explore((x + y) * x)")
    assert committed.read_text() == fresh, (
        "docs/_static/explorer-seeds.html is stale: save it again with fg.explore((x + y) * x, "
        "layout='layered').save(path, title='fg.explore((x + y) * x)')"
    )
