"""Graphs in and out: listings and pictures, files, pickles, the expression parser."""

__all__: list[str] = []  # an internal package: its modules are imported by name
