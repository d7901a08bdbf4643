"""Reverse and forward mode, batching, Jacobians: the transforms over traces."""

__all__: list[str] = []  # an internal package: its modules are imported by name
