"""Expressions as immutable DAGs: nodes, their orderings, and the folds over them."""
