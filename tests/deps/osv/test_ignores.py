"""osv-scanner.toml [[IgnoredVulns]]: id or alias, ignoreUntil expiry, reason kept."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.deps.osv.advisories import JINJA2, LODASH
from thresher.deps.osv import load_ignores, parse_record
from thresher.errors import ConfigError

NOW = datetime(2025, 6, 1, tzinfo=UTC)


def test_ignores_by_id_or_alias_until_they_expire(tmp_path: Path) -> None:
    config = tmp_path / "osv-scanner.toml"
    config.write_text(
        "[[IgnoredVulns]]\n"
        'id = "CVE-2020-28493"\n'
        "ignoreUntil = 2025-12-31\n"
        'reason = "urlize is never called"\n'
        "\n[[IgnoredVulns]]\n"
        'id = "GHSA-35jh-r3h4-6jhm"\n'
        "ignoreUntil = 2024-01-01T00:00:00Z\n"
        'reason = "expired exception"\n'
    )
    ignores = load_ignores(config)
    jinja = parse_record(JINJA2, origin="test")
    lodash = parse_record(LODASH, origin="test")
    kept, ignored = ignores.split([jinja, lodash], NOW)
    assert [v.id for v in kept] == ["GHSA-35jh-r3h4-6jhm"]  # its entry expired
    assert [(v.id, entry.reason) for v, entry in ignored] == [
        ("GHSA-g3rq-g295-4j3m", "urlize is never called")
    ]
    assert ignores.match(jinja, datetime(2026, 1, 1, tzinfo=UTC)) is None


def test_an_entry_without_ignore_until_never_expires(tmp_path: Path) -> None:
    config = tmp_path / "osv-scanner.toml"
    config.write_text('[[IgnoredVulns]]\nid = "GHSA-g3rq-g295-4j3m"\n')
    (entry,) = load_ignores(config).entries
    assert entry.ignore_until is None and entry.reason == ""
    assert load_ignores(config).match(parse_record(JINJA2, origin="t"), NOW) == entry


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[IgnoredVulns]]\nreason = 'x'\n", r"#1 has no id"),
        ("[[IgnoredVulns]]\nid = 'X'\nignoreUntil = 'soon'\n", "ignoreUntil must be"),
        ("IgnoredVulns = 3\n", "array of tables"),
        ("[[IgnoredVulns]\n", "not valid TOML"),
    ],
)
def test_a_malformed_file_is_a_config_error_naming_it(
    tmp_path: Path, text: str, message: str
) -> None:
    config = tmp_path / "osv-scanner.toml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_ignores(config)
    assert str(config) in str(caught.value)
