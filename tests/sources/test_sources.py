"""The source seam: a source reports, ``dedupe`` merges reports into findings with ids,
and detect-secrets is one source among others."""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from itertools import chain
from pathlib import Path

import pytest

from tests.tokens import github_token
from thresher.errors import ExitCode, ThresherError
from thresher.findings import (
    AlertState,
    DetectSecretsSource,
    FindingKind,
    FindingLocation,
    GitHubAlertSource,
    GitHubLocationType,
    Location,
    OsvSource,
    Severity,
    TextLocation,
    WikiLocation,
)
from thresher.redaction.redactor import redact_value
from thresher.sources import Source, Sourced, SourceError, dedupe, finding_id
from thresher.sources.dedupe import fingerprint
from thresher.sources.detect_secrets import DetectSecretsScan
from thresher.sources.scan import ScanOptions, scan


def _alert(number: int, repo: str = "octo/app") -> GitHubAlertSource:
    return GitHubAlertSource(
        repo=repo,
        number=number,
        url=f"https://api.github.com/repos/{repo}/secret-scanning/alerts/{number}",
        state=AlertState.OPEN,
    )


def _issue(number: int, repo: str = "octo/app") -> TextLocation:
    return TextLocation(
        type=GitHubLocationType.ISSUE_BODY, url=f"https://github.com/{repo}/issues/{number}"
    )


class AlertsFake(Source):
    """A source as the GitHub-alerts one will be: one report per alert, lazily."""

    def __init__(self, alerts: Sequence[tuple[GitHubAlertSource, str, FindingLocation]]) -> None:
        self.alerts = alerts
        self.collected = 0

    @property
    def name(self) -> str:
        return "alerts-fake"

    def collect(self) -> Iterator[Sourced]:
        for source, value, location in self.alerts:
            self.collected += 1
            yield Sourced(
                kind=FindingKind.SECRET,
                rule_id="github_personal_access_token",
                severity=Severity.HIGH,
                locations=(location,),
                source=source,
                value=value,
            )


def _ds(value: str, path: str, line: int, rule: str = "GitHub Token", rank: int = 0) -> Sourced:
    return Sourced(
        kind=FindingKind.SECRET,
        rule_id=rule,
        severity=Severity.HIGH if rank == 0 else Severity.LOW,
        locations=(Location(path=path, line=line),),
        source=DetectSecretsSource(),
        value=value,
        rank=rank,
    )


def test_a_sourced_report_never_shows_or_ships_its_value() -> None:
    token = github_token(seed=3)
    item = _ds(token, "app.py", 1)
    assert token not in repr(item)
    with pytest.raises(TypeError, match="never serialised"):
        pickle.dumps(item)


def test_dedupe_merges_one_value_into_one_finding_named_by_its_most_specific_rule() -> None:
    token = github_token(seed=5)
    deduped = dedupe(
        [
            _ds(token, "b.py", 3, "Base64 High Entropy String", rank=5),
            _ds(token, "b.py", 3),
            _ds(token, "a.yaml", 1, "Secret Keyword", rank=2),
        ]
    )
    (finding,) = deduped.findings
    assert [(loc.path, loc.line) for loc in finding.locations] == [("a.yaml", 1), ("b.py", 3)]
    assert (finding.rule_id, finding.severity) == ("GitHub Token", Severity.HIGH)
    assert finding.fingerprint == fingerprint(token)
    assert finding.redacted == redact_value(token)
    assert finding.id == finding_id(FindingKind.SECRET, fingerprint(token), finding.locations[0])
    assert deduped.vault.get(finding.id) == token
    assert token not in finding.model_dump_json()


def test_test_code_and_deployable_code_stay_two_findings_of_one_fingerprint() -> None:
    token = github_token(seed=6)
    deduped = dedupe([_ds(token, "tests/test_app.py", 2), _ds(token, "app.py", 9)])
    assert [f.locations[0].path for f in deduped.findings] == ["app.py", "tests/test_app.py"]
    assert len({f.fingerprint for f in deduped.findings}) == 1
    assert len({f.id for f in deduped.findings}) == 2


def test_each_alert_stays_its_own_finding_and_keeps_its_source() -> None:
    """One value alerted in two repositories: two alerts to resolve, one credential."""
    token = github_token(seed=7)
    other = github_token(seed=8)
    source = AlertsFake(
        [
            (_alert(2), token, Location(path="app.py", line=4, commit="c" * 40)),
            (_alert(9, "octo/web"), token, Location(path="app.py", line=4, commit="c" * 40)),
            (_alert(3), other, _issue(12)),
        ]
    )
    deduped = dedupe(source.collect())
    assert source.collected == 3
    by_number = {f.source.number: f for f in deduped.findings if f.source.type == "github-alert"}
    assert sorted(by_number) == [2, 3, 9]
    assert by_number[2].fingerprint == by_number[9].fingerprint
    assert by_number[2].id != by_number[9].id  # same place, different alert
    assert by_number[3].locations == (_issue(12),)
    assert deduped.vault.get(by_number[9].id) == token
    assert deduped.vault.get(by_number[3].id) == other
    # Ids are stable: the same alerts give the same ids on the next run.
    again = dedupe(source.collect())
    assert [f.id for f in again.findings] == [f.id for f in deduped.findings]


def test_dedupe_across_sources_keeps_files_first_then_wiki_then_text() -> None:
    token, leaked, paged = (github_token(seed=s) for s in (10, 11, 12))
    wiki = WikiLocation(
        path="Deploy.md", line=3, commit="d" * 40, url="https://github.com/octo/app/wiki/Deploy"
    )
    alerts = AlertsFake([(_alert(4), leaked, _issue(1)), (_alert(5), paged, wiki)])
    deduped = dedupe(chain([_ds(token, "z.py", 1)], alerts.collect()))
    kinds = [type(f.locations[0]) for f in deduped.findings]
    assert kinds == [Location, WikiLocation, TextLocation]
    # A detect-secrets id is what it always was: kind, fingerprint, first path:line.
    assert deduped.findings[0].id == finding_id(
        FindingKind.SECRET, fingerprint(token), Location(path="z.py", line=1)
    )


def test_a_report_that_cannot_be_a_finding_is_a_source_error() -> None:
    wrong_kind = Sourced(
        kind=FindingKind.DEPENDENCY,
        rule_id="GitHub Token",
        severity=Severity.HIGH,
        locations=(Location(path="app.py", line=1),),
        source=DetectSecretsSource(),
        value=github_token(seed=13),
    )
    with pytest.raises(SourceError, match="source 'detect-secrets' reported an invalid finding"):
        dedupe([wrong_kind])
    with pytest.raises(SourceError, match="reported 'GitHub Token' without a value"):
        dedupe([_ds("", "app.py", 1)])
    osv = Sourced(
        kind=FindingKind.DEPENDENCY,
        rule_id="GHSA-xxxx",
        severity=Severity.HIGH,
        locations=(),
        source=OsvSource(package="p", version="1", ecosystem="npm", lockfile="package-lock.json"),
        value="p@1",
    )
    with pytest.raises(SourceError, match="reported 'GHSA-xxxx' without a location") as caught:
        dedupe([osv])
    assert isinstance(caught.value, ThresherError)
    assert caught.value.exit_code is ExitCode.RUNTIME


def test_detect_secrets_is_a_source_whose_scan_counts_follow_its_reports(tmp_path: Path) -> None:
    token = github_token(seed=14)
    (tmp_path / "a.py").write_text(f'A = "{token}"\nB = "{token}"\n')
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01binary")
    source = DetectSecretsScan(ScanOptions(root=tmp_path, workers=1))
    assert source.name == "detect-secrets"
    with pytest.raises(RuntimeError, match="once collect"):
        _ = source.scanned
    reports = list(source.collect())
    assert {(r.locations[0].path, r.locations[0].line) for r in reports} == {
        ("a.py", 1),
        ("a.py", 2),
    }
    assert source.scanned.stats.files_scanned == 1
    assert [s.path for s in source.scanned.skipped] == ["blob.bin"]
    # scan() is this source through dedupe, with the same findings and counts.
    result = scan(ScanOptions(root=tmp_path, workers=1))
    assert result.findings == dedupe(reports).findings
    assert result.skipped == source.scanned.skipped
    assert result.candidates == source.scanned.candidates


def test_a_scan_keeps_the_listing_it_planned_from(tmp_path: Path) -> None:
    """The whole tree's listing, as ``list_files`` makes it, for the scorer's references
    pass (it would otherwise list the tree again late in the run)."""
    from thresher.git import scope as gitscope

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.py").write_text("x = 1\n")
    (tmp_path / "two.txt").write_text("y\n")
    result = scan(ScanOptions(root=tmp_path))
    listed, _ = gitscope.list_files(tmp_path.resolve())
    assert result.tree is not None
    assert [(i.path, i.size) for i in result.tree] == [(i.path, i.size) for i in listed]
