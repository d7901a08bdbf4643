"""fg.explore's page in a real browser: headless Chromium loads saved pages and reports its DOM.

Each test saves a page, lets Chromium run its script (stepping by the page's
own #hash, or by key presses and button clicks a test script dispatches), and
reads the DOM Chromium dumps: the gradient map's entries, the highlighted
best path, the page's error log. One test takes a screenshot and checks what
it shows. They need Debian's ``chromium`` package; without it they skip,
saying so, except in CI (``CI`` set), where .ci/run installs it and a missing
browser is a failure.
"""

import itertools
import os
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.cli import commands, demo

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@pytest.fixture(scope="module")
def chromium():
    path = next(filter(None, map(shutil.which, _NAMES)), None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Chromium (apt-get install chromium) for the browser tests")
        pytest.skip(
            "no Chromium on this machine: the explorer's browser tests need Debian's "
            "chromium package (apt-get install chromium)"
        )
    return path


def _run(chromium, tmp_path, url, *options):
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            *options,
            url,
        ],
        capture_output=True,
        timeout=120,
        text=True,
        errors="replace",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


class Dom(HTMLParser):
    """What the tests read from a dumped page."""

    def __init__(self, text):
        super().__init__()
        self.body, self.rows, self.classes, self.errors, self.status = {}, {}, {}, "", ""
        self.texts = {}  # per drawn node, the lines of text it shows
        self._cell, self._row, self._in, self._node, self._depth = None, None, None, None, 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "g" and "data-node" in a:
            self.classes[int(a["data-node"])] = set(a.get("class", "").split())
            self._node, self._depth = int(a["data-node"]), 0
        if tag == "g" and self._node is not None:
            self._depth += 1
        if tag == "path" and "data-from" in a:
            self.classes.setdefault("edges", []).append(
                (int(a["data-from"]), int(a["data-to"]), set(a.get("class", "").split()))
            )
        if tag == "tr" and "data-node" in a:
            self._row = int(a["data-node"])
            self.rows[self._row] = []
        if tag == "td" and self._row is not None:
            self._cell = []
        if a.get("id") in ("fg-errors", "fg-status", "fg-found"):
            self._in = a["id"]

    def handle_endtag(self, tag):
        if tag == "g" and self._node is not None:
            self._depth -= 1
            if self._depth == 0:
                self._node = None
        if tag == "td" and self._cell is not None:
            self.rows[self._row].append("".join(self._cell))
            self._cell = None
        if tag == "tr":
            self._row = None
        if tag in ("pre", "p"):
            self._in = None

    def handle_data(self, data):
        if self._node is not None and data.strip():
            self.texts.setdefault(self._node, []).append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._in == "fg-errors":
            self.errors += data
        elif self._in == "fg-status":
            self.status += data
        elif self._in == "fg-found":
            self.found = data


def dump(chromium, tmp_path, page_path, fragment=""):
    done = _run(
        chromium,
        tmp_path,
        page_path.as_uri() + fragment,
        "--dump-dom",
        "--virtual-time-budget=3000",
    )
    assert "Uncaught" not in done.stderr, done.stderr[-2000:]
    dom = Dom(done.stdout)
    assert dom.body.get("data-ready") == "1", "the page's script did not finish"
    assert dom.errors == "", dom.errors
    return dom


def seeds_page(tmp_path):
    x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    page = fg.explore((x + y) * x)
    return page, page.save(tmp_path / "seeds.html"), page.number[x], page.number[y]


def test_stepping_to_the_end_shows_the_gradients(chromium, tmp_path):
    _page, path, x, y = seeds_page(tmp_path)
    for order in ("dfs", "kahn"):
        dom = dump(chromium, tmp_path, path, f"#order={order}&step=end")
        assert dom.body["data-phase"] == "fold"
        assert dom.rows[x][-1] == "1.0" and dom.rows[y][-1] == "2.0"
        assert len(dom.rows) == 4  # every node's entry, complete
        assert all("folded" in dom.classes[i] for i in range(4))


def test_mid_fold_shows_the_completed_entries_only(chromium, tmp_path):
    page, path, x, y = seeds_page(tmp_path)
    dom = dump(chromium, tmp_path, path, "#step=6")  # 4 placed, 2 folded
    folded = page.orders["dfs"][::-1][:2]
    assert list(dom.rows) == folded
    assert "current" in dom.classes[folded[-1]]
    carrying = {(a, b) for a, b, cls in dom.classes["edges"] if "carry" in cls}
    assert carrying == {(x, folded[-1]), (y, folded[-1])}  # the sum sends to x and y
    assert "pending" in dom.classes[x] and "folded" not in dom.classes[x]
    assert "sends 2.0 to" in dom.status


def test_keys_and_buttons_step_through_the_page(chromium, tmp_path):
    _page, path, x, y = seeds_page(tmp_path)
    # Real events on the page's own handlers: 3 right arrows, 1 left, 2 clicks on next, End,
    # then the mouse over x.
    script = """<script>
    const key = (k) => document.dispatchEvent(new KeyboardEvent("keydown", {key: k}));
    key("ArrowRight"); key("ArrowRight"); key("ArrowRight"); key("ArrowLeft");
    document.getElementById("fg-next").click(); document.getElementById("fg-next").click();
    document.body.dataset.afterClicks = document.body.dataset.step;
    key("End");
    const node = document.querySelector('g.node[data-node="X"]');
    node.dispatchEvent(new MouseEvent("mousemove", {clientX: 20, clientY: 20, bubbles: true}));
    document.body.dataset.tip = document.getElementById("fg-tip").textContent;
    document.body.dataset.tipShown = !document.getElementById("fg-tip").hidden;
    </script></body>""".replace("X", str(x))
    scripted = tmp_path / "scripted.html"
    scripted.write_text(path.read_text().replace("</body>", script))
    dom = dump(chromium, tmp_path, scripted)
    assert dom.body["data-after-clicks"] == "4"
    assert dom.body["data-step"] == "8"
    assert dom.rows[x][-1] == "1.0" and dom.rows[y][-1] == "2.0"
    # hovering x shows its full value and its gradient
    assert dom.body["data-tip-shown"] == "true"
    assert dom.body["data-tip"].startswith("%0 x var") and "gradient:\n1.0" in dom.body["data-tip"]


def test_the_command_line_page_shows_minus_twelve(chromium, tmp_path):
    path = tmp_path / "cli.html"
    assert (
        commands.main(
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
        == 0
    )
    dom = dump(chromium, tmp_path, path, "#step=end")
    by_label = {cells[0]: cells[-1] for cells in dom.rows.values()}
    assert by_label["%0 x var"] == "-4.0" and by_label["%3 z var"] == "3.0"
    assert dom.texts[4][:3] == ["%4 (x + y) * z multiply", "-12.0", "1.0"]  # the output
    dom = dump(chromium, tmp_path, path, "#step=5")  # the order built, nothing folded
    assert dom.rows == {} and dom.body["data-phase"] == "order"


def test_the_best_path_is_highlighted_on_the_notes_dag(chromium, tmp_path):
    t, s, names = demo.layered_dag(6, 3)
    length, _ = demo._edge_tables(names, demo._children(t))
    page = fg.explore(t, semiring=fg.semirings.min_plus, weight=length, source=s, labels=names)
    path = page.save(tmp_path / "note.html")
    _, nodes = fg.best_path(t, s, length, fg.semirings.min_plus)
    want = [page.number[n] for n in nodes]
    dom = dump(chromium, tmp_path, path, "#fold=best&step=end")
    assert sorted(i for i, cls in dom.classes.items() if i != "edges" and "best" in cls) == sorted(
        want
    )
    best_edges = [(a, b) for a, b, cls in dom.classes["edges"] if "best" in cls]
    assert sorted(best_edges) == sorted(itertools.pairwise(want))
    pointers = [(a, b) for a, b, cls in dom.classes["edges"] if "pointer" in cls]
    assert len(pointers) == len(page.nodes) - 1  # every node but t points on
    assert "best path: " + " -> ".join(f"%{i}" for i in want) in dom.status


def test_a_hostile_name_stays_text(chromium, tmp_path):
    x = fg.var(1.0, name='</script><img src=x onerror="document.title=1">')
    path = fg.explore(fnp.sin(x)).save(tmp_path / "hostile.html")
    dom = dump(chromium, tmp_path, path, "#step=end")
    assert dom.rows[0][0].startswith("%0 </script><img")  # shown as the text it is


def test_a_script_error_is_caught_by_these_tests(chromium, tmp_path):
    _, path, _, _ = seeds_page(tmp_path)
    broken = tmp_path / "broken.html"
    broken.write_text(path.read_text().replace('{"nodes"', '{"nodes"!', 1))
    done = _run(chromium, tmp_path, broken.as_uri(), "--dump-dom", "--virtual-time-budget=3000")
    dom = Dom(done.stdout)
    assert "error" in dom.errors and dom.body.get("data-ready") != "1"


def test_a_large_graph_is_a_summary_with_search(chromium, tmp_path):
    x = fg.var(0.5, name="x")
    y = x
    for _ in range(5000):
        y = fnp.tanh(y) * 0.99
    path = fg.explore(y).save(tmp_path / "large.html")
    dom = dump(chromium, tmp_path, path, "#search=tanh")
    assert dom.body["data-phase"] == "summary"
    assert dom.found.startswith("5000 nodes match")
    assert len(dom.rows) == 200
    assert not [k for k in dom.classes if k != "edges"]  # nothing drawn


def test_a_screenshot_mid_fold_is_not_blank(chromium, tmp_path):
    image = pytest.importorskip("PIL.Image")
    _, path, _, _ = seeds_page(tmp_path)
    shot = tmp_path / "shot.png"
    _run(
        chromium,
        tmp_path,
        path.as_uri() + "#step=6",
        f"--screenshot={shot}",
        "--window-size=1000,520",
    )
    pixels = np.asarray(image.open(shot).convert("RGB")).reshape(-1, 3)
    assert len(np.unique(pixels, axis=0)) > 50  # text, boxes, panels
    # the node being folded is outlined in the page's orange (#d9480f)
    assert (np.abs(pixels.astype(int) - [217, 72, 15]).sum(axis=1) < 30).sum() > 100
