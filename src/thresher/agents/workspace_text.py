"""Text helpers the workspace's file and git tools share: binary sniffing, line
splitting as editors count, RE2 for model-written patterns, printable names, and
the margins redaction needs so a value straddling a cut is still recognised. Split
from ``workspace`` so the git tools can use them without importing the class."""

from __future__ import annotations

from typing import Protocol

from thresher.agents.tooling import ToolError

BINARY_SNIFF_BYTES = 8192

_RE2_MAX_MEM = 8 << 20  # bytes of compiled program: a pathological pattern fails, fast
# Longer than any single credential (an RSA-4096 PEM block is about 3.3 kB)...
_REDACTION_MARGIN = 8 * 1024
# ...and than any in lines (an RSA-8192 PEM block is about 100 lines).
_REDACTION_LINES = 200
# Only key blocks span lines (see ``thresher.redaction.patterns``): where none starts or
# ends within the margin, a value reaching into the range lies on the range's own lines.
_MULTILINE_MARKERS = ("-----BEGIN", "-----END", "PuTTY-User-Key-File-")
_NARROW_LINES = 1


def _is_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def _split_lines(data: bytes | str) -> list[str]:
    """Newlines only, as editors count; ``splitlines`` also splits on form feeds."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    return [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")] if text else []


class _Searcher(Protocol):
    def search(self, text: str) -> object: ...


def _linear_regex(pattern: str) -> _Searcher:
    """A model-written pattern compiled by RE2, whose matching time is linear in the text:
    ``^(a+)+$`` on a long line cannot stall the session (Python's ``re`` backtracks
    exponentially on it). RE2 has no backreferences or lookaround; such a pattern comes
    back to the model as a tool error it can correct."""
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension, not needed at start

    options = re2.Options()
    options.log_errors = False  # errors go to the model, not to the user's terminal
    options.max_mem = _RE2_MAX_MEM
    try:
        compiled: _Searcher = re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise ToolError(
            f"invalid regex {pattern!r}: {detail} (patterns run on RE2: linear time, no "
            "backreferences or lookaround)"
        ) from None
    return compiled


def _printable(name: str) -> str:
    """A file name holding a newline could otherwise forge lines of tool output."""
    return name if name.isprintable() else repr(name)
