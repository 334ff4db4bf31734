"""One way for tests to run git: a fixed identity, no signing, branch ``main``."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(root: Path, *args: str) -> str:
    command = [
        "git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
        "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args,
    ]  # fmt: skip
    return subprocess.run(command, cwd=root, check=True, capture_output=True, text=True).stdout
