"""``benchmarks/offline.py`` runs with one command and prints its figures (tiny sizes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.tokens import github_token

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.slow


@pytest.mark.skipif(
    not Path(sys.executable).with_name("detect-secrets").exists(),
    reason="the detect-secrets CLI is not installed beside this interpreter",
)
def test_the_offline_benchmark_prints_its_medians_and_ratios(tmp_path: Path) -> None:
    repo = tmp_path / "corpus" / "files" / "owner__repo"
    repo.mkdir(parents=True)
    (repo / "settings.py").write_text(f'GITHUB_TOKEN = "{github_token(seed=81)}"\n')
    (repo / "README.md").write_text("nothing secret here\n")
    script = [sys.executable, str(ROOT / "benchmarks" / "offline.py")]
    completed = subprocess.run(
        [*script, "--corpus", str(tmp_path / "corpus"), "--runs", "1", "--sample", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "detect-secrets scan --all-files: median" in out
    assert "thresher scan --escalate never:  median" in out and "1 decisions" in out
    assert "ratio thresher / detect-secrets:" in out
    assert "offline panel (offline.jsonl): median" in out
    assert "replayed through sessions median" in out
