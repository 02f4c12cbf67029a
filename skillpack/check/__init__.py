"""``skillpack check``: a conformance checker for any stdio Skills-extension server."""

from __future__ import annotations

from .model import Outcome
from .runner import exit_code, render_json, render_table, run_check
from .scenarios import SCENARIOS

__all__ = ["SCENARIOS", "Outcome", "exit_code", "render_json", "render_table", "run_check"]
