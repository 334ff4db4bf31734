"""Offline scorer speed: median time per candidate to build features and score them.

    python benchmarks/scorer.py [CORPUS]

Scans every repository of the dev corpus once, then times, per candidate, the
scorer (features + calibrated probabilities) next to the old value profiler
(``profile_value``, which the heuristic read before the scorer existed) in the
same run: medians over all candidates, 5 repetitions each, and their ratio.
Target: under 1 ms per candidate.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from thresher.evaluation.corpus import load_corpus, scan_repositories
from thresher.findings.profile import profile_value
from thresher.scoring.model import shipped_scorer

ROOT = Path(__file__).resolve().parent.parent
REPEAT = 5


def main() -> int:
    corpus = load_corpus(
        Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/corpus/dev"
    )
    contexts = [ctx for scanned in scan_repositories(corpus) for ctx in scanned.contexts.values()]
    scorer = shipped_scorer()
    scored: list[float] = []
    profiled: list[float] = []
    for ctx in contexts:
        start = time.perf_counter()
        for _ in range(REPEAT):
            scorer.assess(ctx)
        scored.append((time.perf_counter() - start) / REPEAT)
        start = time.perf_counter()
        for _ in range(REPEAT):
            profile_value(ctx.value, ctx.line)
        profiled.append((time.perf_counter() - start) / REPEAT)
    s, p = statistics.median(scored), statistics.median(profiled)
    worst = max(scored)
    print(f"candidates: {len(contexts)}")
    print(f"scorer (features + probabilities): median {s * 1e3:.3f} ms, max {worst * 1e3:.3f} ms")
    print(f"baseline profile_value:            median {p * 1e3:.3f} ms")
    print(
        f"ratio scorer / baseline: {s / p:.2f}x; target < 1 ms per candidate: "
        f"{'met' if s < 1e-3 else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
