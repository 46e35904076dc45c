"""What tests share besides fixtures (those are in tests/conftest.py): plain modules that test
modules import; no test module imports another."""

from __future__ import annotations

from pathlib import Path

#: The repository (the tests use its sweeps, scripts, examples and build tree).
REPO = Path(__file__).resolve().parents[2]
