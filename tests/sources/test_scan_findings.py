"""From detections to findings: de-duplication, naming, severity, secrecy,
baselines and custom rules."""

from __future__ import annotations

import hashlib
import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tokens import github_token, random_secret
from thresher.findings import Severity
from thresher.findings.detection import Origin
from thresher.redaction.redactor import redact_value
from thresher.sources.scan import CustomRule, ScanError, ScanOptions, ScanResult, scan


def run(root: Path, **options: object) -> ScanResult:
    return scan(ScanOptions(root=root, workers=1, **options))  # type: ignore[arg-type]


def test_one_value_in_many_places_is_one_finding(tmp_path: Path) -> None:
    token = github_token(seed=31)
    (tmp_path / "b.py").write_text(f'A = "{token}"\nB = 1\nC = "{token}"\n')
    (tmp_path / "a.yaml").write_text(f"token: {token}\n")
    result = run(tmp_path)
    assert len(result.findings) == 1
    finding = result.findings[0]
    assert [(loc.path, loc.line) for loc in finding.locations] == [
        ("a.yaml", 1),
        ("b.py", 1),
        ("b.py", 3),
    ]
    # The quoted token is also a high-entropy string: the provider type wins.
    assert finding.rule_id == "GitHub Token"
    assert finding.severity is Severity.HIGH
    digest = hashlib.sha256(token.encode()).hexdigest()
    assert finding.fingerprint == f"sha256:{digest}"
    material = f"secret{finding.fingerprint}a.yaml:1"
    assert finding.id == "s-" + hashlib.sha256(material.encode()).hexdigest()[:12]
    assert finding.redacted == redact_value(token)
    assert result.vault.get(finding.id) == token
    assert result.stats.raw_candidates >= 3


def test_values_are_whole_tokens_where_detect_secrets_reports_a_prefix(tmp_path: Path) -> None:
    """detect-secrets reports every GitHub token as "ghp" (its regex's group);
    different tokens must still be different findings holding the token."""
    one, two, three = (github_token(seed=s) for s in (81, 82, 83))
    (tmp_path / "t.py").write_text(f"a = {one} and {two}\nb = {three}\n")
    (tmp_path / "art.txt").write_text(f'key: AKC{random_secret(14, seed=84)}"\n')
    result = run(tmp_path)
    values = result.vault.values()
    assert sorted(v for v in values if v.startswith("ghp_")) == sorted([one, two, three])
    assert f"AKC{random_secret(14, seed=84)}" in values
    github = [c for c in result.candidates if c.type == "GitHub Token"]
    assert len(github) == 1  # detect-secrets' own (file, hash, type) granularity
    assert github[0].hashed_secret == hashlib.sha1(b"ghp").hexdigest()


def test_severity_by_type(tmp_path: Path) -> None:
    rng = random.Random(5)
    hexa = "".join(rng.choice("0123456789abcdef") for _ in range(40))
    (tmp_path / "k.py").write_text(
        f'password = "{random_secret(14, seed=4)}"\n'
        f'digest_value = "{hexa}"\n'
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        f"{random_secret(60, seed=6)}\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
    )
    by_rule = {f.rule_id: f.severity for f in run(tmp_path).findings}
    assert by_rule == {
        "Secret Keyword": Severity.MEDIUM,
        "Hex High Entropy String": Severity.LOW,
        "Private Key": Severity.CRITICAL,
    }


def test_two_private_keys_are_two_findings_holding_their_blocks(tmp_path: Path) -> None:
    blocks = [
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join(random_secret(64, seed=seed + i) for i in range(3))
        + "\n-----END RSA PRIVATE KEY-----"
        for seed in (40, 50)
    ]
    (tmp_path / "one.pem").write_text(blocks[0] + "\n")
    (tmp_path / "two.pem").write_text(blocks[1] + "\n")
    result = run(tmp_path)
    assert len(result.findings) == 2
    assert sorted(result.vault.values()) == sorted(blocks)
    # detect-secrets' own view (and hash) stays the header.
    expected = hashlib.sha1(b"BEGIN RSA PRIVATE KEY").hexdigest()
    ours = {c.hashed_secret for c in result.candidates if c.origin is Origin.DETECT_SECRETS}
    assert ours == {expected}


def test_raw_values_live_only_in_the_vault(tmp_path: Path) -> None:
    token, password = github_token(seed=61), random_secret(20, seed=62)
    (tmp_path / "s.py").write_text(f'T = "{token}"\npassword = "{password}"\n')
    result = run(tmp_path)
    assert len(result.findings) == 2
    dumped = json.dumps([f.model_dump(mode="json") for f in result.findings])
    for shown in (dumped, repr(result), str(result.findings), repr(result.candidates)):
        assert token not in shown
        assert password not in shown
    assert sorted(result.vault.values()) == sorted([token, password])


def test_baseline_entries_are_skipped(tmp_path: Path) -> None:
    known, fresh = github_token(seed=71), github_token(seed=72)
    (tmp_path / "a.py").write_text(f'K = "{known}"\n')
    baseline = tmp_path / ".secrets.baseline"
    with baseline.open("w") as out:
        subprocess.run(
            [str(Path(sys.executable).with_name("detect-secrets")), "scan", "--all-files"],
            cwd=tmp_path,
            check=True,
            stdout=out,
        )
    assert run(tmp_path, baseline=baseline).findings == ()
    # Later: the known token is copied elsewhere and a fresh one arrives.
    (tmp_path / "b.py").write_text(f'K = "{known}"\n')
    (tmp_path / "c.py").write_text(f'F = "{fresh}"\n')
    result = run(tmp_path, baseline=baseline)
    found = {f.redacted: [(loc.path, loc.line) for loc in f.locations] for f in result.findings}
    assert found == {redact_value(known): [("b.py", 1)], redact_value(fresh): [("c.py", 1)]}
    assert all(c.path != "a.py" for c in result.candidates)


def test_bad_baselines_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(ScanError, match=r"--baseline .*missing\.json: cannot read"):
        run(tmp_path, baseline=missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ScanError, match=r"--baseline .*broken\.json: not valid JSON"):
        run(tmp_path, baseline=broken)
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"results": {"a.py": [{"line_number": 1}]}}')
    with pytest.raises(ScanError, match=r"wrong\.json: an entry for 'a.py' lacks"):
        run(tmp_path, baseline=wrong)
    shapeless = tmp_path / "list.json"
    shapeless.write_text("[]")
    with pytest.raises(ScanError, match=r"list\.json: not a detect-secrets baseline"):
        run(tmp_path, baseline=shapeless)


def test_custom_rules(tmp_path: Path) -> None:
    rng = random.Random(9)
    internal = "acme_" + "".join(rng.choice(string.ascii_letters) for _ in range(24))
    (tmp_path / "c.txt").write_text(
        f"deploy with {internal} today\n"
        f"again {internal}\n"
        "ticket ACME-1234 and ACME-99\n"
        f"skip {internal[:-1]}Q  # pragma: allowlist secret\n"
    )
    rules = (
        CustomRule("acme-token", r"\bacme_[A-Za-z]{24}\b", Severity.CRITICAL),
        CustomRule("acme-ticket", r"ticket (?P<secret>ACME-\d+)", Severity.LOW),
    )
    result = run(tmp_path, custom_rules=rules)
    by_rule = {f.rule_id: f for f in result.findings}
    assert set(by_rule) == {"acme-token", "acme-ticket"}
    assert by_rule["acme-token"].severity is Severity.CRITICAL
    assert [loc.line for loc in by_rule["acme-token"].locations] == [1, 2]
    assert result.vault.get(by_rule["acme-token"].id) == internal
    assert result.vault.get(by_rule["acme-ticket"].id) == "ACME-1234"
    assert by_rule["acme-ticket"].severity is Severity.LOW


def test_custom_rule_errors_name_the_rule(tmp_path: Path) -> None:
    with pytest.raises(ScanError, match="custom rule 'broken': the pattern does not compile"):
        run(tmp_path, custom_rules=(CustomRule("broken", "(unclosed"),))
    with pytest.raises(ScanError, match="custom rule 'twice' is defined twice"):
        run(tmp_path, custom_rules=(CustomRule("twice", "a"), CustomRule("twice", "b")))
