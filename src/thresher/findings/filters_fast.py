"""detect-secrets' ``is_indirect_reference`` filter, with the same answers in linear time.

Profiling the scan of the dev corpus tree put a fifth of the scanner's time in this
one filter: its regex runs on every line a plugin reports, and its unanchored leading
``([^\\v=!:]*)`` makes Python's ``re`` rescan the line from every start. The filter
only asks *whether* the regex matches, and that has a shorter answer (see
``_EXISTS``), which RE2 gives in one pass. A line without an assignment or comparison
character followed by an opening and then a closing bracket is answered before that,
at the cost of a few ``str.find`` calls. The scan configures detect-secrets to call
this function in place of its own (``engine.configure_detect_secrets``).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from detect_secrets.filters import heuristic

from thresher.findings.re2_classes import compile_re2, python_class, searchable

ORIGINAL = "detect_secrets.filters.heuristic.is_indirect_reference"
FAST = "thresher.findings.filters_fast.is_indirect_reference"
_MAX_LINE = 1000  # detect-secrets' own guard: longer lines are never references
# The release's regex, which the shorter form below was derived from.
_ANALYSED = r"([^\v=!:]*)\s*(:=?|[!=]{1,3})\s*([\w.-]+[\[\(][^\v]*[\]\)])"


def is_indirect_reference(line: str) -> bool:
    """``heuristic.is_indirect_reference``, answered early when it cannot match."""
    if len(line) > _MAX_LINE or not _may_match(line):
        return False
    program = _exists()
    if program is None:
        return heuristic.is_indirect_reference(line)
    return program.search(searchable(line)) is not None


@cache
def _exists() -> Any | None:
    """Whether the release's regex matches somewhere, as an RE2 program; or None for
    another release.

    Its first group and the blanks after it can be empty, so it matches somewhere
    exactly where its operator and what follows do; and the operator (``:``, ``:=``
    or one to three of ``!`` and ``=``) can be shortened to its last character, which
    is itself one of the alternatives. So the regex matches somewhere if and only if
    ``[:!=]\\s*[\\w.-]+[\\[(][^\\v]*[\\])]`` does, with Python's ``\\s`` and ``\\w``
    spelled out (``\\v`` in a class is the vertical tab alone). A lone surrogate,
    replaced by U+FFFD, falls in the same classes: none of them but ``[^\\v]``."""
    if heuristic._get_indirect_reference_regex().pattern != _ANALYSED:
        return None
    space, word = python_class(r"\s"), python_class(r"\w")
    try:
        return compile_re2(f"[:!=][{space}]*[{word}.\\-]+[\\[(][^\\x0b]*[\\])]")
    except Exception:  # a binding that cannot take it: the original answers
        return None


# The first assignment or comparison character of a line (``re``: one call, in C).
_OPERATOR = re.compile("[:=!]")


def _may_match(line: str) -> bool:
    """Whether the line has an operator character, an opening bracket after it, and a
    closing bracket after that: what every match of the regex holds."""
    operator = _OPERATOR.search(line)
    if operator is None:
        return False
    square, round_ = line.find("[", operator.start()), line.find("(", operator.start())
    opening = square if round_ < 0 else round_ if square < 0 else min(square, round_)
    if opening < 0:
        return False
    return max(line.rfind("]"), line.rfind(")")) > opening
