"""Folds that explain: NaN provenance, lint, sparsity, paths, derivative checks."""
