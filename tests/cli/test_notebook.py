"""examples/tour.ipynb runs headless from top to bottom and shows what it promises:
a node drawn as SVG, the gradient map and the listing as HTML, the explorer's page, a
trained model, a plot."""

import pathlib

import nbclient
import nbformat

TOUR = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tour.ipynb"


def test_the_tour_runs_and_displays_svg_html_and_a_plot(tmp_path):
    nb = nbformat.read(TOUR, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "the tour is committed without outputs"
    )
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    kinds = [set(o.get("data", {})) for o in outputs]
    svg = next(o.data["image/svg+xml"] for o in outputs if "image/svg+xml" in o.get("data", {}))
    assert "<svg" in svg and "multiply" in svg  # f = (x + y) * x, drawn
    html = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<table>" in h and "gradient" in h for h in html)  # the NodeMap
    assert any(h.startswith("<pre>") and "multiply(%2, %0)" in h for h in html)  # fg.show
    assert any(h.startswith("<iframe srcdoc=") and "fg-data" in h for h in html)  # fg.explore
    assert (tmp_path / "fold.html").read_text().startswith("<!DOCTYPE html>")
    assert any("image/png" in k for k in kinds)  # the decision boundary
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "accuracy 100%" in printed
