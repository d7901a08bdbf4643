"""Shared test setup: make the helper modules next to the tests importable."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
