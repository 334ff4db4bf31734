"""``thresher --help`` must not import the heavy libraries (measured by benchmarks/startup.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


def test_the_command_ends_with_its_exit_code_and_its_output_whole(tmp_path: Path) -> None:
    """Run as the command, the process ends without the interpreter's teardown: what it
    printed and wrote is all there, and the exit code is the command's."""
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "app.py").write_text("x = 1\n")
    report = tmp_path / "r.json"
    command = [sys.executable, "-m", "thresher", "scan", "--root", str(tmp_path / "tree")]
    ok = subprocess.run(
        [*command, "--escalate", "never", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(report.read_text())["decisions"] == []
    assert "exit 0" in ok.stdout + ok.stderr
    # Ended, not torn down: a handler the interpreter's teardown would run never runs.
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('TORN DOWN'))\n"
        f"sys.argv = ['thresher', 'scan', '--root', {str(tmp_path / 'tree')!r}]\n"
        "from thresher.cli import main\n"
        "main()\n"
    )
    ended = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert ended.returncode == 0 and "TORN DOWN" not in ended.stdout, ended.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "thresher", "scan", "--root", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert bad.returncode == 2 and "is not a directory" in bad.stderr
