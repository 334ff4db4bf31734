"""Documentation is not a deployment: where a candidate's text lives, which rules are
generic, and the policy that keeps a generic value in documentation or a commented-out
line from a decisive ``real`` call (issue 25, item 5)."""

from __future__ import annotations

import base64
import random
import secrets
import string
from pathlib import Path

import pytest

from tests.validators.helpers import finding_of
from thresher.config.settings import Settings
from thresher.findings import Finding, SecretType
from thresher.findings.results import Classification
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.context import deployed_elsewhere
from thresher.scoring.features import CandidateContext, features
from thresher.scoring.model import Assessment, OperatingPoint, shipped_scorer
from thresher.scoring.placement import (
    GENERIC_FEATURE,
    PLACEMENT_FEATURES,
    Placement,
    commented_out,
    context_rule,
    placement,
)
from thresher.scoring.policy import Band, Escalate, escalation_for, offline_call
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus
from thresher.validators.keys import PrivateKeyValidator
from thresher.validators.offline import GitHubTokenValidator, crc32_base62

POINT = OperatingPoint(real_threshold=0.3, band_low=0.05, band_high=0.9)
BAND = Band.of(POINT)
ALNUM = string.ascii_letters + string.digits


def random_text(n: int) -> str:
    return "".join(secrets.choice(ALNUM) for _ in range(n))


def github_token() -> str:
    """A classic token with a valid CRC32: the shape GitHub issues, made up here."""
    body = random_text(30)
    return f"ghp_{body}{crc32_base62(body)}"


def openssh_key() -> str:
    """An unencrypted OpenSSH ed25519 key whose structure parses, from random bytes."""

    def field(data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + data

    kind, public = b"ssh-ed25519", secrets.token_bytes(32)
    check = secrets.token_bytes(4)
    private = check + check + field(kind) + field(public)
    private += field(secrets.token_bytes(32) + public) + field(b"made up at test time")
    private += bytes(range(1, 1 + (-len(private)) % 8))
    blob = b"openssh-key-v1\0" + field(b"none") + field(b"none") + field(b"")
    blob += (1).to_bytes(4, "big") + field(field(kind) + field(public)) + field(private)
    text = base64.b64encode(blob).decode()
    body = "\n".join(text[i : i + 70] for i in range(0, len(text), 70))
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"


def context(path: str, line: str, value: str, **kwargs: object) -> CandidateContext:
    fields: dict[str, object] = {"rule_id": "generic-password", "rules": ("generic-password",)}
    fields.update(kwargs)
    return CandidateContext(value=value, path=path, line=line, **fields)  # type: ignore[arg-type]


def assessed(
    p_real: float,
    where: Placement = Placement.DOCUMENTATION,
    *,
    generic: bool = True,
    test_scope: bool = False,
) -> Assessment:
    rest = round(1 - p_real, 6)
    return Assessment(
        p_real=p_real,
        p_test=round(rest / 2, 6),
        p_not_secret=round(rest / 2, 6),
        placement=where,
        generic_value=generic,
        test_scope=test_scope,
    )


def decided(
    a: Assessment, results: list[ValidationResult] | None = None
) -> tuple[Classification, bool, str]:
    call = offline_call(a, results or [], POINT)
    escalation = escalation_for(call, a, Escalate.UNCERTAIN, BAND)
    return call.classification, escalation.would_escalate, call.reason + " | " + escalation.reason


# ---------------------------------------------------------------- where the text lives


@pytest.mark.parametrize(
    "path",
    [
        "README.md",
        "docs/guide/install.rst",
        "docs/conf.py",
        "doc/setup.adoc",
        "site/content/usage.markdown",
        "CHANGELOG",
        "CHANGELOG.md",
        "HISTORY.rst",
        "NEWS",
        "RELEASE_NOTES.txt",
        "changes.txt",
        "skills/analysis/triage/SKILL.md",
        "AGENTS.md",
        "CLAUDE.md",
        "examples/README.md",  # test scope, and still documentation
        "MANUAL.txt",
        "MANUAL.html",
        "man/syncthing-config.5",
    ],
)
def test_documentation_by_path(path: str) -> None:
    assert placement(path, "password: hunter2", 10) is Placement.DOCUMENTATION


@pytest.mark.parametrize(
    "path",
    [
        "config/app.yml",
        "docker-compose.yml",
        ".env",
        "src/settings.py",
        "passwords.txt",  # a .txt by its name only: this one is a credentials file
        "CMakeLists.txt",
        "history.py",
        "install.sh",
    ],
)
def test_deployable_paths_are_not_documentation(path: str) -> None:
    assert placement(path, "password = hunter2", 11) is Placement.DEPLOYMENT


@pytest.mark.parametrize(
    ("path", "line", "value"),
    [
        ("config/app.yml", "#   password: 'foo'", "foo"),
        ("settings.py", "# DB_PASSWORD = 'hunter2'", "hunter2"),
        ("settings.py", "TIMEOUT = 30  # password = 'hunter2'", "hunter2"),
        ("src/client.js", '  // apiKey = "abc123def456"', "abc123def456"),
        ("src/Client.java", '   * password = "abc123def456"', "abc123def456"),
        ("src/Client.java", 'int x; /* password = "abc123def456" */', "abc123def456"),
        ("web/index.html", '<!-- <input name="password" value="hunter2"> -->', "hunter2"),
        ("db/seed.sql", "-- password 'hunter2'", "hunter2"),
        ("php.ini", "; password = hunter2", "hunter2"),
        ("run.bat", "REM set PASSWORD=hunter2", "hunter2"),
    ],
)
def test_commented_out_lines(path: str, line: str, value: str) -> None:
    assert placement(path, line, line.index(value)) is Placement.COMMENTED_OUT


@pytest.mark.parametrize(
    ("path", "line", "value"),
    [
        ("config/app.yml", "password: 'foo'  # change before release", "foo"),
        ("settings.py", "PASSWORD = 'a # b'", "a # b"),
        ("settings.py", "s = 'a # b'; password = 'hunter2'", "hunter2"),
        ("src/main.c", '#define PASSWORD "hunter2"', "hunter2"),
        ("deploy.sh", "curl -u admin:hunter2 https://example.invalid/#top", "hunter2"),
        ("deploy.sh", "  --password hunter2 \\", "hunter2"),
        ("web/index.html", '<!-- old --> <input value="hunter2">', "hunter2"),
        ("src/main.c", '/* old */ pw = "hunter2";', "hunter2"),
        ("settings.json", '"note": "see # below", "password": "hunter2"', "hunter2"),
    ],
)
def test_code_with_comments_elsewhere_is_deployed(path: str, line: str, value: str) -> None:
    assert not commented_out(path, line, line.index(value))
    assert placement(path, line, line.index(value)) is Placement.DEPLOYMENT


def test_a_value_also_deployed_elsewhere_is_deployed() -> None:
    line = "password: hunter2"
    assert placement("README.md", line, 10, deployed_elsewhere=True) is Placement.DEPLOYMENT
    assert placement("README.md", line, 10, outside_tree=True) is Placement.DEPLOYMENT
    texts = {
        ("README.md", 3): "    password = 'hunter2'",
        ("docs/setup.md", 9): "password: hunter2",
        ("plugins/sample.conf", 4): "  # password = 'hunter2'",
        ("i18n/lang/de-de-lang.json", 7): '  "password": "hunter2",',
        ("vendor/lib/client.go", 12): '\tpassword := "hunter2"',
        ("plugin.py", 5): "    password = hunter2",
        ("config/app.yml", 2): "  password: 'hunter2'",
    }

    def finding_at(*paths: str) -> Finding:
        return Finding.model_validate(
            {
                "id": "f",
                "rule_id": "generic-password",
                "fingerprint": "x",
                "redacted": "r",
                "locations": [
                    {"path": path, "line": line} for path, line in texts if path in paths
                ],
            }
        )

    def line_of(path: str, number: int) -> str:
        return texts.get((path, number), "")

    quiet = finding_at(
        "README.md",
        "docs/setup.md",
        "plugins/sample.conf",
        "i18n/lang/de-de-lang.json",
        "vendor/lib/client.go",
    )
    assert not deployed_elsewhere(quiet, "hunter2", line_of)
    # A docstring's line is documentation too, when the reader says so.
    docstring = finding_at("README.md", "plugin.py")
    assert deployed_elsewhere(docstring, "hunter2", line_of)
    assert not deployed_elsewhere(docstring, "hunter2", line_of, lambda p, n: p == "plugin.py")
    loud = finding_at("README.md", "config/app.yml")
    assert deployed_elsewhere(loud, "hunter2", line_of)


# ---------------------------------------------------------------- what a generic value is


@pytest.mark.parametrize(
    "rule",
    [
        "Secret Keyword",
        "Base64 High Entropy String",
        "Hex High Entropy String",
        "Basic Auth Credentials",
        "generic-password",
        "generic-token",
        "generic-key-material",
        "url-credentials",
        "http-basic-authorization",
        "htpasswd-entry",
        "kubernetes-secret-stringdata",
    ],
)
def test_context_rules(rule: str) -> None:
    assert context_rule(rule)


@pytest.mark.parametrize(
    "rule",
    [
        "AWS Access Key",
        "GitHub Token",
        "Private Key",
        "JSON Web Token",
        "github-token",
        "private-key-pem",
        "nats-nkey-seed",
        "openai-api-key",
        "acme-internal-token",  # an operator's rule thresher does not know: its calls stand
    ],
)
def test_provider_format_rules(rule: str) -> None:
    assert not context_rule(rule)


def test_features_carry_placement_and_genericness() -> None:
    value = random_text(20)
    readme = features(context("README.md", f"DB_PASSWORD={value}", value))
    assert readme[PLACEMENT_FEATURES[Placement.DOCUMENTATION]] == 1.0
    assert readme[GENERIC_FEATURE] == 1.0
    commented = features(context("config/app.yml", f"#   password: '{value}'", value))
    assert commented[PLACEMENT_FEATURES[Placement.COMMENTED_OUT]] == 1.0
    deployed = features(context("config/app.yml", f"password: '{value}'", value))
    assert not set(PLACEMENT_FEATURES.values()) & deployed.keys()
    token = github_token()
    provider = features(
        context(
            "README.md",
            f"GITHUB_TOKEN={token}",
            token,
            rule_id="github-token",
            rules=("generic-token", "github-token"),
        )
    )
    assert GENERIC_FEATURE not in provider


def test_the_scorer_hands_the_facts_to_the_assessment() -> None:
    value = random_text(20)
    scorer = shipped_scorer()
    readme = scorer.assess(context("examples/README.md", f"DB_PASSWORD={value}", value))
    assert readme.placement is Placement.DOCUMENTATION
    assert readme.generic_value and readme.test_scope
    config = scorer.assess(context("config/app.yml", f"password: '{value}'", value))
    assert config.placement is Placement.DEPLOYMENT and not config.test_scope


# ---------------------------------------------------------------- the policy


def test_a_generic_value_in_documentation_is_never_real_and_is_escalated() -> None:
    for p in (0.31, 0.95, 0.999):
        classification, escalated, why = decided(assessed(p))
        assert classification is Classification.NOT_SECRET, p
        assert escalated and "documentation" in why, p


@pytest.mark.parametrize(
    "path",
    [
        "vendor/github.com/ProtonMail/go-crypto/eax/random_vectors.go",
        "third_party/lib/config.py",
        "web/node_modules/pkg/index.js",
        "api/service.pb.go",
        "static/app.min.js",
    ],
)
def test_vendored_and_generated_code_is_not_this_repository_s_deployment(path: str) -> None:
    assert placement(path, 'key = "x"', 7) is Placement.VENDORED
    classification, escalated, why = decided(assessed(0.97, Placement.VENDORED))
    assert classification is Classification.NOT_SECRET
    assert escalated and "vendored or generated code" in why


@pytest.mark.parametrize(
    "path", [".github/workflows/ci.yml", ".gitlab-ci.yml", ".circleci/config.yml"]
)
def test_a_ci_pipeline_s_generic_password_is_never_real_offline(path: str) -> None:
    """``POSTGRES_PASSWORD: postgres`` for a throwaway service container."""
    assert placement(path, "  POSTGRES_PASSWORD: postgres", 21) is Placement.CI
    classification, escalated, why = decided(assessed(0.97, Placement.CI))
    assert classification is Classification.NOT_SECRET
    assert escalated and "CI pipeline" in why
    # A provider's token in a workflow is still a leak.
    classification, _, _ = decided(assessed(0.97, Placement.CI, generic=False))
    assert classification is Classification.REAL


@pytest.mark.parametrize(
    "path",
    [
        "core/src/main/resources/lib/form/password_pt_BR.properties",
        "src/portal/src/i18n/lang/ko-kr-lang.json",
        "locale/de/LC_MESSAGES/django.po",
        "config/locales/fr.yml",
    ],
)
def test_a_translation_catalog_s_password_word_is_never_real_offline(path: str) -> None:
    """``password=Senha``: the word a login form shows in that language."""
    assert placement(path, "password=Senha", 9) is Placement.LOCALE
    classification, escalated, why = decided(assessed(0.97, Placement.LOCALE))
    assert classification is Classification.NOT_SECRET
    assert escalated and "translation catalog" in why


@pytest.mark.parametrize(
    "path", ["src/lang/parser.go", "config/application.properties", "i18n/loader.py"]
)
def test_code_and_config_beside_translations_are_deployed(path: str) -> None:
    assert placement(path, 'password = "x"', 12) is Placement.DEPLOYMENT


@pytest.mark.parametrize("path", ["deploy/compose.yml", "src/man/config.go", "manual/app.py"])
def test_deployable_paths_near_ci_and_manual_names_are_deployed(path: str) -> None:
    assert placement(path, 'password = "x"', 12) is Placement.DEPLOYMENT


@pytest.mark.parametrize(
    "path", ["src/vendors.py", "pkg/vendoring/config.go", "internal/keygen/config.go"]
)
def test_a_name_that_only_contains_vendor_is_deployed(path: str) -> None:
    assert placement(path, 'key = "x"', 7) is not Placement.VENDORED


def test_a_provider_format_token_in_vendored_code_can_still_be_real() -> None:
    classification, _, _ = decided(assessed(0.97, Placement.VENDORED, generic=False))
    assert classification is Classification.REAL


def test_a_commented_out_config_sample_is_never_real_and_is_escalated() -> None:
    classification, escalated, why = decided(assessed(0.97, Placement.COMMENTED_OUT))
    assert classification is Classification.NOT_SECRET
    assert escalated and "commented-out" in why


def test_in_test_scope_it_is_called_test() -> None:
    classification, escalated, _ = decided(assessed(0.97, test_scope=True))
    assert classification is Classification.TEST and escalated


def test_the_same_generic_value_deployed_keeps_its_call() -> None:
    classification, escalated, _ = decided(assessed(0.97, Placement.DEPLOYMENT))
    assert classification is Classification.REAL and not escalated


def test_documentation_with_a_low_p_real_keeps_its_decisive_dismissal() -> None:
    # Only the calls that would have been ``real`` move: the rest of the docs stay quiet.
    for p in (0.001, 0.04):
        a = assessed(p)
        call = offline_call(a, [], POINT)
        assert call.undeployed is None
        assert call == offline_call(
            a.model_copy(update={"placement": Placement.DEPLOYMENT}), [], POINT
        )
        assert not escalation_for(call, a, Escalate.UNCERTAIN, BAND).would_escalate


def test_a_provider_format_in_a_readme_can_still_be_real() -> None:
    classification, escalated, _ = decided(assessed(0.97, generic=False))
    assert classification is Classification.REAL and not escalated


def test_a_checksum_valid_token_in_a_readme_can_still_be_real() -> None:
    token = github_token()
    results = GitHubTokenValidator().check(token, finding_of(SecretType.GITHUB_TOKEN))
    assert any(r.kind is CheckKind.CHECKSUM and r.status is ValidationStatus.VALID for r in results)
    # Even when only a keyword rule found it, the checksum says GitHub's format.
    classification, escalated, _ = decided(assessed(0.97), results)
    assert classification is Classification.REAL and not escalated


def test_a_pem_header_over_a_body_that_does_not_parse_is_not_real_in_docs() -> None:
    validator = PrivateKeyValidator()
    broken = validator.check("-----BEGIN PRIVATE KEY-----xxxx", finding_of(SecretType.PRIVATE_KEY))
    assert any(r.status is ValidationStatus.INVALID for r in broken)
    classification, escalated, _ = decided(assessed(0.97, generic=False), broken)
    assert classification is Classification.NOT_SECRET and escalated
    whole = validator.check(openssh_key(), finding_of(SecretType.PRIVATE_KEY))
    assert {r.status for r in whole} == {ValidationStatus.VALID}
    classification, escalated, _ = decided(assessed(0.97, generic=False), whole)
    assert classification is Classification.REAL and not escalated


def test_hard_evidence_and_escalate_never_still_apply() -> None:
    a = assessed(0.97)
    live = [
        ValidationResult(
            validator="v", kind=CheckKind.LIVE, status=ValidationStatus.VALID, detail=""
        )
    ]
    assert decided(a, live)[:2] == (Classification.REAL, False)
    call = offline_call(a, [], POINT)
    assert not escalation_for(call, a, Escalate.NEVER, BAND).would_escalate


# ---------------------------------------------------------------- a scan, end to end


@pytest.mark.slow
def test_a_scan_never_calls_a_documentation_sample_real(tmp_path: Path) -> None:
    # Seeded: an unlucky random draw also trips the entropy detector and makes a fifth
    # finding; the samples are made-up either way.
    rng = random.Random(25)
    a, b, c, d = ("".join(rng.choice(ALNUM) for _ in range(16)) for _ in range(4))
    root = tmp_path / "repo"
    files = {
        "README.md": f"Set it up:\n\n    DB_PASSWORD={a}\n",
        "CHANGELOG.md": f"## 1.2\n- the default `password: {b}` is gone\n",
        "skills/deploy/SKILL.md": f"Run `deploy --password {c}`\n",
        "config/app.yml": f"db:\n  #   password: '{d}'\n  user: app\n",
        # The README's sample again, commented out in a config file: still not deployed.
        "config/other.yml": f"db:\n  # password: '{a}'\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    outcome = run_scan(ScanRequest(root=root, runs_dir=tmp_path / "runs"), Settings(), environ={})
    decisions = outcome.report.decisions
    assert len(decisions) == 4
    for decision in decisions:
        assert decision.classification is not Classification.REAL, decision.finding.locations
