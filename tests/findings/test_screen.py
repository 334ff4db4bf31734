"""The screen in a scan: what it drops is counted by reason and logged without its
value, what it keeps is untouched, and it can be turned off to compare with
detect-secrets itself. Credentials are generated at test time."""

from __future__ import annotations

import logging
import random
import string
from pathlib import Path

import pytest

from tests.tokens import random_secret
from thresher.findings.detection import Detection, Origin
from thresher.findings.screen import DropReason, drop_phrase, screen, screened
from thresher.scoring.shape import type_features
from thresher.sources.scan import ScanOptions, ScanResult, scan

TOKEN = random_secret(32, seed=201)
PASSWORD = random_secret(16, seed=202)


def _crypt(length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(string.ascii_letters + string.digits + "./") for _ in range(length))


def run(root: Path, **options: object) -> ScanResult:
    return scan(ScanOptions(root=root, workers=1, **options))  # type: ignore[arg-type]


def _tree(root: Path) -> None:
    (root / "tox.ini").write_text(
        "[testenv]\ndeps =\n    py3.11-foo-notoken-v1: somepkg==2.3\n"
        "    py3.11-foo-token-v2: otherpkg>=1.0,<2\n"
    )
    (root / "models.py").write_text(
        'class Usage:\n    input_tokens: "int | None"\n'
        "max_tokens = 100000000\n"
        f'api_token = "{TOKEN}"\n'
        f'passwordless_login = "{PASSWORD}"\n'
        f'password = "{PASSWORD}"\n'
    )


def test_what_the_screen_drops_is_counted_and_what_it_keeps_stays(tmp_path: Path) -> None:
    _tree(tmp_path)
    result = run(tmp_path)
    lines = {(loc.path, loc.line) for f in result.findings for loc in f.locations}
    assert ("models.py", 4) in lines  # the generated api token
    assert ("models.py", 6) in lines  # the password
    assert not {("tox.ini", 3), ("tox.ini", 4), ("models.py", 2), ("models.py", 3)} & lines
    dropped = result.stats.dropped_by_reason
    assert dropped[DropReason.VERSION_PIN] >= 2
    assert dropped[DropReason.TYPE_ANNOTATION] >= 1
    assert dropped[DropReason.COUNT_OR_CODE] >= 1
    assert "dropped" in result.describe()
    assert "version pin" in result.describe()
    # The password stays, under a whole-word key; the same value under
    # ``passwordless_login`` is not reported from that line.
    password = next(f for f in result.findings if result.vault.get(f.id) == PASSWORD)
    assert [(loc.path, loc.line) for loc in password.locations] == [("models.py", 6)]


def test_the_screen_turned_off_keeps_every_detection(tmp_path: Path) -> None:
    _tree(tmp_path)
    raw = run(tmp_path, screen=False)
    screened_scan = run(tmp_path)
    assert raw.stats.dropped_by_reason == {}
    assert len(raw.candidates) > len(screened_scan.candidates)
    assert raw.stats.raw_candidates == screened_scan.stats.raw_candidates + sum(
        screened_scan.stats.dropped_by_reason.values()
    )


def test_a_drop_is_logged_by_place_and_reason_never_by_value(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    version = f"{random.Random(3).randrange(10, 99)}.{random.Random(4).randrange(10, 99)}"
    (tmp_path / "tox.ini").write_text(f"[testenv]\ndeps =\n    py3-notoken: pkg=={version}\n")
    with caplog.at_level(logging.DEBUG, logger="thresher.sources.detect_secrets"):
        run(tmp_path)
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("dropped")]
    assert logged == ["dropped generic-token at tox.ini:3: version pin"]
    assert version not in caplog.text


def test_an_unquoted_call_in_terraform_is_an_expression(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(
        'locals {\n  cluster_auth_token = try(time_sleep.this[0].triggers["data"], "")\n'
        f'  api_token = "{TOKEN}"\n}}\n'
    )
    result = run(tmp_path)
    assert [result.vault.get(f.id) for f in result.findings] == [TOKEN]
    assert result.stats.dropped_by_reason.get(DropReason.EXPRESSION, 0) >= 1


def test_verbose_describe_names_each_drop(tmp_path: Path) -> None:
    _tree(tmp_path)
    text = run(tmp_path).describe(verbose=True)
    assert "  dropped generic-token at tox.ini:3: version pin" in text.splitlines()
    assert PASSWORD not in text
    assert TOKEN not in text


def test_a_password_hash_is_kept_as_a_finding_and_marked_as_a_hash(tmp_path: Path) -> None:
    """A hash is no live credential but is crackable offline: the ``password-hash`` rule
    reports it on purpose and the scorer reads it as a hash (``value_crypt_hash``)."""
    bcrypt = "$2y$10$" + _crypt(53, 7)
    django = "pbkdf2_sha256$260000$" + _crypt(22, 8).replace(".", "a").replace("/", "b")
    (tmp_path / "values.yaml").write_text(
        f'bcrypt_password: "{bcrypt}"\ndjango_password: "{django}"\npassword: "{PASSWORD}"\n'
    )
    result = run(tmp_path)
    values = {result.vault.get(f.id) for f in result.findings}
    assert {bcrypt, django, PASSWORD} <= values
    assert result.stats.dropped_by_reason == {}
    assert type_features(bcrypt, "")["value_crypt_hash"] == 1.0
    assert type_features(django, "")["value_crypt_hash"] == 1.0
    htpasswd = "admin:$apr1$" + _crypt(8, 9) + "$" + _crypt(22, 10)
    assert type_features(htpasswd, "")["value_crypt_hash"] == 1.0
    legacy = "sha1$" + _crypt(5, 11).replace(".", "a").replace("/", "b") + "$" + "ab12" * 10
    assert type_features(legacy, "")["value_crypt_hash"] == 1.0
    # A random password, or one after a user name, is no hash.
    assert "value_crypt_hash" not in type_features(PASSWORD, "")
    assert "value_crypt_hash" not in type_features("admin:" + PASSWORD, "")


def test_only_generic_detectors_are_screened() -> None:
    generic = frozenset({"generic-token"})
    assert screened(Detection("a", 1, "Secret Keyword", "v", "v"), generic)
    assert screened(Detection("a", 1, "generic-token", "v", "v", Origin.RULES), generic)
    assert not screened(Detection("a", 1, "GitHub Token", "v", "v"), generic)
    assert not screened(Detection("a", 1, "slack-webhook", "v", "v", Origin.RULES), generic)
    assert not screened(Detection("a", 1, "my-rule", "v", "v", Origin.CUSTOM), generic)


def test_a_custom_rule_is_never_screened() -> None:
    found = Detection("tox.ini", 1, "my-rule", "pkg==2.3", "pkg==2.3", Origin.CUSTOM)
    kept, dropped = screen([found], ["token: pkg==2.3"], frozenset(), code=False)
    assert kept == [found]
    assert dropped == []


def test_drop_phrase() -> None:
    assert drop_phrase({}) == ""
    counts = {DropReason.VERSION_PIN: 2, DropReason.TYPE_ANNOTATION: 1}
    assert drop_phrase(counts) == "dropped 3 non-candidates (2 version pin, 1 type annotation)"
