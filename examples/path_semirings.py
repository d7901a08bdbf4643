"""Path counting, shortest and most probable paths: one reverse fold, several semirings.

The DAG of the two-page backprop note: a source, LAYERS fully connected layers
of WIDTH nodes, a sink. There are WIDTH**LAYERS paths from source to sink, and
``fg.sum_product`` visits each edge once.

    python examples/path_semirings.py                  # the note's 6 layers of 3: 729 paths
    python examples/path_semirings.py --layers 3 --width 2
"""

import argparse

from funcgrad.cli import demo

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=6, help="number of hidden layers (default 6)")
    ap.add_argument("--width", type=int, default=3, help="nodes per layer (default 3)")
    a = ap.parse_args()
    if a.layers < 1 or a.width < 1:
        ap.error("--layers and --width must be at least 1")
    print(demo.section("paths", layers=a.layers, width=a.width))
