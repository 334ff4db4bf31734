"""False-`real` count of a scan of a repository without live secrets, before and after.

    python benchmarks/false_real.py BEFORE.json AFTER.json

Both files are thresher JSON reports of the same repository (for example one made
with an older thresher in a git worktree, one with this checkout):

    thresher scan --root REPO --fail-on never --json after.json

On a repository with no live secrets every `real` call is a false alarm. Prints, per
report, the findings, the `real` count by rule and, where the report records it
(schema 1.1+), how many of those `real` calls the escalation policy marks uncertain
(sent to an LLM tribunal when one is configured) and how many are decisive.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def summary(path: Path) -> str:
    report = json.loads(path.read_text(encoding="utf-8"))
    decisions = report.get("decisions", [])
    real = [d for d in decisions if d.get("classification") == "real"]
    lines = [
        f"{path}: {len(decisions)} findings, {len(real)} called real "
        f"(schema {report.get('schema_version')})"
    ]
    for rule, count in Counter(d["finding"]["rule_id"] for d in real).most_common():
        lines.append(f"  {count:5d}  {rule}")
    if real and all(d.get("escalation") for d in real):
        uncertain = sum(1 for d in real if d["escalation"]["would_escalate"])
        lines.append(
            f"  of the real calls: {uncertain} uncertain (escalated), "
            f"{len(real) - uncertain} decisive"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for name in argv:
        print(summary(Path(name)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
