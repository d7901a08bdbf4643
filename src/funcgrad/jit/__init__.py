"""Staging a function once into a plan of straight-line steps, and running plans."""
