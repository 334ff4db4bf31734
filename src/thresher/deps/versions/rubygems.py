"""RubyGems' ``Gem::Version`` ordering, re-implemented from its source.

``rubygems/version.rb`` (https://github.com/rubygems/rubygems/blob/master/lib/rubygems/version.rb):

- a version matches ``[0-9]+(\\.[0-9a-zA-Z]+)*(-[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?``;
  ``-`` is read as ``.pre.`` (so ``1.0-rc1`` is ``1.0.pre.rc1``);
- its segments are the runs of digits (integers) and of letters (strings): a letter
  makes it a pre-release, which sorts before the release (``1.0.a`` < ``1.0``);
- trailing zeros of the numeric part and of the part after the first letter are
  dropped before comparing (``canonical_segments``), so ``1.0`` == ``1`` and
  ``1.0.0.a`` == ``1.a``;
- segments compare pairwise (``<=>``), a missing one counting as 0; a string sorts
  before a number, two strings compare lexically.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATTERN = re.compile(r"^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$")
_WIDTH = 32
_SEGMENT = re.compile(r"[0-9]+|[a-z]+", re.IGNORECASE)


@dataclass(frozen=True)
class GemVersion:
    segments: tuple[int | str, ...]

    @property
    def prerelease(self) -> bool:
        return any(isinstance(s, str) for s in self.segments)

    def key(self) -> tuple[tuple[int, int, str], ...]:
        """``Gem::Version#<=>`` as a sort key: a missing segment is 0 and a string sorts
        before any number; padding to a fixed width makes "missing is 0" a plain tuple
        comparison (versions of more than 32 segments still compare, by length last)."""
        cells = [(1, s, "") if isinstance(s, int) else (0, 0, s) for s in self.segments]
        cells += [(1, 0, "")] * max(0, _WIDTH - len(cells))
        return tuple(cells)


def parse_gem(text: str) -> GemVersion | None:
    """The canonical segments, or ``None`` when ``Gem::Version`` would refuse ``text``."""
    stripped = text.strip() or "0"
    if not _PATTERN.match(stripped):
        return None
    raw: list[int | str] = [
        int(s) if s.isdigit() else s for s in _SEGMENT.findall(stripped.replace("-", ".pre."))
    ]
    first_string = next((i for i, s in enumerate(raw) if isinstance(s, str)), len(raw))
    canonical: list[int | str] = []
    for part in (raw[:first_string], raw[first_string:]):
        trimmed = list(part)
        while trimmed and trimmed[-1] == 0:
            trimmed.pop()
        canonical.extend(trimmed)
    return GemVersion(tuple(canonical))
