"""detect-secrets' ``is_indirect_reference`` filter, with an exact cheap test in front.

Profiling the scan of the dev corpus tree put a fifth of the scanner's time in this
one filter: its regex runs on every line a plugin reports, about 170 µs a line. The
regex can only match a line that holds an assignment or comparison character
(``:``, ``=`` or ``!``), after it an opening ``[`` or ``(``, and after that a
closing ``]`` or ``)``. A line without that sequence is answered at the cost of
three ``str.find`` calls; any other line goes to detect-secrets' own function, so
the filter's answers are unchanged. The scan configures detect-secrets to call this
function in place of its own (``engine.configure_detect_secrets``).
"""

from __future__ import annotations

from detect_secrets.filters import heuristic

ORIGINAL = "detect_secrets.filters.heuristic.is_indirect_reference"
FAST = "thresher.findings.filters_fast.is_indirect_reference"
_MAX_LINE = 1000  # detect-secrets' own guard: longer lines are never references


def is_indirect_reference(line: str) -> bool:
    """``heuristic.is_indirect_reference``, answered early when it cannot match."""
    if len(line) > _MAX_LINE or not _may_match(line):
        return False
    return heuristic.is_indirect_reference(line)


def _may_match(line: str) -> bool:
    operator = min((i for i in (line.find(":"), line.find("="), line.find("!")) if i >= 0),
                   default=-1)  # fmt: skip
    if operator < 0:
        return False
    opening = min((i for i in (line.find("[", operator), line.find("(", operator)) if i >= 0),
                  default=-1)  # fmt: skip
    if opening < 0:
        return False
    return max(line.rfind("]"), line.rfind(")")) > opening
