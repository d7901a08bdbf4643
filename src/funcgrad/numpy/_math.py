"""Part of funcgrad.numpy (being written)."""

__all__ = []
