"""The forms redaction writes, and what a redacted line can still hold because of them.

A value is replaced by ``ghp_…Xk2 (40 chars)`` (``redact_value``) or by
``[REDACTED:github-token:3f2a]`` (``redaction_token``). ``hides`` answers one question
about them without redacting anything: can a run's candidate value still be found on a
line once that line is redacted, whatever text around it is redacted with it? The
offline panel asks it for the finding's own line (``thresher.tribunal.offline``): the
only thing the panel reads of that line is the name the value is assigned to
(``thresher.findings.profile.key_name``), which is None when the value is not on the
line; where ``hides`` says so, the window around the line need not be redacted at all.
"""

from __future__ import annotations

import hashlib
import re
import sys
from bisect import bisect_right
from collections.abc import Iterator
from functools import lru_cache

# Only well-known provider prefixes are shown: they identify the token type and are
# public. Any other leading text (a human-chosen password's first word) stays hidden.
# In this order: the first that a value starts with is the one shown.
PROVIDER_PREFIXES: tuple[str, ...] = (
    *(f"gh{c}_" for c in "pousr"),
    "github_pat_",
    *(f"xox{c}-" for c in "abprse"),
    "xapp-",
    *(f"{kind}_{mode}_" for kind in ("sk", "rk", "pk") for mode in ("live", "test")),
    "whsec_",
    *("AKIA", "ASIA", "AIza", "SG.", "npm_", "pypi-", "glpat-"),
    *("sk-proj-", "sk-ant-", "sk-", "eyJ", "-----BEGIN "),
)
_PREFIX = re.compile("^(" + "|".join(re.escape(p) for p in PROVIDER_PREFIXES) + ")")
# The forms this module writes. Their slugs and digests cannot hold a token's
# characters (upper case, "_"), so a planted look-alike cannot hide a provider token.
REDACTED_FORMS = re.compile(
    r"\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*:[0-9a-f]{4}\]|…(?:[^\n]{3} )?\(\d{1,9} chars\)"
)
TOKEN_FORM = re.compile(r"\[REDACTED:([a-z0-9]+(?:-[a-z0-9]+)*):[0-9a-f]{4}\]")
# A known value this long counts wherever it occurs; a shorter one only as a token.
ANYWHERE_LENGTH = 12

# What ``hides`` refuses outright. The characters that open or close a form: a value
# holding none of them can overlap a form only inside one of its pieces, or by ending
# where a form's provider prefix begins.
_DELIMITERS = frozenset("[]…()")
_PIECES = frozenset(p[:n] for p in PROVIDER_PREFIXES for n in range(1, len(p) + 1))
_LONGEST_PIECE = max(len(p) for p in PROVIDER_PREFIXES)
_COUNT = re.compile(r"[0-9]+(?: (?:c(?:h(?:a(?:r(?:s)?)?)?)?)?)?")  # "(40 chars" without "("
_HEX = frozenset("0123456789abcdef")
_HASH_LENGTH = 4
_LAST = 3  # characters of a value ``redact_value`` shows


def redact_value(value: str) -> str:
    """``ghp_…Xk2 (40 chars)``: a known prefix, the last 3 characters, the length.

    Values under 12 characters show nothing but their length, so a short
    password cannot be guessed from what is shown.
    """
    length = len(value)
    if length < 12:
        return f"…({length} chars)"
    match = _PREFIX.match(value)
    prefix = match.group(1) if match else ""
    return f"{prefix}…{value[-_LAST:]} ({length} chars)"


def redaction_token(slug: str, value: str) -> str:
    """``[REDACTED:github-token:3f2a]``: the kind of secret and 16 bits of its SHA-256.

    The same value gives the same token in every text and every run, so a model can
    tell two mentions of one secret apart from two secrets; 16 bits cannot recover it.
    """
    digest = hashlib.sha256(value.encode("utf-8", errors="surrogatepass")).hexdigest()
    return f"[REDACTED:{slug}:{digest[:4]}]"


def bounded(text: str, start: int, end: int, value: str) -> bool:
    """A short value counts only as a token, not inside a longer word ("passw" in
    "passwords"); a long one counts anywhere, even glued to other text."""
    if len(value) >= ANYWHERE_LENGTH:
        return True
    if value[0].isalnum() and start > 0 and text[start - 1].isascii() and text[start - 1].isalnum():
        return False
    return not (
        value[-1].isalnum() and end < len(text) and text[end].isascii() and text[end].isalnum()
    )


def hides(value: str, line: str, slugs: frozenset[str]) -> bool:
    """Whether ``value``, a known value of a redactor whose forms are ``redact_value``'s
    and tokens whose slugs are among ``slugs``, cannot occur on ``line`` (one line of a
    text, no line break in it) after that text is redacted, however much of the text
    around the line is redacted with it. False when that cannot be shown this cheaply.

    Why True is right. The redacted line is pieces of the raw line kept as they were,
    with forms between them (a value that spans lines leaves its form on its first line
    and empty lines after it). An occurrence of ``value`` there either lies in one kept
    piece, which makes it an occurrence on the raw line, or overlaps a form:

    - on the raw line: every occurrence is redacted when it counts as the value (a long
      value always; a short one when ``bounded``) and lies in no form already written in
      the line, which ``REDACTED_FORMS`` finding nothing on the raw line rules out;
    - overlapping a form: a value holding no ``[ ] … ( )`` cannot reach across a form's
      first or last character, so it lies inside one of a form's pieces -- ``REDACTED``,
      a slug, the four hex digits, a provider prefix, three last characters and a space,
      a count with `` chars`` -- or ends inside the provider prefix a form starts with.
      The pieces are tested for directly. Ending in a prefix: the value is then some text
      ``head`` that precedes a form on the redacted line followed by the start of the
      prefix. ``head`` lies on the raw line too; where it starts an occurrence of the
      value there, that occurrence is redacted and its region reaches past ``head``, so
      no form can follow ``head`` directly. So only a ``head`` that occurs elsewhere on
      the line can do it, and that is refused.
    A value holding a line break is never on one line, redacted or not.
    """
    if "\n" in value:
        return True
    if not value or _DELIMITERS.intersection(value) or _COUNT.fullmatch(value):
        return False
    if REDACTED_FORMS.search(line) is not None:
        return False
    if len(value) < ANYWHERE_LENGTH:
        if value in " chars" or any(value in prefix for prefix in PROVIDER_PREFIXES):
            return False
        if len(value) <= _LAST + 1 and value.endswith(" "):
            return False  # the last characters a form shows and the space after them
        at = line.find(value)
        while at >= 0:
            if not bounded(line, at, at + len(value), value):
                return False
            at = line.find(value, at + 1)
    if _in_token(value, slugs):
        return False
    for size in range(1, min(_LONGEST_PIECE, len(value)) + 1):
        if value[-size:] in _PIECES:
            head = value[:-size]
            if not head:
                return False
            at = line.find(head)
            while at >= 0:
                if not line.startswith(value, at):
                    return False
                at = line.find(head, at + 1)
    return True


def _in_token(value: str, slugs: frozenset[str]) -> bool:
    """Whether ``value`` could lie inside ``REDACTED:<slug>:<hex>`` for one of ``slugs``:
    a part of ``REDACTED:<slug>:`` followed by up to four hex digits."""
    texts, alphabet = _token_texts(slugs)
    if not alphabet.issuperset(value):
        return False  # a character no such text holds
    for cut in range(_HASH_LENGTH + 1):
        if cut and value[-cut] not in _HEX:
            break
        head = value[: len(value) - cut]
        if not head:
            return True  # the hex digits alone
        if head in texts:
            return True
    return False


@lru_cache(maxsize=8)
def _token_texts(slugs: frozenset[str]) -> tuple[str, frozenset[str]]:
    """``REDACTED:<slug>:`` for every slug, one to a line: one search finds a part of any
    (no slug holds a line break, nor does a value ``hides`` gets this far with); and
    every character those texts and the hex digits hold."""
    texts = "\n".join(f"REDACTED:{slug}:" for slug in sorted(slugs))
    return texts, frozenset(texts.replace("\n", "")) | _HEX


def within(start: int, end: int, forms: list[tuple[int, int]]) -> bool:
    """Whether text[start:end] lies inside one redacted form (a candidate value equal to
    "REDACTED" or "chars" must not rewrite the forms themselves). ``forms`` are sorted
    and disjoint."""
    index = bisect_right(forms, (start, sys.maxsize)) - 1
    return index >= 0 and end <= forms[index][1]


def outside(start: int, end: int, forms: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The parts of text[start:end] outside every redacted form: a form is never
    redacted again, and what surrounds it still is."""
    index = max(0, bisect_right(forms, (start, sys.maxsize)) - 1)
    for low, high in forms[index:]:
        if low >= end:
            break
        if high <= start:
            continue
        if low > start:
            yield start, low
        start = max(start, high)
    if start < end:
        yield start, end
