"""Graphs in and out: listings and pictures, files, pickles, the expression parser."""
