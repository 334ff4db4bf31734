"""The screen: candidates that cannot be credentials, dropped after detection, counted.

detect-secrets' keyword plugin and thresher's generic rules find a value by the key it
is assigned to; an entropy plugin finds it by its characters. Neither reads what the
key means or what the value is, so whole trees yield findings such as a dependency
pin under a tox environment named ``...-notoken-...``, a count (``max_tokens = 1000``),
a type annotation (``input_tokens: "int | None"``), a status code
(``ERR_PASSWORD_EXPIRED = 1330``), a YAML block of script text under ``ci_secrets: |``,
a pointer into a secret store (``vault-path:password``), a published constant
(.NET's ``PublicKeyToken=``, go-plugin's ``MagicCookieValue``), a commit id under
``rev:`` or an indexing expression in a generated parser. Each costs the scorer a
decision it can get wrong and the user a look; none can be a credential.

This stage runs on every file's detections, after detect-secrets and the rules and
before the baseline and de-duplication, on the line each was found on. It judges only
the generic detectors (``screened``): a provider's token format, a private key, a URL's
password and an operator's custom rule are never dropped here. A drop has one
``DropReason`` from a closed vocabulary; the scan counts them by reason (the stderr
summary, ``ScanStats.dropped_by_reason``) and logs each at debug level by path, line
and detector, never by value. The raw plugins are unchanged: ``ScanOptions.screen``
turns the stage off to compare a scan with ``detect-secrets scan`` itself.

Everything here is bounded string work and RE2 on a bounded window of the line and
the value; nothing backtracks on repository text. The judgements are in
``findings.screen_rules``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from thresher.findings.detection import Detection, Origin
from thresher.findings.screen_rules import Context, DropReason, judge
from thresher.findings.skips import counts_in_order

__all__ = ["DropReason", "Dropped", "count_by_reason", "drop_phrase", "screen", "screened"]

# detect-secrets' detectors that find a value by its key or by its characters alone.
KEYWORD = "Secret Keyword"
SCREENED_TYPES = frozenset({KEYWORD, "Hex High Entropy String", "Base64 High Entropy String"})


@dataclass(frozen=True, slots=True)
class Dropped:
    """One detection the screen dropped: where, which detector, and why (no value)."""

    path: str
    line: int
    detector: str
    reason: DropReason

    def describe(self) -> str:
        """One debug line; a hostile name cannot forge further lines of output."""
        name = self.path if self.path.isprintable() else repr(self.path)
        return f"dropped {self.detector} at {name}:{self.line}: {self.reason.label}"


def screened(detection: Detection, generic_rules: frozenset[str]) -> bool:
    """Whether the screen judges this detection: a generic detector's, never a custom
    rule's (an operator wrote it for their own reasons) or a provider format's."""
    match detection.origin:
        case Origin.DETECT_SECRETS:
            return detection.type in SCREENED_TYPES
        case Origin.RULES:
            return detection.type in generic_rules
        case Origin.CUSTOM:
            return False


def screen(
    detections: Iterable[Detection],
    lines: Mapping[int, str] | Sequence[str],
    generic_rules: frozenset[str],
    *,
    code: bool,
) -> tuple[list[Detection], list[Dropped]]:
    """The detections that stay, and the ones dropped with their reasons.

    ``lines`` gives each detection's line text by line number (a mapping) or is the
    file's lines (``lines[number - 1]``); ``code`` says whether an unquoted value in
    this file is an expression (source code) rather than text (configuration)."""
    kept: list[Detection] = []
    dropped: list[Dropped] = []
    for detection in detections:
        reason = None
        if screened(detection, generic_rules):
            text = _line(lines, detection.line)
            if text is not None:
                keyed = detection.origin is Origin.RULES or detection.type == KEYWORD
                reason = judge(Context.of(text, detection.value), code=code, keyed=keyed)
        if reason is None:
            kept.append(detection)
        else:
            dropped.append(Dropped(detection.path, detection.line, detection.type, reason))
    return kept, dropped


def _line(lines: Mapping[int, str] | Sequence[str], number: int) -> str | None:
    if isinstance(lines, Mapping):
        return lines.get(number)
    return lines[number - 1] if 0 < number <= len(lines) else None


def count_by_reason(dropped: Iterable[Dropped]) -> dict[DropReason, int]:
    """Counts in the enum's order, reasons that did not occur left out."""
    return counts_in_order(DropReason, (item.reason for item in dropped))


def drop_phrase(counts: Mapping[DropReason, int]) -> str:
    """ "dropped 3 non-candidates (2 version pin, 1 type annotation)", or ""."""
    total = sum(counts.values())
    if not total:
        return ""
    parts = ", ".join(f"{counts[r]} {r.label}" for r in DropReason if counts.get(r))
    return f"dropped {total} non-candidate{'' if total == 1 else 's'} ({parts})"
