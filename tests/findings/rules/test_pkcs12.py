"""pkcs12-base64: a keystore as base64, under a keystore's name only. The blobs are
random bytes behind a DER header, generated here."""

from __future__ import annotations

import base64
import json

import pytest

from tests.findings.rules.casekit import der_blob
from thresher.findings.rules.book import builtin_rules
from thresher.findings.rules.matcher import Rulebook

RULE = next(rule for rule in builtin_rules() if rule.id == "pkcs12-base64")


def values(path: str, text: str) -> list[str]:
    lines = text.split("\n")
    return [hit.value for hit in Rulebook([RULE]).scan(path, lines, range(len(lines)))]


@pytest.mark.parametrize(
    ("path", "template"),
    [
        ("application.yml", "server:\n  ssl:\n    key-store: {v}\n"),
        ("settings.json", json.dumps({"pfx": "{v}"})),
        ("app.properties", "javax.net.ssl.trustStore={v}"),
        (".env", "CLIENT_P12_BASE64='{v}'"),
        ("values.yaml", "signing:\n  pkcs12Bundle: {v}\n"),
    ],
)
def test_a_keystore_blob_under_a_keystore_name_is_found(path: str, template: str) -> None:
    blob = der_blob(1500, seed=31)
    assert values(path, template.replace("{v}", blob)) == [blob]


def test_what_is_not_a_keystore_blob_is_not_found() -> None:
    blob = der_blob(1500, seed=32)
    assert values("app.yml", f"certificate: {blob}\ncert: {blob}\nca_bundle: {blob}") == []
    assert values("app.yml", f"keystore: {der_blob(200, seed=33)}") == []  # too short
    other = base64.b64encode(b"\x04\x82" + bytes(1500)).decode()  # not a SEQUENCE
    assert values("app.yml", f"keystore: {other}") == []
    assert values("app.yml", f"keystore: {blob[:-3]}!{blob[-2:]}") == []  # not base64
    assert values("app.yml", "keystore: classpath:keystore.p12") == []
    assert values("app.yml", f"keystore: mii{blob[3:]}") == []  # MII is case-sensitive
