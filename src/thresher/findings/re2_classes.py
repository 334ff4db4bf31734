"""Python's character classes, spelled for RE2; and RE2 compiled the way the scan needs.

RE2 runs in time linear in the text, but its ``\\w``, ``\\s`` and ``\\d`` are ASCII and
its case folding differs from Python's for a few letters (the dotted capital I, the
Kelvin sign). A rewrite of a detect-secrets regex must match exactly what the original
matches, so each such class is enumerated from Python's own ``re`` over every code
point and handed to RE2 as explicit ranges. Computed once per process, on first use,
except where ``re2_classes.json`` holds them for this very Python (implementation,
version and Unicode database: the only inputs of the enumeration): read from it, they
cost no pass over every code point (about a tenth of a second before a scan's first
file). ``known_tables()`` computes that file's content; a test checks it is current.
"""

from __future__ import annotations

import json
import platform
import re
import sys
import unicodedata
from array import array
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

_MAX_MEM = 64 << 20  # bytes of compiled program; large classes need room for the DFA


@cache
def _every_code_point() -> str:
    """Every code point but the surrogates, in order, as one string."""
    points = array("I", range(0xD800))
    points.extend(range(0xE000, 0x110000))
    return points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


def _code_point(index: int) -> int:
    return index if index < 0xD800 else index + 0x800


KNOWN_FILE = "re2_classes.json"
# The classes and letters ``re2_classes.json`` holds: the ones the scan asks for.
KNOWN_CLASSES = (r"\w", r"\s", r"\d", r"[^\S\n]")
KNOWN_LETTERS = "abcdefghijklmnopqrstuvwxyz\u00f1"


def python_key() -> str:
    """What the enumeration depends on: the Python and its Unicode database."""
    version = ".".join(map(str, sys.version_info[:3])) + sys.version_info.releaselevel
    return f"{platform.python_implementation()} {version} unicode {unicodedata.unidata_version}"


@cache
def _known() -> dict[str, Any]:
    """The stored tables, if they were computed by this Python; else none."""
    try:
        text = resources.files(__package__).joinpath(KNOWN_FILE).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("python") == python_key() else {}


def known_tables() -> dict[str, Any]:
    """The content of ``re2_classes.json`` for this Python, computed."""
    return {
        "python": python_key(),
        "classes": {pattern: _enumerated_class(pattern) for pattern in KNOWN_CLASSES},
        "letters": _enumerated_letters(KNOWN_LETTERS),
    }


@cache
def python_class(pattern: str) -> str:
    """The items of an RE2 character class (no brackets) holding exactly the
    characters that Python's ``re`` matches with ``pattern``, a one-character pattern
    such as ``\\w`` or ``(?i)[a-f0-9]``."""
    known = _known().get("classes", {}).get(pattern)
    return known if isinstance(known, str) else _enumerated_class(pattern)


def _enumerated_class(pattern: str) -> str:
    text = _every_code_point()
    items: list[str] = []
    for match in re.finditer(f"(?:{pattern})+", text):
        first, last = _code_point(match.start()), _code_point(match.end() - 1)
        items.append(f"\\x{{{first:x}}}" + (f"-\\x{{{last:x}}}" if last != first else ""))
    return "".join(items)


@cache
def folded_letters(letters: str) -> dict[str, str]:
    """letter -> ``[...]``: what Python's case-insensitive ``re`` equates with it.

    One pass over every code point finds the few characters that match any of the
    letters; each letter's share is then picked out of those."""
    known = _known().get("letters", {})
    if all(isinstance(known.get(letter), str) for letter in letters):
        return {letter: known[letter] for letter in set(letters)}
    return _enumerated_letters(letters)


def _enumerated_letters(letters: str) -> dict[str, str]:
    alternatives = "".join(re.escape(letter) for letter in sorted(set(letters)))
    near = "".join(sorted(set(re.findall(f"(?i:[{alternatives}])", _every_code_point()))))
    return {
        letter: "["
        + "".join(f"\\x{{{ord(ch):x}}}" for ch in re.findall(f"(?i:{re.escape(letter)})", near))
        + "]"
        for letter in set(letters)
    }


def re2_options() -> Any:
    """The options ``compile_re2`` compiles with (for an RE2 set of such patterns)."""
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension

    options = re2.Options()
    options.log_errors = False
    options.max_mem = _MAX_MEM
    return options


def compile_re2(pattern: str) -> Any:
    """RE2 with its log off; raises ``re2.error`` for what RE2 cannot do."""
    import re2  # lazy: a C++ extension

    return re2.compile(pattern, re2_options())


SURROGATES = re.compile("[\ud800-\udfff]")


def searchable(text: str) -> str:
    """RE2 reads UTF-8, which has no lone surrogates (a YAML escape can make one).
    U+FFFD matches nothing a surrogate would not in the classes used here, and keeps
    every offset."""
    return SURROGATES.sub("\ufffd", text) if SURROGATES.search(text) else text


def searchable_utf8(text: str) -> bytes:
    """``searchable(text)`` in UTF-8. Strict encoding fails exactly on a lone surrogate, so
    the text is searched for one (a pass in Python's regex engine) only then."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return searchable(text).encode()


def hits(program: Any, text: str) -> bool:
    """``program.search(text) is not None`` for an RE2 ``program``: on an ASCII text (a
    character is a byte) through the program's own ``Match``, which answers with offsets
    alone, where the binding's ``search`` builds a generator and a match object.
    google-re2's private names: without them, the public ``search``."""
    match = getattr(getattr(program, "_regexp", None), "Match", None)
    if match is None or not text.isascii():
        return program.search(text) is not None
    import re2  # lazy: a C++ extension

    data = text.encode("ascii")
    return bool(match(re2._Anchor.UNANCHORED, data, 0, len(data))[0][0] >= 0)


class RE2Set:
    """Which of several RE2 patterns match a text, in one pass of an RE2 set: where
    asking each pattern's own program cost a search each, and most match nothing.
    ``which`` answers None when it cannot tell (the set did not compile, or RE2 ran out
    of memory on this text): then any of them may match. ``options``: RE2's, as the
    patterns' own programs are compiled with (``re2_options`` by default)."""

    def __init__(self, patterns: Iterable[str], options: Any = None) -> None:
        import re2

        self._set: Any = None
        self._sentinel = -1
        try:
            candidate = re2.Set.SearchSet(re2_options() if options is None else options)
            for pattern in patterns:
                candidate.Add(pattern)
            # Matches every text: a result without it means the search failed.
            self._sentinel = candidate.Add("")
            candidate.Compile()
        except (re2.error, TypeError, UnicodeEncodeError):
            return
        self._set = candidate

    @property
    def ready(self) -> bool:
        """Whether the set compiled (else ``which`` never answers)."""
        return self._set is not None

    def which(self, text: bytes | str) -> list[int] | None:
        """The positions (in the patterns given) of those that match ``text``."""
        if self._set is None:
            return None
        found = self._set.Match(text) or ()
        if self._sentinel not in found:
            return None
        return [number for number in found if number != self._sentinel]


class Encoded:
    """A text's UTF-8 form for RE2 (``searchable_utf8``) and that form's ASCII lower case,
    each made once, when first asked: the passes over one file (``formats.parsable``,
    the prefilter, the rules' line finder) all read them, and each made its own."""

    __slots__ = ("_lowered", "_utf8", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._utf8: bytes | None = None
        self._lowered: bytes | None = None

    @property
    def utf8(self) -> bytes:
        if self._utf8 is None:
            self._utf8 = searchable_utf8(self.text)
        return self._utf8

    @property
    def lowered(self) -> bytes:
        if self._lowered is None:
            self._lowered = self.utf8.lower()
        return self._lowered

    def of(self, text: str) -> Encoded | None:
        """This, if it holds ``text`` itself (the object), else None."""
        return self if text is self.text else None
