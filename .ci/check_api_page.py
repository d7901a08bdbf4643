"""Every public name is on the built API page: ``python .ci/check_api_page.py build/docs``.

tests/test_public_api.py checks the sources (each public module on docs/api.md, each
name in its ``__all__`` with a docstring example); this checks what Sphinx made of
them: an entry (an anchor ``id="module.name"``) on api.html for each such name.
"""

import importlib
import inspect
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: its tests package
from tests.test_public_api import PUBLIC, _passed_through


def main(site):
    html = (Path(site) / "api.html").read_text()
    anchors = set(re.findall(r'id="([\w.]+)"', html))
    missing = []
    for name, excluded in sorted(PUBLIC.items()):
        module = importlib.import_module(name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if attr in excluded or inspect.ismodule(obj) or _passed_through(module, attr, obj):
                continue
            if f"{name}.{attr}" not in anchors:
                missing.append(f"{name}.{attr}")
    if missing:
        sys.exit(f"{len(missing)} public names are not on the API page: {missing}")
    print(f"api.html documents every public name of {len(PUBLIC)} modules")


if __name__ == "__main__":
    main(sys.argv[1])
