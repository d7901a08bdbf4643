"""The ground floor: errors, traces, values, pytrees and the primitive."""
