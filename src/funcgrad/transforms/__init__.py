"""Reverse and forward mode, batching, Jacobians: the transforms over traces."""
