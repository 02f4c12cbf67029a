"""``skillpack check``: a conformance checker for any stdio Skills-extension server."""

from __future__ import annotations

from skillpack.conformance.model import Outcome
from skillpack.conformance.runner import exit_code, render_json, render_table, run_check
from skillpack.conformance.scenarios import SCENARIOS

__all__ = ["SCENARIOS", "Outcome", "exit_code", "render_json", "render_table", "run_check"]
