"""The shipped artifact is reproducible: retraining on the dev corpus gives the same bytes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "dev"


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"dev corpus not found at {CORPUS}")
def test_training_reproduces_the_shipped_artifact_bit_for_bit() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "train_scorer.py"), str(CORPUS), "--check"],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "fold 5 creddata:" in proc.stderr
