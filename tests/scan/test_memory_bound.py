"""Peak memory of a scan is bounded by the largest file and the findings, not by the
tree (issue 26): ten times the files, the same findings, about the same peak.

The bound, as ``docs/architecture.md`` states it: the interpreter and its libraries in
each process (this one and one detection worker per other core), plus the file being
read (at most ``max_file_bytes``), plus what the run keeps per finding until its report
(the decision, its journal line: about 20 KB a finding), plus the redactor's bounded
caches. The files listed cost a few hundred bytes each (their path and outcome), the
text of a file is let go once it is scanned and, for the offline panel, once its last
finding is decided. The figures themselves are in ``benchmarks/anchors.py``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

FINDINGS_FILES = 40  # files holding one candidate each, the same in both trees
SMALL, LARGE = 1_000, 10_000
MAX_GROWTH_MB = 40  # for 9,000 more files (~18 MB more text)

_MEASURE = """
import json, resource, sys
from pathlib import Path
from thresher.config.settings import Settings
from thresher.scan.outcome import FailOn, ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.policy import Escalate
request = ScanRequest(
    root=Path(sys.argv[1]), runs_dir=Path(sys.argv[2]), escalate=Escalate.NEVER,
    fail_on=FailOn.NEVER, history_depth=0,
)
outcome = run_scan(request, Settings(), environ={})
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"decisions": len(outcome.report.decisions), "kb": own + children}))
"""


def _tree(root: Path, files: int) -> Path:
    """``files`` source files: a fixed set holding one candidate each, the rest code."""
    rng = random.Random(26)
    body = "".join(f"def f{i}(x):\n    return x * {i} + {i % 7}\n\n" for i in range(60))
    for index in range(files):
        path = root / f"pkg{index % 50:02d}" / f"module_{index:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = body
        if index < FINDINGS_FILES:
            word = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz0123456789") for _ in range(18))
            text = f'DB_PASSWORD = "{word}"\n' + body
        path.write_text(text)
    return root


def _peak(tmp_path: Path, files: int) -> tuple[int, float]:
    root = _tree(tmp_path / f"tree{files}", files)
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(root), str(tmp_path / f"runs{files}")],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return int(figures["decisions"]), figures["kb"] / 1024  # ru_maxrss: KB on Linux


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KB on Linux only")
def test_ten_times_the_files_cost_about_the_same_memory(tmp_path: Path) -> None:
    decided_small, small = _peak(tmp_path, SMALL)
    decided_large, large = _peak(tmp_path, LARGE)
    assert decided_small == decided_large == FINDINGS_FILES
    # This process's peak plus its largest child's: at least the peak of their sum.
    assert large - small <= MAX_GROWTH_MB, (small, large)
