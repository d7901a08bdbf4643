"""The ground floor: errors, traces, values, pytrees and the primitive."""

__all__: list[str] = []  # an internal package: its modules are imported by name
