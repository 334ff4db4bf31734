"""``thresher --help`` must not import the heavy libraries (measured by benchmarks/startup.py)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from thresher.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
heavy = sorted(m for m in ("pydantic", "jinja2", "yaml", "httpx") if m in sys.modules)
print("heavy=" + ",".join(heavy))
"""


def test_help_imports_no_heavy_library() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip().splitlines()[-1] == "heavy="
