"""De-duplication: every source's reports become findings, one per value and context.

A secret pasted into three files, matched by three plugins, or reported by two sources
is one thing to triage and one credential to rotate, so reports are keyed by the
value's fingerprint and a finding carries every place it occurs. Two contexts stay
apart even for one value:

- test code and deployable code: they answer different questions (is this fixture
  ever live? / must this be rotated?) and are decided, reported and suppressed
  separately;
- two places to act on: two GitHub alerts are resolved one by one, so each stays its
  own finding. All detect-secrets reports share one such place (the tree).

Findings of one value share its fingerprint either way, so a caller can still decide
the credential once. Ids come from here: from the kind, the fingerprint, the first
location and the place to act on, so the same report gets the same id on every run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import assert_never

from pydantic import ValidationError

from thresher.findings.model import (
    DetectSecretsSource,
    Finding,
    FindingKind,
    FindingLocation,
    FindingSource,
    GitHubAlertSource,
    Location,
    OsvSource,
    TextLocation,
    ThresherRulesSource,
    WikiLocation,
    in_file,
    in_test_code,
)
from thresher.findings.vault import SecretVault
from thresher.redaction.redactor import redact_value
from thresher.sources.base import Sourced, SourceError


@dataclass(frozen=True)
class Deduped:
    """The findings to decide, in a deterministic order, and their raw values by id."""

    findings: tuple[Finding, ...]
    vault: SecretVault


def fingerprint(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def finding_id(
    kind: FindingKind,
    fingerprint_: str,
    first: FindingLocation,
    source: FindingSource | None = None,
) -> str:
    """Stable across runs; a detect-secrets finding's id is what it has always been."""
    material = f"{kind.value}{fingerprint_}{_place(first)}{_target(source)}"
    return "s-" + hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def dedupe(items: Iterable[Sourced], fingerprints: dict[str, str] | None = None) -> Deduped:
    """One finding per kind, value, scope and place to act on; raw values go to the vault.

    Chain several sources' ``collect()`` to de-duplicate across them. Raises
    ``SourceError`` for a report that cannot be a finding (no value, no location, a
    kind its source cannot report), naming the source and the rule. ``fingerprints``:
    value -> ``fingerprint(value)`` for values already hashed (a scan's candidates),
    filled in here for the others.
    """
    groups: dict[tuple[FindingKind, str, bool, str], list[Sourced]] = {}
    # A value is often reported several times (plugins, rules, files): hashed once.
    fingerprints = {} if fingerprints is None else fingerprints
    # A file's scope is worked out once (``in_test_code`` of each location asks it of
    # the path); a source makes one source object per detector, shared by its reports,
    # and each is placed once (by identity: every report stays referenced from
    # ``groups``, so an identity is never reused).
    scopes: dict[str | None, bool] = {None: False}
    targets: dict[int, str] = {}
    for item in items:
        if not item.value or not item.locations:
            missing = "a value" if not item.value else "a location"
            raise SourceError(
                f"source {item.source.type!r} reported {item.rule_id!r} without {missing}"
            )
        hashed = fingerprints.get(item.value)
        if hashed is None:
            hashed = fingerprints[item.value] = fingerprint(item.value)
        path = in_file(item.locations[0])
        scope = scopes.get(path)
        if scope is None:
            scope = scopes[path] = in_test_code(item.locations[0])
        target = targets.get(id(item.source))
        if target is None:
            target = targets[id(item.source)] = _target(item.source)
        groups.setdefault((item.kind, hashed, scope, target), []).append(item)
    vault = SecretVault()
    findings: list[Finding] = []
    for (kind, fingerprint_, _scope, _place_to_act), hits in groups.items():
        # Equal locations are most often one object (a source makes one per line):
        # those are told apart by identity first, which hashes no model. A value
        # reported once (most are) has its one report's location and rule.
        if len(hits) == 1:
            best = hits[0]
            locations = best.locations
            if len(locations) > 1:
                locations = tuple(sorted(set(locations), key=_order))
            detected_by: tuple[str, ...] = (f"{best.source.type}:{best.rule_id}",)
        else:
            unique = {id(loc): loc for hit in hits for loc in hit.locations}
            locations = tuple(sorted(set(unique.values()), key=_order))
            best = min(hits, key=lambda hit: (hit.rank, hit.rule_id))
            detected_by = tuple(sorted({f"{hit.source.type}:{hit.rule_id}" for hit in hits}))
        identifier = finding_id(kind, fingerprint_, locations[0], best.source)
        if identifier in vault:
            raise SourceError(
                f"two findings of source {best.source.type!r} share the id {identifier}"
            )
        value = hits[0].value
        findings.append(_finding(identifier, kind, fingerprint_, locations, best, detected_by))
        vault.put(identifier, value)
    # Fully ordered: detect-secrets reports a line's hits as a set, so ties would follow
    # hash order and differ between runs.
    findings.sort(key=lambda f: (*_order(f.locations[0]), f.rule_id, f.id))
    return Deduped(tuple(findings), vault)


def _shown(best: Sourced) -> str:
    """What reports show for the value: the redacted secret, or for a dependency the
    package and version (its ``value`` is a synthetic key, never worth showing)."""
    if isinstance(best.source, OsvSource):
        return f"{best.source.package}@{best.source.version}"
    return redact_value(best.value)


def _finding(
    identifier: str,
    kind: FindingKind,
    fingerprint_: str,
    locations: tuple[FindingLocation, ...],
    best: Sourced,
    detected_by: tuple[str, ...] = (),
) -> Finding:
    try:
        return Finding(
            id=identifier,
            kind=kind,
            rule_id=best.rule_id,
            severity=best.severity,
            locations=locations,
            fingerprint=fingerprint_,
            redacted=_shown(best),
            source=best.source,
            secret_type=best.secret_type,
            detected_by=detected_by if kind is FindingKind.SECRET else (),
        )
    except ValidationError as exc:
        problems = "; ".join(str(error["msg"]) for error in exc.errors())
        raise SourceError(
            f"source {best.source.type!r} reported an invalid finding "
            f"({best.rule_id!r} at {_place(locations[0])}): {problems}"
        ) from exc


def _place(location: FindingLocation) -> str:
    match location:
        case Location():
            return f"{location.path}:{location.line}"
        case WikiLocation():
            return f"wiki:{location.url}:{location.line}"
        case TextLocation():
            return f"{location.type.value}:{location.url}"
        case _:
            assert_never(location)


def _target(source: FindingSource | None) -> str:
    """What a decision acts on: nothing beyond the tree for detect-secrets and thresher's
    rules (so detect-secrets' ids are unchanged, and both sources' reports of a value
    meet in one finding), the alert for GitHub, the package in one lockfile for OSV."""
    match source:
        case None | DetectSecretsSource() | ThresherRulesSource():
            return ""
        case GitHubAlertSource():
            return f"|github-alert:{source.repo}#{source.number}"
        case OsvSource():
            return f"|osv:{source.ecosystem}:{source.package}@{source.version}:{source.lockfile}"
        case _:
            assert_never(source)


def _order(location: FindingLocation) -> tuple[int, str, int, str, str]:
    """Files by path and line (as always), then wiki pages, then text, each by address."""
    match location:
        case Location():
            return 0, location.path, location.line, location.commit or "", location.url or ""
        case WikiLocation():
            return 1, location.url, location.line, location.commit, location.path
        case TextLocation():
            return 2, location.url, 1, location.type.value, ""
        case _:
            assert_never(location)
