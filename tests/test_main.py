"""The tour, ``python -m revad``, runs and reports a gradient that agrees with its checks."""

from __future__ import annotations

import subprocess
import sys


def test_the_tour_runs() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "revad"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    for words in ("revad.gradient", "closed form", "finite differences", "plain Python floats",
                  "ratio"):
        assert words in out, f"{words!r} is missing from the tour:\n{out}"
    assert "MISMATCH" not in out + run.stderr
