"""Loops, branches, checkpoints and custom rules, each one node holding a body."""
