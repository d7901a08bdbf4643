"""Expressions as immutable DAGs: nodes, their orderings, and the folds over them."""

__all__: list[str] = []  # an internal package: its modules are imported by name
