"""thresher's rules as a finding source: merged with detect-secrets by value, named in
``detected_by``, silenced like detect-secrets, and off when asked."""

from __future__ import annotations

from pathlib import Path

from tests.tokens import github_token, random_secret
from thresher.findings import DetectSecretsSource, SecretType, Severity, ThresherRulesSource
from thresher.findings.detection import Origin
from thresher.findings.rules.book import Rule
from thresher.sources.scan import CustomRule, ScanOptions, ScanResult, scan


def run(root: Path, **options: object) -> ScanResult:
    return scan(ScanOptions(root=root, workers=1, **options))  # type: ignore[arg-type]


def test_a_value_both_sources_report_is_one_finding_under_detect_secrets_rule(
    tmp_path: Path,
) -> None:
    token = github_token(seed=81)
    (tmp_path / "ci.py").write_text(f'TOKEN = "{token}"\n')
    result = run(tmp_path)
    assert len(result.findings) == 1
    finding = result.findings[0]
    assert finding.rule_id == "GitHub Token"  # the SARIF rule detect-secrets always had
    assert isinstance(finding.source, DetectSecretsSource)
    assert "detect-secrets:GitHub Token" in finding.detected_by
    assert "thresher-rules:github-token" in finding.detected_by
    assert result.vault.get(finding.id) == token


def test_a_value_only_the_rules_see_is_their_finding(tmp_path: Path) -> None:
    """A password on a command line: detect-secrets has no keyword rule for it."""
    (tmp_path / "deploy.sh").write_text("set -e\n\ntool login --user ci --password s3cr3tword\n")
    result = run(tmp_path)
    assert [f.rule_id for f in result.findings] == ["generic-cli-flag"]
    finding = result.findings[0]
    assert isinstance(finding.source, ThresherRulesSource)
    assert finding.severity is Severity.MEDIUM
    assert finding.effective_secret_type is SecretType.PASSWORD
    assert finding.detected_by == ("thresher-rules:generic-cli-flag",)
    assert [(c.line, c.origin) for c in result.candidates] == [(3, Origin.RULES)]
    assert result.vault.get(finding.id) == "s3cr3tword"


def test_a_value_detect_secrets_reads_with_its_comment_still_meets_the_rules(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.env").write_text("DB_PASS=hunter22  # rotated in May\n")
    findings = run(tmp_path).findings
    assert len(findings) == 1
    assert findings[0].rule_id == "Secret Keyword"
    assert "thresher-rules:generic-password" in findings[0].detected_by


def test_every_line_a_rule_hits_is_a_candidate(tmp_path: Path) -> None:
    (tmp_path / "a.env").write_text("DB_PASS=hunter22\nX=1\nDB_PASS=hunter22\n")
    result = run(tmp_path)
    assert len(result.findings) == 1
    assert [loc.line for loc in result.findings[0].locations] == [1, 3]
    assert sorted(c.line for c in result.candidates) == [1, 3]


def test_builtin_rules_can_be_turned_off(tmp_path: Path) -> None:
    (tmp_path / "deploy.sh").write_text("tool login --password s3cr3tword\n")
    assert len(run(tmp_path).findings) == 1
    assert run(tmp_path, builtin_rules=False).findings == ()


def test_pragma_silences_the_rules_unless_pragmas_are_not_honoured(tmp_path: Path) -> None:
    (tmp_path / "a.sh").write_text("tool --password s3cr3tword  # pragma: allowlist secret\n")
    assert run(tmp_path).findings == ()
    assert [f.rule_id for f in run(tmp_path, honour_pragmas=False).findings] == ["generic-cli-flag"]


def test_files_detect_secrets_skips_by_name_are_skipped_by_the_rules(tmp_path: Path) -> None:
    (tmp_path / "package-lock.json").write_text('{"password": "hunter22"}\n')
    assert run(tmp_path).findings == ()


def test_a_custom_rule_in_the_rule_format_runs_with_its_fields(tmp_path: Path) -> None:
    value = random_secret(20, seed=91)
    (tmp_path / "a.txt").write_text(f"acme key: {value}\nother acme: {value[:6]}\n")
    rule = Rule(
        id="acme-key",
        pattern=r"acme\s+key:\s*(?P<v>\w+)",
        value_group="v",
        keywords=("acme",),
        min_entropy=3.0,
        severity=Severity.CRITICAL,
    )
    custom = CustomRule(id=rule.id, pattern=rule.pattern, severity=rule.severity, rule=rule)
    result = run(tmp_path, custom_rules=(custom,), builtin_rules=False)
    assert [(f.rule_id, f.severity) for f in result.findings] == [("acme-key", Severity.CRITICAL)]
    assert result.vault.get(result.findings[0].id) == value


def test_a_chunked_file_reports_the_rules_once_per_line(tmp_path: Path) -> None:
    lines = [f"line {i}" for i in range(4000)]
    lines[1234] = "DB_PASS=hunter22"
    (tmp_path / "big.env").write_text("\n".join(lines) + "\n")
    result = run(tmp_path, chunk_bytes=4096)
    assert [(c.path, c.line) for c in result.candidates] == [("big.env", 1235)]


def test_a_rule_hit_repr_does_not_show_its_value() -> None:
    from thresher.findings.rules.matcher import RuleHit

    value = "".join(chr(ord("a") + (i * 7) % 26) for i in range(24))
    assert value not in repr(RuleHit(index=0, rule_id="generic-password", value=value))
