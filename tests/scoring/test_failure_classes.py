"""The failure classes of issue 7, each as a small fixture of our own.

Two levels: a whole offline scan of a small repository (scanner -> scorer ->
policy -> decision, exactly what a user runs), and the scorer and policy on a
hand-built context for the shapes detect-secrets' own filters usually drop
before thresher sees them (so the scorer must still be right when a custom rule
or another scanner hands them over).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from thresher.config.settings import Settings
from thresher.findings.results import Classification
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.features import CandidateContext
from thresher.scoring.model import shipped_scorer
from thresher.scoring.policy import offline_call
from thresher.tribunal.decisions import Decision

NOT_REAL = {Classification.TEST, Classification.NOT_SECRET}


def _private_key() -> str:
    """A freshly generated RSA key: never committed, never live."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl not found")
    return subprocess.run(
        ["openssl", "genrsa", "-traditional", "2048"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _scan(root: Path, tmp_path: Path) -> dict[str, Decision]:
    outcome = run_scan(ScanRequest(root=root, runs_dir=tmp_path / "runs"), Settings(), environ={})
    return {
        f"{d.finding.locations[0].path}:{d.finding.locations[0].line}": d
        for d in outcome.report.decisions
    }


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Decision]]:
    root = tmp_path_factory.mktemp("repo")
    _write(
        root,
        {
            # A code fragment the keyword plugin captures: the "value" is an expression.
            "src/auth.go": "package auth\n\nfunc (c *client) Login() error {\n"
            "\tpassword := c.cfg.Password\n\treturn nil\n}\n",
            # Hashes and signatures in structured metadata (TUF-style root metadata).
            "metadata/root.json": '{\n  "signatures": [\n    {\n      "keyid": '
            '"2f64fb5eac0cf94dd39bb45308b98920055e9a0d8e012a7220787834c60aef97",\n'
            '      "sig": "3045022100f7d4e4d4a1a52b5ad1f4a5b4c0b5f5cf2e0e8d9e6f1e1f2a1b8c7d6e5f'
            '4a3b2c1d02201a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809"\n'
            "    }\n  ]\n}\n",
            # UI and i18n strings.
            "locales/en.yml": 'en:\n  login:\n    password: "Password"\n'
            '    password_placeholder: "Enter password"\n'
            '    password_hint: "Your password must be at least 8 characters"\n',
            # A weak but real password in a deployable config.
            "docker-compose.yml": "services:\n  db:\n    image: postgres:16\n"
            "    environment:\n      POSTGRES_PASSWORD: admin\n",
            # Placeholders in templates.
            "config/app.yml.dist": "secret_key: changeme\n",
            "config/settings.example.yml": "database:\n  password: your-password-here\n",
            # A key in a certificate directory that only test code references.
            "certs/server.key": _private_key(),
            "internal/server_test.go": "package internal\n\nfunc TestTLS(t *testing.T) {\n"
            '\tload("../certs/server.key")\n}\n',
        },
    )
    return root, _scan(root, tmp_path_factory.mktemp("out"))


def test_code_fragment_is_not_a_secret(repository: tuple[Path, dict[str, Decision]]) -> None:
    _, decisions = repository
    # The screen drops it before any decision (``findings.screen``: an expression);
    # were it a finding, the scorer must call it not a secret.
    decision = decisions.get("src/auth.go:4")
    assert decision is None or decision.classification is Classification.NOT_SECRET


def test_structured_hashes_are_not_secrets(
    repository: tuple[Path, dict[str, Decision]],
) -> None:
    _, decisions = repository
    for key in ("metadata/root.json:4", "metadata/root.json:5"):
        assert decisions[key].classification is Classification.NOT_SECRET, key


def test_ui_strings_are_not_secrets(repository: tuple[Path, dict[str, Decision]]) -> None:
    _, decisions = repository
    for line in (3, 4, 5):
        decision = decisions[f"locales/en.yml:{line}"]
        assert decision.classification is Classification.NOT_SECRET, line


def test_weak_password_in_deployable_config_is_never_dismissed_offline(
    repository: tuple[Path, dict[str, Decision]],
) -> None:
    """Offline `real` is a decisive call only: a weak password in deployable config is
    `real`, or uncertain and escalated so that a model (or `--fail-on uncertain`)
    decides; it is never a decisive dismissal."""
    _, decisions = repository
    decision = decisions["docker-compose.yml:5"]
    assert decision.classification is Classification.REAL or (
        decision.escalation is not None and decision.escalation.would_escalate
    )
    assert decision.assessment is not None and decision.assessment.p_real > 0.3


def test_placeholders_in_templates_are_not_real(
    repository: tuple[Path, dict[str, Decision]],
) -> None:
    _, decisions = repository
    assert decisions["config/app.yml.dist:1"].classification is Classification.NOT_SECRET
    assert decisions["config/settings.example.yml:2"].classification in NOT_REAL


def test_key_only_tests_reference_is_test_data(
    repository: tuple[Path, dict[str, Decision]],
) -> None:
    _, decisions = repository
    decision = decisions["certs/server.key:1"]
    assert decision.classification in NOT_REAL
    assert decision.assessment is not None
    # Dismissed because only test code names the file, not because of its path, and
    # escalated: reference lookup is evidence for a model, not a decisive dismissal.
    assert decision.assessment.only_tests_reference
    assert any(f.feature == "referenced_by_tests_only" for f in decision.assessment.top_features)
    assert decision.escalation is not None and decision.escalation.would_escalate


def test_the_same_key_referenced_by_code_stays_real(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(
        root,
        {
            "certs/server.key": _private_key(),
            "cmd/server/main.go": 'package main\n\nfunc main() {\n\tload("certs/server.key")\n}\n',
        },
    )
    decision = _scan(root, tmp_path)["certs/server.key:1"]
    assert decision.classification is Classification.REAL


def test_checksum_valid_token_is_never_confidently_test_by_path(tmp_path: Path) -> None:
    from tests.tokens import github_token

    root = tmp_path / "repo"
    _write(root, {"demo/app/settings.py": f'GITHUB_TOKEN = "{github_token()}"\n'})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    decision = next(iter(_scan(root, tmp_path).values()))
    assert decision.escalation is not None
    if decision.classification is not Classification.REAL:
        assert decision.escalation.would_escalate
        assert "checksum-valid" in decision.escalation.reason


def _call(value: str, line: str, path: str, rule: str = "Secret Keyword") -> Classification:
    scorer = shipped_scorer()
    ctx = CandidateContext(value=value, rule_id=rule, path=path, line=line, paths=(path,))
    return offline_call(scorer.assess(ctx), [], scorer.operating_point).classification


@pytest.mark.parametrize(
    ("value", "line", "path"),
    [
        ("func", "\tpassword := func (c *client) {", "pkg/client/client.go"),
        ("password)", "    if (password) {", "src/login.js"),
        ("getSecret(ctx)", "    secret = getSecret(ctx)", "app/service.py"),
    ],
)
def test_code_fragments_from_any_scanner(value: str, line: str, path: str) -> None:
    assert _call(value, line, path) in NOT_REAL


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("${DB_PASS}", "  password: ${DB_PASS}"),
        ("%(password)s", "password = %(password)s"),
        ("{{ .Values.db.password }}", '  password: "{{ .Values.db.password }}"'),
        ("{user}", 'password: "{user}"'),
    ],
)
def test_references_from_any_scanner(value: str, line: str) -> None:
    assert _call(value, line, "deploy/app.yaml") in NOT_REAL


def test_lockfile_integrity_is_not_a_secret() -> None:
    value = (
        "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQuQaF8zgW"
        "bPSbTY8KxXqnM7uZc4FrH3Bnq1hTo9v1dZOV5g=="
    )
    line = f'      "integrity": "{value}"'
    assert _call(value, line, "package-lock.json", "Base64 High Entropy String") in NOT_REAL


def _decisive_real(value: str, line: str, path: str, rule: str = "Secret Keyword") -> bool:
    """Called real with P(real) at or above the band: no model would ever see it."""
    scorer = shipped_scorer()
    ctx = CandidateContext(value=value, rule_id=rule, path=path, line=line, paths=(path,))
    assessment = scorer.assess(ctx)
    call = offline_call(assessment, [], scorer.operating_point)
    return (
        call.classification is Classification.REAL
        and assessment.p_real >= scorer.operating_point.band_high
    )


@pytest.mark.parametrize(
    ("value", "line", "path"),
    [
        # Issue 17: not a literal secret at all, seen on clean open-source repositories.
        ("true", "  disablePasswordAuthentication: true", "deploy/vm.yaml"),
        ("_EMPTY_", "\topts.Cluster.Password = _EMPTY_", "server/opts.go"),
        ("body", "\tsecrets[opts.SecretName] = body", "pkg/cmd/secret/set.go"),
        ("0x8", "#define SOME_KEY_FLAG 0x8", "third_party/include/sys/keys.h"),
        # UI and locale strings.
        ("Mot de passe", "  password: Mot de passe", "config/locales/fr.yml"),
        ("Kennwort", "    'labelPassword' => 'Kennwort',", "resources/lang/de/auth.php"),
    ],
)
def test_values_that_are_no_literal_secret_are_never_decisively_real(
    value: str, line: str, path: str
) -> None:
    assert not _decisive_real(value, line, path)
