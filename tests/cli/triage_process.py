"""``thresher triage`` as a child process against the loopback fake GitHub served from the
test process: the command line, a clean environment, waiting for a moment of the run,
and reading what GitHub and the state store ended up with."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld

SRC = Path(__file__).resolve().parents[2] / "src"
TOKEN = "ghs_" + "K" * 36
HANG_BOUND_S = 120.0  # generous: "does not hang", never a timing assertion


def command(server: GitHubFake, tmp_path: Path, *extra: str, org: str = "acme") -> list[str]:
    return [
        sys.executable,
        "-m",
        "thresher",
        "triage",
        "--org",
        org,
        "--api-url",
        server.base_url,
        "--state-db",
        str(tmp_path / "state.db"),
        "--concurrency",
        "1",
        *extra,
    ]


def environ(tmp_path: Path) -> dict[str, str]:
    """A clean environment: no provider keys (the offline model decides), this
    checkout's sources first, a home of its own."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "PYTHONPATH": str(SRC),
        "GITHUB_TOKEN": TOKEN,
        "LANG": "C.UTF-8",
    }


def start(server: GitHubFake, tmp_path: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command(server, tmp_path, *extra),
        cwd=tmp_path,
        env=environ(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def run(server: GitHubFake, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        command(server, tmp_path, *extra),
        cwd=tmp_path,
        env=environ(tmp_path),
        capture_output=True,
        timeout=HANG_BOUND_S,
        check=False,
    )


def wait_for(condition: Callable[[], bool], what: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + HANG_BOUND_S
    while not condition():
        if process.poll() is not None:
            _, err = process.communicate()
            pytest.fail(f"thresher exited ({process.returncode}) before {what}: {err.decode()}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"thresher did not reach {what} within {HANG_BOUND_S:.0f}s")
        time.sleep(0.05)


def report(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def resolutions(world: GitHubWorld) -> dict[str, tuple[str, str | None]]:
    """Every alert's (state, resolution) on the fake GitHub."""
    with world.lock:
        return {
            f"{name}#{number}": (alert.state, alert.resolution)
            for name, repo in world.repos.items()
            for number, alert in repo.alerts.items()
        }


def applied_twice(server: GitHubFake) -> list[str]:
    """Alerts GitHub applied more than one PATCH to (the fake's own audit)."""
    return sorted(key for key, n in Counter(p.key for p in server.applied).items() if n > 1)


def audit(state_db: Path) -> Counter[str]:
    """How often the state store's audit says thresher resolved each alert."""
    with closing(sqlite3.connect(f"file:{state_db}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT repo, number FROM applied").fetchall()
    return Counter(f"{repo}#{number}" for repo, number in rows)


def pending_intents(state_db: Path) -> int:
    with closing(sqlite3.connect(f"file:{state_db}?mode=ro", uri=True)) as db:
        (count,) = db.execute("SELECT COUNT(*) FROM intents WHERE ended IS NULL").fetchone()
    return int(count)


def artifacts(tmp_path: Path) -> str:
    """Every file a run left (reports, journals, the state database), as text."""
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file()
    )
