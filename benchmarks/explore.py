"""fg.explore at growing sizes: building and saving the page, its size, and the browser's load.

    python benchmarks/explore.py [--sizes 10,100,1000,10000,100000]

The graph is a chain y <- tanh(y) * 0.5 + x on a scalar x (four nodes a
level, so every node has a value and a gradient). For each size: the time of
``fg.explore`` (orders, the four folds, the layout) and of ``save``, the
page's size, and, where Chromium is installed, the wall time of
``chromium --headless --dump-dom`` loading the page and stepping it to the end
(a drawn page) or searching it (a summary, above ``limit`` nodes), beside the
same for an empty page, which is Chromium's own start-up.
"""

import argparse
import os
import shutil
import subprocess
import tempfile
import time

import funcgrad as fg
import funcgrad.numpy as fnp


def chain(nodes):
    x = fg.var(0.3, name="x")
    y = x
    for _ in range(max(1, (nodes - 1) // 4)):
        y = fnp.tanh(y) * 0.5 + x
    return y


def browser_seconds(chromium, url, profile):
    t = time.perf_counter()
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.perf_counter() - t
    assert 'data-ready="1"' in done.stdout or "about:blank" in url, "the page did not finish"
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100,1000,10000,100000")
    args = ap.parse_args()
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    dot = "with Graphviz's layout" if shutil.which("dot") else "laid out by the page"
    print(f"graphs up to 1000 nodes drawn ({dot}); larger ones summarised")
    with tempfile.TemporaryDirectory() as tmp:
        profile = os.path.join(tmp, "profile")
        if chromium:
            print(
                f"Chromium's start-up (about:blank): "
                f"{browser_seconds(chromium, 'about:blank', profile):.2f} s"
            )
        print("| nodes | explore | save | page | Chromium load |")
        print("| ---: | ---: | ---: | ---: | ---: |")
        for size in map(int, args.sizes.split(",")):
            y = chain(size)
            t = time.perf_counter()
            page = fg.explore(y)
            built = time.perf_counter() - t
            path = os.path.join(tmp, f"page{size}.html")
            t = time.perf_counter()
            page.save(path)
            saved = time.perf_counter() - t
            mb = os.path.getsize(path) / 1e6
            load = "-"
            if chromium:
                fragment = "#search=x" if page.large else "#step=end"
                load = f"{browser_seconds(chromium, 'file://' + path + fragment, profile):.2f} s"
            print(
                f"| {len(page.nodes):,} | {built:.3f} s | {saved:.3f} s | {mb:.2f} MB | {load} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
