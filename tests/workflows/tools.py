"""Where the repository's workflow files are, and how tests run the dev tools offline.

The checks run the real tools (check-jsonschema, zizmor, pre-commit) as the dev extra
installs them next to the interpreter, never whatever is first on PATH. Their environment
sends any HTTP(S) request to a closed loopback port and forbids pip's index, so a tool that
tried to reach the network would fail the test instead of quietly depending on it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import thresher

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# The thresher under test: its source tree goes first on PYTHONPATH of every subprocess.
SOURCE = Path(thresher.__file__).resolve().parents[1]

WORKFLOWS = sorted(
    [*ROOT.glob(".github/workflows/*.y*ml"), *ROOT.glob("examples/workflows/*.y*ml")]
)
ACTIONS = [path for path in (ROOT / "action.yml", ROOT / "action.yaml") if path.exists()]
HOOKS = ROOT / ".pre-commit-hooks.yaml"

_DEAD_PROXY = "http://127.0.0.1:9"


def tool(name: str) -> Path:
    """A dev-extra tool installed beside this interpreter."""
    path = BIN / name
    assert path.exists(), (
        f"{name} is not installed next to {sys.executable}: pip install -e '.[dev]'"
    )
    return path


def offline_env(**extra: str) -> dict[str, str]:
    """The process environment with the network closed and this thresher first on the paths."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.upper().endswith("_PROXY") and not k.startswith(("GITHUB_", "THRESHER_"))
    }
    env.update(
        HTTP_PROXY=_DEAD_PROXY,
        HTTPS_PROXY=_DEAD_PROXY,
        ALL_PROXY=_DEAD_PROXY,
        http_proxy=_DEAD_PROXY,
        https_proxy=_DEAD_PROXY,
        all_proxy=_DEAD_PROXY,
        NO_PROXY="",
        no_proxy="",
        PIP_NO_INDEX="1",
        PATH=os.pathsep.join([str(BIN), env.get("PATH", "")]),
        PYTHONPATH=os.pathsep.join(p for p in [str(SOURCE), env.get("PYTHONPATH", "")] if p),
    )
    # The developer's git configuration (hooks paths, signing, templates) stays out.
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    env.pop("COLUMNS", None)  # pre-commit does not set it; thresher then prints 200 wide
    env.pop("CI", None)
    env.update(extra)
    return env


def run(
    command: list[str | Path], cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env if env is not None else offline_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
