"""The rule catalog: every secret type has help; rule ids are stable slugs."""

from __future__ import annotations

import pytest

from tests.reports.builders import finding_for
from tests.tokens import github_token
from thresher.findings import FindingKind, SecretType
from thresher.reports.catalog import DEPENDENCY_HELP, SECRET_HELP, help_for, rule_name, rule_slug


def test_every_secret_type_has_help() -> None:
    assert set(SECRET_HELP) == set(SecretType)
    for entry in [*SECRET_HELP.values(), DEPENDENCY_HELP]:
        assert entry.title and entry.description and entry.remediation


@pytest.mark.parametrize(
    ("rule_id", "slug", "name"),
    [
        ("GitHub Token", "thresher/github-token", "GitHubToken"),
        (
            "github_personal_access_token",
            "thresher/github-personal-access-token",
            "GithubPersonalAccessToken",
        ),
        ("GHSA-abcd-1234", "thresher/ghsa-abcd-1234", "GHSAAbcd1234"),
        ("!!!", "thresher/unknown", "Unknown"),
    ],
)
def test_rule_slug_and_name(rule_id: str, slug: str, name: str) -> None:
    assert rule_slug(rule_id) == slug
    assert rule_name(rule_id) == name


def test_help_follows_kind_and_type() -> None:
    finding = finding_for(github_token(seed=1))
    assert help_for(finding).title == "GitHub token"
    dependency = finding.model_copy(update={"kind": FindingKind.DEPENDENCY})
    assert help_for(dependency) is DEPENDENCY_HELP
