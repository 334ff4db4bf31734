"""The Finding model: location variants that round-trip through JSON, and a kind that
must agree with its source."""

from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter, ValidationError

from thresher.findings import (
    AlertState,
    AlertValidity,
    DetectSecretsSource,
    Finding,
    FindingKind,
    FindingLocation,
    FindingSource,
    GitHubAlertSource,
    GitHubLocationType,
    Location,
    OsvSource,
    TextLocation,
    WikiLocation,
    in_file,
)

ISSUE = "https://github.com/octo/app/issues/7#issuecomment-99"
WIKI = "https://github.com/octo/app/wiki/Deploy"
ALERT = GitHubAlertSource(
    repo="octo/app",
    number=7,
    url="https://api.github.com/repos/octo/app/secret-scanning/alerts/7",
    state=AlertState.OPEN,
    validity=AlertValidity.ACTIVE,
)
OSV = OsvSource(package="left-pad", version="1.0.0", ecosystem="npm", lockfile="package-lock.json")


def _finding(
    *,
    kind: FindingKind = FindingKind.SECRET,
    source: FindingSource | None = None,
    locations: tuple[FindingLocation, ...] = (Location(path="app.py", line=3),),
) -> Finding:
    return Finding(
        id="s-1",
        kind=kind,
        rule_id="github_personal_access_token",
        locations=locations,
        fingerprint="sha256:" + "ab" * 32,
        redacted="ghp_…(40 chars)",
        source=source or DetectSecretsSource(),
    )


def test_every_location_variant_survives_a_json_round_trip() -> None:
    finding = _finding(
        source=ALERT,
        locations=(
            Location(path="app.py", line=3, commit="c0ffee" * 6, url="https://x.test/blob"),
            WikiLocation(path="Deploy.md", line=2, commit="beef" * 10, url=WIKI),
            TextLocation(type=GitHubLocationType.ISSUE_COMMENT, url=ISSUE),
        ),
    )
    text = finding.model_dump_json()
    data = json.loads(text)
    assert [loc["kind"] for loc in data["locations"]] == ["file", "wiki", "text"]
    # Text carries its address as its path, so code reading "path" never breaks.
    assert data["locations"][2] == {
        "kind": "text",
        "type": "issue_comment",
        "url": ISSUE,
        "path": ISSUE,
        "line": 1,
    }
    back = Finding.model_validate_json(text)
    assert back == finding
    assert isinstance(back.locations[1], WikiLocation)
    assert isinstance(back.locations[2], TextLocation)


def test_a_location_without_kind_is_a_file_as_in_older_reports() -> None:
    adapter: TypeAdapter[FindingLocation] = TypeAdapter(FindingLocation)
    old = adapter.validate_python({"path": "app.py", "line": 3, "commit": None})
    assert old == Location(path="app.py", line=3)
    with pytest.raises(ValidationError, match="github_location_type"):
        adapter.validate_python({"path": "app.py", "line": 3, "github_location_type": "commit"})


def test_a_text_location_is_text_and_its_derived_fields_must_agree() -> None:
    with pytest.raises(ValidationError, match="file location, not text; use a wiki location"):
        TextLocation(type=GitHubLocationType.WIKI_COMMIT, url=WIKI)
    with pytest.raises(ValidationError, match="file location, not text; use a file location"):
        TextLocation(type=GitHubLocationType.COMMIT, url=ISSUE)
    with pytest.raises(ValidationError, match="path is its url"):
        TextLocation.model_validate({"type": "issue_body", "url": ISSUE, "path": "app.py"})
    with pytest.raises(ValidationError, match="line is 1"):
        TextLocation.model_validate({"type": "issue_body", "url": ISSUE, "line": 4})
    with pytest.raises(ValidationError, match="url"):
        TextLocation(type=GitHubLocationType.ISSUE_BODY, url="")


def test_only_a_file_of_the_tree_has_a_repository_path() -> None:
    assert in_file(Location(path="app.py", line=1)) == "app.py"
    assert in_file(WikiLocation(path="Home.md", line=1, commit="c" * 40, url=WIKI)) is None
    assert in_file(TextLocation(type=GitHubLocationType.PULL_REQUEST_BODY, url=ISSUE)) is None


@pytest.mark.parametrize(
    ("kind", "source", "reports"),
    [
        (FindingKind.DEPENDENCY, DetectSecretsSource(), "'detect-secrets', which reports secret"),
        (FindingKind.DEPENDENCY, ALERT, "'github-alert', which reports secret"),
        (FindingKind.SECRET, OSV, "'osv', which reports dependency"),
    ],
)
def test_a_kind_that_contradicts_the_source_is_rejected(
    kind: FindingKind, source: FindingSource, reports: str
) -> None:
    with pytest.raises(
        ValidationError, match=f"kind '{kind.value}' contradicts its source {reports}"
    ):
        _finding(kind=kind, source=source)


def test_kinds_that_agree_with_their_source_are_accepted() -> None:
    assert _finding(source=ALERT).kind is FindingKind.SECRET
    dependency = _finding(kind=FindingKind.DEPENDENCY, source=OSV)
    assert dependency.effective_secret_type is None
