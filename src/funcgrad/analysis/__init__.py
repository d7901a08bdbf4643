"""Folds that explain: NaN provenance, lint, sparsity, paths, derivative checks."""

__all__: list[str] = []  # an internal package: its modules are imported by name
