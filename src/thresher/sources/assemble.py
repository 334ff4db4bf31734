"""From raw detections to the detect-secrets source's reports: baseline, rank, severity.

Each detection is one report; ``sources.dedupe`` merges a value's reports into one
finding. Which rule names it is the most specific one that hit (the lowest rank): a
provider's token format says more than a custom rule, which says more than a keyword,
which says more than entropy. thresher's own rules rank after all of detect-secrets'
types, so a value detect-secrets reports keeps the rule id (and the SARIF rule) it
always had; the finding's ``detected_by`` names every rule that saw it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from thresher.findings.detection import Detection, Origin
from thresher.findings.model import (
    DetectSecretsSource,
    FindingKind,
    FindingSource,
    Location,
    SecretType,
    Severity,
    ThresherRulesSource,
)
from thresher.findings.options import CustomRule, ScanError
from thresher.findings.rules.book import Rule, builtin_rules
from thresher.sources.base import Sourced
from thresher.sources.dedupe import fingerprint

KEYWORD = "Secret Keyword"
_PROVIDER_TYPES = (
    "AWS Access Key", "Artifactory Credentials", "Azure Storage Account access key",
    "Cloudant Credentials", "Discord Bot Token", "GitHub Token", "GitLab Token",
    "IBM Cloud IAM Key", "IBM COS HMAC Credentials", "Mailchimp Access Key", "NPM tokens",
    "OpenAI Token", "PyPI Token", "SendGrid API Key", "Slack Token", "SoftLayer Credentials",
    "Square OAuth Secret", "Stripe Access Key", "Telegram Bot Token", "Twilio API Key",
)  # fmt: skip
SEVERITY_BY_TYPE: dict[str, Severity] = {
    "Private Key": Severity.CRITICAL,
    **dict.fromkeys(_PROVIDER_TYPES, Severity.HIGH),
    KEYWORD: Severity.MEDIUM,
    "Basic Auth Credentials": Severity.MEDIUM,
    "JSON Web Token": Severity.MEDIUM,
    "Public IP (ipv4)": Severity.LOW,
    "Hex High Entropy String": Severity.LOW,
    "Base64 High Entropy String": Severity.LOW,
}
# Lower is more specific; format-specific detector types (providers, private
# keys, JWTs, URLs with credentials) rank 0.
_GENERIC_RANK = {
    KEYWORD: 2,
    "Public IP (ipv4)": 3,
    "Hex High Entropy String": 4,
    "Base64 High Entropy String": 5,
}
_CUSTOM_RANK = 1
_RULES_RANK = 10


@dataclass(frozen=True)
class Candidate:
    """One detection at detect-secrets' own granularity — per file, type and
    value, at its first line — without the value: what a detect-secrets
    baseline would list, and what the benchmark compares."""

    path: str
    line: int
    type: str
    hashed_secret: str  # detect-secrets' sha1 of the value, as baselines store it
    fingerprint: str
    origin: Origin = Origin.DETECT_SECRETS  # which detector: detect-secrets, custom, rules


def ds_hash(value: str) -> str:
    """detect-secrets' ``hashed_secret`` (sha1), for baseline matching only."""
    return hashlib.sha1(value.encode("utf-8"), usedforsecurity=False).hexdigest()


BaselineKey = tuple[str, str, str]  # (path, hashed_secret, type)


def load_baseline(path: Path) -> frozenset[BaselineKey]:
    """The (filename, hashed_secret, type) entries of a detect-secrets baseline."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScanError(f"--baseline {path}: cannot read it: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScanError(f"--baseline {path}: not valid JSON: {exc}") from exc
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, dict):
        raise ScanError(
            f'--baseline {path}: not a detect-secrets baseline (no "results" object)',
            hint="create one with `detect-secrets scan > .secrets.baseline`",
        )
    entries: set[BaselineKey] = set()
    for filename, items in results.items():
        if not isinstance(items, list):
            raise ScanError(f"--baseline {path}: results for {filename!r} are not a list")
        for item in items:
            hashed = item.get("hashed_secret") if isinstance(item, dict) else None
            kind = item.get("type") if isinstance(item, dict) else None
            if not isinstance(hashed, str) or not isinstance(kind, str):
                raise ScanError(
                    f"--baseline {path}: an entry for {filename!r} lacks hashed_secret or type"
                )
            entries.add((_baseline_path(filename), hashed, kind))
    return frozenset(entries)


def _baseline_path(filename: str) -> str:
    return filename.replace("\\", "/").removeprefix("./")


def severity_for(detection: Detection, rules: Mapping[str, CustomRule]) -> Severity:
    match detection.origin:
        case Origin.CUSTOM:
            return rules[detection.type].severity
        case Origin.RULES:
            return _builtin()[detection.type].severity
        case Origin.DETECT_SECRETS:
            return SEVERITY_BY_TYPE.get(detection.type, Severity.MEDIUM)


def _rank(detection: Detection) -> tuple[int, str]:
    match detection.origin:
        case Origin.CUSTOM:
            return _CUSTOM_RANK, detection.type
        case Origin.RULES:
            return _RULES_RANK, detection.type
        case Origin.DETECT_SECRETS:
            return _GENERIC_RANK.get(detection.type, 0), detection.type


@cache
def _builtin() -> dict[str, Rule]:
    """The built-in rules by id: asked once per detection, built once per process
    (``builtin_rules`` is)."""
    return {rule.id: rule for rule in builtin_rules()}


def _secret_type(detection: Detection, rules: Mapping[str, CustomRule]) -> SecretType | None:
    match detection.origin:
        case Origin.CUSTOM:
            rule = rules[detection.type].rule
            return rule.secret_type if rule is not None else None
        case Origin.RULES | Origin.DETECT_SECRETS:
            return None  # derived from the rule id (``secret_type_for_rule``)


def in_order(candidates: Iterable[Candidate]) -> tuple[Candidate, ...]:
    """Candidates by path, line and type (a stable sort: ties keep their order). One
    file's, made apart (``unordered_candidates``) and chained in the order of the
    files, sort as all of them made at once would: every key holds the path."""
    return tuple(sorted(candidates, key=lambda c: (c.path, c.line, c.type)))


def unordered_candidates(
    detections: Iterable[Detection], fingerprints: dict[str, str] | None = None
) -> list[Candidate]:
    """The candidates of ``detections``, in the order their keys first came (sorted:
    ``in_order``). detect-secrets keeps one entry per (file, hashed value, type): the
    first line. thresher's own rules report every line they hit, as their findings'
    locations do (no baseline format constrains them). ``fingerprints`` (value ->
    ``fingerprint``) keeps the values hashed here, for ``dedupe`` to hash none again."""
    first: dict[tuple[str, str, str, int], Detection] = {}
    for detection in detections:
        line = detection.line if detection.origin is Origin.RULES else 0
        key = (detection.path, detection.type, detection.ds_value, line)
        if key not in first or detection.line < first[key].line:
            first[key] = detection
    known: dict[str, str] = {} if fingerprints is None else fingerprints

    def hashed(value: str) -> str:  # a value is often detected more than once
        found = known.get(value)
        if found is None:
            found = known[value] = fingerprint(value)
        return found

    return [
        Candidate(d.path, d.line, d.type, ds_hash(d.ds_value), hashed(d.value), d.origin)
        for d in first.values()
    ]


def sourced(
    detections: Iterable[Detection],
    rules: Mapping[str, CustomRule],
    commit: str | None = None,
) -> Iterator[Sourced]:
    """One report per detection; its raw value travels to ``dedupe`` and the vault only.

    A line's detections share one ``Location`` (immutable; a line often holds several,
    and building one validates it)."""
    detect_secrets, own = DetectSecretsSource(), ThresherRulesSource()
    places: dict[tuple[str, int], tuple[Location]] = {}
    # What a report says besides its place and value depends on its detector and type
    # alone: worked out once for each.
    kinds: dict[tuple[Origin, str], tuple[Severity, FindingSource, SecretType | None, int]] = {}
    for detection in detections:
        said = kinds.get((detection.origin, detection.type))
        if said is None:
            said = kinds[detection.origin, detection.type] = (
                severity_for(detection, rules),
                own if detection.origin is Origin.RULES else detect_secrets,
                _secret_type(detection, rules),
                _rank(detection)[0],
            )
        place = places.get((detection.path, detection.line))
        if place is None:
            place = (Location(path=detection.path, line=detection.line, commit=commit),)
            places[detection.path, detection.line] = place
        severity, source, secret_type, rank = said
        yield Sourced(
            kind=FindingKind.SECRET,
            rule_id=detection.type,
            severity=severity,
            locations=place,
            source=source,
            value=detection.value,
            secret_type=secret_type,
            rank=rank,
        )
