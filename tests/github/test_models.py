"""The GitHub value objects: repository names, filters, and an alert that never shows
its secret."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.tokens import github_token
from thresher.errors import ExitCode, UsageError
from thresher.findings.model import AlertState, AlertValidity, GitHubLocationType
from thresher.github.models import Alert, AlertFilters, RepoRef, TextLocation


def _alert(**overrides: object) -> Alert:
    fields: dict[str, object] = {
        "repo": "octo/app",
        "number": 3,
        "url": "https://api.github.com/repos/octo/app/secret-scanning/alerts/3",
        "html_url": "https://github.com/octo/app/security/secret-scanning/3",
        "locations_url": "https://api.github.com/repos/octo/app/secret-scanning/alerts/3/locations",
        "state": "open",
        "secret_type": "github_personal_access_token",
        "validity": "active",
        "created_at": "2026-01-05T09:00:00Z",
        "updated_at": "2026-01-06T09:00:00Z",
        "secret": github_token(seed=41),
    }
    fields.update(overrides)
    return Alert.model_validate(fields)


def test_repo_ref_parses_owner_and_name() -> None:
    ref = RepoRef.parse("octo-org/payments.api")
    assert (ref.owner, ref.name, ref.full_name) == (
        "octo-org",
        "payments.api",
        "octo-org/payments.api",
    )


@pytest.mark.parametrize(
    "bad", ["octo", "octo/", "/app", "octo/app/extra", "-octo/app", "octo/..", "oc to/app"]
)
def test_repo_ref_rejects_a_malformed_name_naming_the_flag(bad: str) -> None:
    with pytest.raises(UsageError) as caught:
        RepoRef.parse(bad)
    assert "--repo" in caught.value.message
    assert caught.value.exit_code is ExitCode.USAGE


def test_alert_never_shows_its_secret_in_repr_str_or_dumps() -> None:
    alert = _alert()
    secret = alert.secret
    assert secret and len(secret) == 40
    for text in (
        repr(alert),
        str(alert),
        json.dumps(alert.model_dump(mode="json")),
        alert.model_dump_json(),
        repr(alert.model_dump()),
    ):
        assert secret not in text
    assert "secret" not in alert.model_dump()


def test_alert_parses_enums_and_times_as_utc() -> None:
    alert = _alert()
    assert alert.state is AlertState.OPEN
    assert alert.validity is AlertValidity.ACTIVE
    assert alert.created_at == datetime(2026, 1, 5, 9, tzinfo=UTC)
    assert alert.repo_html_url == "https://github.com/octo/app"
    assert alert.key == "octo/app#3"


def test_text_location_refuses_a_file_kind() -> None:
    with pytest.raises(ValueError, match="file location"):
        TextLocation(type=GitHubLocationType.COMMIT, url="https://x")


def test_filters_keep_alerts_created_or_updated_since() -> None:
    since = AlertFilters(since=datetime(2026, 1, 6, 9))  # naive means UTC
    assert since.since == datetime(2026, 1, 6, 9, tzinfo=UTC)
    assert since.admits(_alert())
    assert not since.admits(_alert(updated_at="2026-01-05T10:00:00Z"))
    assert not AlertFilters(validities=(AlertValidity.INACTIVE,)).admits(_alert())
    assert AlertFilters(state=None).admits(_alert(state="resolved", resolution="revoked"))
    assert not AlertFilters().admits(_alert(state="resolved", resolution="revoked"))
