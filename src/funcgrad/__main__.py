"""``python -m funcgrad``: the same command line as the ``funcgrad`` script."""

from .cli.commands import main

raise SystemExit(main())
