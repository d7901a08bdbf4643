"""Loops, branches, checkpoints and custom rules, each one node holding a body."""

__all__: list[str] = []  # an internal package: its modules are imported by name
