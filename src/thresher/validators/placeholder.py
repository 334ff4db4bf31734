"""The placeholder validator: documentation values, templates and made-up filler.

It applies to every secret and must stay conservative: a random high-entropy string is
never called a placeholder. Every pattern below needs either an exact known value, a
template/reference syntax, an explicit placeholder word or a degenerate (repeated or
sequential) body.
"""

from __future__ import annotations

import hashlib
import itertools
import re

from thresher.findings import Finding
from thresher.findings.profile import may_hold
from thresher.validators.base import CheckKind, ValidationResult, Validator

# Vendor documentation values: public, never credentials.
DOCUMENTATION_VALUES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AKIAI44QH8DHBEXAMPLE",
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        "ASIAIOSFODNN7EXAMPLE",
    }
)

# Documentation values that look like live tokens are kept as SHA-256 digests so that
# this file never trips a secret scanner: Stripe's published test keys, Slack's legacy
# bot-token example, and the account key of Azurite (and the Azure Storage Emulator
# before it), which Microsoft publishes for every local development install
# (``AccountName=devstoreaccount1;AccountKey=...``).
DOCUMENTATION_DIGESTS = frozenset(
    {
        "0011cc25eb4320717494d2703e8cba85743e71b500283c21c8b88147992f9059",
        "2cafc0970149a84f3b9e62eaf169f36f59907a3b3e31f7b82e68c69cd27f7326",
        "b1471f544ceeea31333bde7e1ecbaad6eac0d4a749412ad29bd66ef895b81c6b",
        "f2d6ca16515033e5dce14eba840b979d27b5cbae24bb3e5bf484339667f86397",
        "5895b89c8fb33402a5bfc23aad5aaf863fbb438a51e1a0bb02b0ce618c8fdf9d",
        "2ddc147f3a3b5a1722b8ed6be3c45c49a7156b17fca5d11410137a6d04def6eb",
    }
)


# A key-like run inside a longer value: base64 or hex characters with their padding. A
# connection string, a URL or a command line carries a published key this way
# (``...;AccountKey=<key>;BlobEndpoint=...``), and the value a scanner reports is the
# whole string.
_EMBEDDED = re.compile(r"[A-Za-z0-9+/]{16,512}={0,2}")
_MAX_EMBEDDING = 4096  # a longer value is no connection string: not searched


def _published(text: str) -> bool:
    return text in DOCUMENTATION_VALUES or (
        hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() in DOCUMENTATION_DIGESTS
    )


def is_documentation_value(value: str) -> bool:
    """A vendor's published example value, whole or as a key-like run inside the value."""
    if _published(value):
        return True
    if len(value) > _MAX_EMBEDDING:
        return False
    return any(m.group(0) != value and _published(m.group(0)) for m in _EMBEDDED.finditer(value))


_PLACEHOLDER = re.compile(
    r"(?i)(example|sample|placeholder|dummy|changeme|change_me|your[_-]?(api[_-]?)?"
    r"(key|token|secret|password)|insert[_-]?|replace[_-]?me|redacted|<[^>]+>|\$\{[^}]+\}|"
    r"\{\{[^}]+\}\}|%\([a-z_]+\)s|x{6,}|\*{4,})"
)
# Text every match of ``_PLACEHOLDER`` holds, lower-cased. An ASCII value holding none
# of it cannot match and is not searched (the alternation is tried at every character
# of a value that can run to kilobytes); any other value is, for IGNORECASE also folds
# some letters beyond ASCII onto ASCII ones (the long s, U+017F, onto ``s``).
_PLACEHOLDER_NEEDS = (
    "example", "sample", "placeholder", "dummy", "changeme", "change_me", "your", "insert",
    "replace", "redacted", "<", "${", "{{", "%(", "xxxxxx", "****",
)  # fmt: skip


def _placeholder_text(text: str) -> re.Match[str] | None:
    """``_PLACEHOLDER.search(text)``, skipped where it provably finds nothing."""
    return _PLACEHOLDER.search(text) if may_hold(text, _PLACEHOLDER_NEEDS) else None


# Placeholder words that are too short to match anywhere: only as a separate word.
_WORDS = re.compile(
    r"(?i)(?:^|[^a-z0-9])(fake|todo|fixme|tbd|foobar|secret[_-]?here|key[_-]?here|"
    r"token[_-]?here|not[_-]?a[_-]?real|do[_-]?not[_-]?use|lorem[_-]?ipsum)(?:[^a-z0-9]|$)"
)
# Text every match of ``_WORDS`` holds, lower-cased (``here``: ``secret_here`` and its
# kind; ``not``: ``not_a_real``, ``do_not_use``).
_WORDS_NEED = ("fake", "todo", "fixme", "tbd", "foobar", "here", "not", "lorem")


def _placeholder_words(text: str) -> re.Match[str] | None:
    """``_WORDS.search(text)``, skipped where it provably finds nothing (as
    ``_placeholder_text``: an ASCII value holding none of ``_WORDS_NEED``)."""
    return _WORDS.search(text) if may_hold(text, _WORDS_NEED) else None


# A whole value that is a reference to something else, not a secret.
_REFERENCE = re.compile(
    r"^(?:\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\$\([^)]+\)|"
    r"(?:process\.env|os\.environ|ENV)[.\[][^\s]+|os\.getenv\([^)]*\)|"
    r"env\([^)]*\)|secrets?\.[A-Za-z_][A-Za-z0-9_]*)$"
)
_ELLIPSIS = re.compile(r"\.{3,}|\u2026|\u2022{3,}|#{6,}")
# Text every match of ``_ELLIPSIS`` holds (no case folding): four substring scans rule
# most values out before the alternation is tried at each character.
_ELLIPSIS_NEEDS = ("...", "\u2026", "\u2022" * 3, "#" * 6)
_TOKEN_PREFIX = re.compile(r"^[A-Za-z]{2,10}[_-](?:(?:live|test|proj)[_-])?")
_RUNS = "0123456789abcdefghijklmnopqrstuvwxyz"
_HEX_RUNS = "0123456789abcdef"


def _sequential(text: str) -> bool:
    """Counting up or down through the digits and letters, or through the hex digits
    round and round (``0123456789abcdef0123...``, a docs sample of a 40-character token)."""
    hex_laps = _HEX_RUNS * (len(text) // len(_HEX_RUNS) + 2)
    return any(text in runs for runs in (_RUNS * 2, _RUNS[::-1] * 2, hex_laps, hex_laps[::-1]))


def _stepped(text: str) -> bool:
    """Each character repeated the same number of times, the characters themselves
    sequential (``000011112222...ffff``)."""
    # The second run must repeat its character, or it sets a step of one: most values
    # end here, before their runs are counted one character at a time.
    second = len(text) - len(text.lstrip(text[:1]))
    if second + 1 >= len(text) or text[second + 1] != text[second]:
        return False
    runs = [(ch, len(list(group))) for ch, group in itertools.groupby(text)]
    if len(runs) < 4:
        return False
    # The first and last runs may be cut short; the inner ones set the step.
    sizes = {size for _, size in runs[1:-1]}
    return len(sizes) == 1 and min(sizes) >= 2 and _sequential("".join(ch for ch, _ in runs))


def _degenerate(text: str) -> str | None:
    """Why ``text`` is filler (repeated or sequential characters), else None."""
    if len(text) < 8:
        return None
    if len(set(text)) <= 2:
        return "made of one or two repeated characters"
    lowered = text.lower()
    if _sequential(lowered):
        return "a sequential run of characters"
    if _stepped(lowered):
        return "a sequential run of repeated characters"
    for size in range(2, 5):
        unit = text[:size]
        if len(text) >= 2 * size + size and (unit * (len(text) // size + 1)).startswith(text):
            return "a short unit repeated"
    return None


def placeholder_reason(value: str) -> str | None:
    """Why ``value`` is a placeholder or documentation value, else None (redaction-safe)."""
    stripped = value.strip().strip("\"'`")
    if is_documentation_value(stripped):
        return "a vendor's published documentation example value"
    return _undocumented_reason(stripped)


def _undocumented_reason(stripped: str) -> str | None:
    """``placeholder_reason`` of a stripped value known not to be a documentation value:
    the check asks that first, and asking again hashed every key-like run twice."""
    if _REFERENCE.match(stripped):
        return "a reference to an environment variable or secret store, not a value"
    match = _placeholder_text(stripped) or _placeholder_words(stripped)
    if match:
        return f"contains placeholder or template text ({len(match.group(0))} characters matched)"
    if any(need in stripped for need in _ELLIPSIS_NEEDS) and _ELLIPSIS.search(stripped):
        return "elided or masked (ellipsis or mask characters): not a usable value"
    reason = _degenerate(stripped)
    if reason:
        return reason
    prefix = _TOKEN_PREFIX.match(stripped)
    if prefix:
        reason = _degenerate(stripped[prefix.end() :])
        if reason:
            return f"body after the prefix is {reason}"
    return None


# A whole value that is an interpolation in its file's own syntax holds no secret: the
# secret, if any, lives wherever the reference points. Anchored, no defaults allowed
# (``${DB_PASS:-hunter2}`` carries a literal and is not matched).
_INTERPOLATION = re.compile(
    r"^(?:\$\{[A-Za-z_][A-Za-z0-9_.]{0,100}\}|\$[A-Za-z_][A-Za-z0-9_]{0,100}|"
    r"%\([A-Za-z_][A-Za-z0-9_]{0,100}\)[sdr]|%[A-Za-z_][A-Za-z0-9_]{0,100}%|"
    r"\{\{\s{0,4}\.?[A-Za-z_][A-Za-z0-9_.]{0,100}\s{0,4}\}\})$"
)

_WORKFLOW_DIRS = (".github/workflows/", ".github/actions/")
_ACTION_FILES = frozenset({"action.yml", "action.yaml"})


def _workflow_keyword(value: str, finding: Finding) -> bool:
    """``secrets: inherit`` in a GitHub Actions file is a keyword of the workflow syntax."""
    return value.strip().strip("\"'") == "inherit" and all(
        loc.path.startswith(_WORKFLOW_DIRS) or loc.path.rsplit("/", 1)[-1] in _ACTION_FILES
        for loc in finding.locations
    )


class PlaceholderValidator(Validator):
    name = "placeholder"
    description = "Known documentation values, templated values and placeholder text"

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        if _workflow_keyword(value, finding):
            return [
                self.invalid(
                    CheckKind.SYNTAX,
                    "GitHub Actions' `secrets: inherit` passes the caller's secrets on: "
                    "syntax, not a value",
                )
            ]
        if _INTERPOLATION.match(value.strip().strip("\"'`")):
            return [
                self.invalid(
                    CheckKind.SYNTAX,
                    "a reference in the file's own interpolation syntax, not a value",
                )
            ]
        stripped = value.strip().strip("\"'`")
        if is_documentation_value(stripped):
            return [
                self.invalid(
                    CheckKind.DOCUMENTATION, "a vendor's published documentation example value"
                )
            ]
        reason = _undocumented_reason(stripped)
        if reason:
            return [self.invalid(CheckKind.PLACEHOLDER, reason)]
        return [self.valid(CheckKind.PLACEHOLDER, "no placeholder or documentation pattern found")]
