"""detect-secrets' ``pragma: allowlist secret`` filter, matched by RE2.

The filter's regexes start with an unanchored ``[ \\t]*``: on a line holding a long run
of blanks, Python's ``re`` tries every start in the run and scans the rest of it each
time, so a 60 kB line of spaces next to a keyword took minutes. The patterns use
nothing RE2 lacks, so each runs on RE2 as written, in time linear in the line. The one
difference, Python's ``$`` also matching before a final newline, is taken care of by
searching the line without it (no part of these patterns can match a newline).

The scan configures detect-secrets to call ``is_line_allowlisted`` below in place of
its own; the custom rules call it too.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from detect_secrets.filters import allowlist
from detect_secrets.util.code_snippet import CodeSnippet

from thresher.findings.re2_classes import compile_re2, searchable

ORIGINAL = "detect_secrets.filters.allowlist.is_line_allowlisted"
LINEAR = "thresher.findings.allowlist_re2.is_line_allowlisted"
_COMPILED: dict[str, Any] = {}


@cache
def _literal_pragma() -> bool:
    """Whether every allowlist pattern needs the literal ``pragma`` (true of 1.5)."""
    return all(
        "pragma" in regex.pattern
        for regexes in allowlist._get_allowlist_regexes_for_file("f")
        for regex in regexes
    ) and all(
        "pragma" in regex.pattern
        for regexes in allowlist._get_allowlist_regexes_for_file("f.yaml")
        for regex in regexes
    )


def _program(pattern: str) -> Any:
    program = _COMPILED.get(pattern)
    if program is None:
        program = _COMPILED[pattern] = compile_re2(pattern)
    return program


def is_line_allowlisted(filename: str, line: str, context: CodeSnippet) -> bool:
    """``allowlist.is_line_allowlisted``, the same regexes on RE2.

    Every pattern of the release analysed holds the literal ``pragma``: a line and
    previous line without it (nearly all) are answered without running any."""
    if "pragma" not in line and "pragma" not in context.previous_line and _literal_pragma():
        return False
    payloads = (line, context.previous_line)
    for payload, regexes in zip(
        payloads, allowlist._get_allowlist_regexes_for_file(filename), strict=True
    ):
        text = searchable(payload.removesuffix("\n"))
        for regex in regexes:
            if regex.flags & ~re.UNICODE:  # not the release analysed: the original
                if regex.search(payload):
                    return True
            elif _program(regex.pattern).search(text):
                return True
    return False
