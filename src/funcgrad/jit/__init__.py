"""Staging a function once into a plan of straight-line steps, and running plans."""

__all__: list[str] = []  # an internal package: its modules are imported by name
