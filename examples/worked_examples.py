"""The worked examples funcgrad grew from, printed with values, orders and gradients.

    python examples/worked_examples.py                 # all of them (= funcgrad demo)
    python examples/worked_examples.py chain shared    # only these

The examples themselves live in ``funcgrad.cli.demo`` (so ``funcgrad demo`` works
from an installed package); each is a small builder you can also call yourself:

    >>> from funcgrad.cli import demo
    >>> f, v = demo.gates(x=-2.0, y=5.0, z=-4.0)
"""

import sys

from funcgrad.cli import demo

SCALAR = ["gates", "shared", "chain", "micrograd", "network"]

if __name__ == "__main__":
    names = sys.argv[1:] or SCALAR
    unknown = [n for n in names if n not in demo.SECTIONS]
    if unknown:
        sys.exit(f"unknown example {unknown[0]!r}; choose from {', '.join(SCALAR)}")
    demo.run(names)
