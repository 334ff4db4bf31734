"""thresher finds exactly what detect-secrets itself finds, file for file.

Every comparison runs detect-secrets' own ``SecretsCollection`` on the very
same files (from the tree's root, as ``detect-secrets scan`` does) and checks
that the sets of (file, line, type) are equal. Token values are random
characters drawn at test time; none is a live credential.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import pytest
from detect_secrets.core.secrets_collection import SecretsCollection
from detect_secrets.settings import default_settings

from thresher.findings.engine import plugin_names
from thresher.sources.scan import ScanOptions, scan

Hit = tuple[str, int, str]
_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_LOWER_DIGITS = string.ascii_lowercase + string.digits


def _rand(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _jwt(rng: random.Random) -> str:
    def part(data: dict[str, str]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    header = part({"alg": "HS256", "typ": "JWT"})
    body = part({"sub": _rand(rng, 8), "name": "test"})
    return f"{header}.{body}.{_rand(rng, 43, _ALNUM + '-_')}"


def _samples() -> dict[str, tuple[str, list[str]]]:
    """secret type -> (file name, lines that the plugin reports)."""
    rng = random.Random(20240611)
    r = _rand
    return {
        "Artifactory Credentials": (
            "art.py",
            [f'artifactory_token = "AKC{r(rng, 14)}"', f"value: AP6{r(rng, 12)}"],
        ),
        "AWS Access Key": (
            "aws.py",
            [
                f'key_id = "AKIA{r(rng, 16, string.ascii_uppercase + string.digits)}"',
                f'aws_secret_key = "{r(rng, 40, _ALNUM + "/+")}"',
            ],
        ),
        "Azure Storage Account access key": (
            "azure.py",
            [f'conn = "DefaultEndpointsProtocol=https;AccountKey={r(rng, 86, _ALNUM + "+/")}=="'],
        ),
        "Basic Auth Credentials": ("urls.py", [f'URL = "https://admin:{r(rng, 14)}@db.example/x"']),
        "Cloudant Credentials": (
            "cloudant.py",
            [
                f'cloudant_password = "{r(rng, 64, _HEX)}"',
                f'url = "https://acct:{r(rng, 24, string.ascii_lowercase)}@acct.cloudant.com"',
            ],
        ),
        "Discord Bot Token": (
            "discord.py",
            [f'bot = "M{r(rng, 23)}.{r(rng, 6)}.{r(rng, 27)}"'],
        ),
        "GitHub Token": ("gh.py", [f'token = "ghp_{r(rng, 36)}"']),
        "GitLab Token": ("gl.py", [f'token = "glpat-{r(rng, 20)}"']),
        "Base64 High Entropy String": ("b64.py", [f'blob = "{r(rng, 48, _ALNUM + "+/")}"']),
        "Hex High Entropy String": ("hex.py", [f'digest = "{r(rng, 40, _HEX)}"']),
        "IBM Cloud IAM Key": ("ibm.py", [f'ibm_cloud_iam_key = "{r(rng, 44, _ALNUM + "_-")}"']),
        "IBM COS HMAC Credentials": (
            "cos.py",
            [f'cos_hmac_secret_access_key = "{r(rng, 48, _HEX)}"'],
        ),
        # detect-secrets' default filters drop every all-digit value, so this
        # plugin never reports with the defaults: both sides must agree on that.
        "Public IP (ipv4)": ("ip.py", ['server = "8.8.4.4"', "host: 1.1.1.1:8080"]),
        "JSON Web Token": ("jwt.py", [f'TOKEN = "{_jwt(rng)}"']),
        "Secret Keyword": ("kw.py", [f'password = "{r(rng, 16)}"', f'api_key = "{r(rng, 12)}"']),
        "Mailchimp Access Key": ("mc.py", [f'key = "{r(rng, 32, _LOWER_DIGITS)}-us12"']),
        "NPM tokens": (
            ".npmrc",
            [f"//registry.npmjs.org/:_authToken=npm_{r(rng, 36)}"],
        ),
        "OpenAI Token": ("oai.py", [f'key = "sk-{r(rng, 20)}T3BlbkFJ{r(rng, 20)}"']),
        "Private Key": (
            "id_rsa",
            [
                "-----BEGIN RSA PRIVATE KEY-----",
                *(r(rng, 64, _ALNUM + "+/") for _ in range(4)),
                "-----END RSA PRIVATE KEY-----",
            ],
        ),
        "PyPI Token": ("pypi.py", [f'token = "pypi-AgEIcHlwaS5vcmc{r(rng, 72, _ALNUM + "-_")}"']),
        "SendGrid API Key": ("sg.py", [f'key = "SG.{r(rng, 22)}.{r(rng, 43)}"']),
        "Slack Token": (
            "slack.py",
            [
                f'token = "xoxb-{r(rng, 11, string.digits)}-{r(rng, 24, _LOWER_DIGITS)}"',
                f'hook = "https://hooks.slack.com/services/T{r(rng, 8)}/B{r(rng, 8)}/{r(rng, 24)}"',
            ],
        ),
        "SoftLayer Credentials": (
            "sl.py",
            [f'softlayer_api_key = "{r(rng, 64, _LOWER_DIGITS)}"'],
        ),
        "Square OAuth Secret": ("sq.py", [f'secret = "sq0csp-{r(rng, 43)}"']),
        "Stripe Access Key": ("stripe.py", [f'key = "sk_live_{r(rng, 24)}"']),
        "Telegram Bot Token": (
            "tg.py",
            [f'bot = "{r(rng, 9, string.digits)}:{r(rng, 35, _ALNUM + "_-")}"'],
        ),
        "Twilio API Key": ("twilio.py", [f'sid = "AC{r(rng, 32, _LOWER_DIGITS)}"']),
    }


SAMPLES = _samples()


def detect_secrets_hits(root: Path, monkeypatch: pytest.MonkeyPatch) -> set[Hit]:
    """detect-secrets' own result, scanned from the root as its CLI does."""
    monkeypatch.chdir(root)
    files = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    )
    with default_settings():
        collection = SecretsCollection()
        for name in files:
            collection.scan_file(name)
    return {(f, s.line_number, s.type) for f, found in collection.data.items() for s in found}


def thresher_hits(root: Path, workers: int = 1) -> set[Hit]:
    """The detect-secrets source alone: thresher's own rules report more, by design.
    The parity is of the raw plugins; the screen (``findings.screen``) is a later,
    documented stage that drops what cannot be a credential, so it is off here."""
    result = scan(ScanOptions(root=root, workers=workers, builtin_rules=False, screen=False))
    return {(c.path, c.line, c.type) for c in result.candidates}


def test_samples_cover_every_default_plugin() -> None:
    assert set(SAMPLES) == set(plugin_names())


@pytest.mark.parametrize("secret_type", sorted(SAMPLES))
def test_each_plugin_matches_detect_secrets(
    secret_type: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, lines = SAMPLES[secret_type]
    body = ["# a sample", "import os", *lines, "print('done')"]
    (tmp_path / name).write_text("\n".join(body) + "\n", encoding="utf-8")
    ours = thresher_hits(tmp_path)
    assert ours == detect_secrets_hits(tmp_path, monkeypatch)
    if secret_type != "Public IP (ipv4)":
        assert secret_type in {kind for _, _, kind in ours}


def test_all_plugins_in_one_tree_with_many_file_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [line for _, sample in SAMPLES.values() for line in sample]
    for ext in (".py", ".go", ".java", ".js", ".c", ".cpp", ".cs", ".m", ".tf", ".php", ".txt"):
        (tmp_path / f"all{ext}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert thresher_hits(tmp_path) == detect_secrets_hits(tmp_path, monkeypatch)


def test_yaml_ini_and_env_files_use_the_same_transformers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(7)
    (tmp_path / "config.yaml").write_text(
        "db:\n"
        f"  password: {_rand(rng, 18)}\n"
        f"  token: ghp_{_rand(rng, 36)}\n"
        "  note: |\n"
        f"    api_key = {_rand(rng, 20)}\n"
        f"anchor: &a {_rand(rng, 40, _HEX)}\n"
        "alias: *a\n"
        f"binary: !!binary {base64.b64encode(rng.randbytes(30)).decode()}\n",
        encoding="utf-8",
    )
    (tmp_path / "settings.ini").write_text(
        f"[main]\npassword = {_rand(rng, 16)}\nsecret_key =\n    {_rand(rng, 30)}\n",
        encoding="utf-8",
    )
    (tmp_path / "setup.cfg").write_text(
        f"[tool]\napi_key: '{_rand(rng, 16)}'\n; a comment\n", encoding="utf-8"
    )
    # No section header: only detect-secrets' eager config parser finds this one.
    (tmp_path / ".env").write_text(
        f"DB_PASSWORD={_rand(rng, 16)}\nSECRET={_rand(rng, 30, _HEX)}\n", encoding="utf-8"
    )
    ours = thresher_hits(tmp_path)
    assert ours == detect_secrets_hits(tmp_path, monkeypatch)
    assert {path for path, _, _ in ours} >= {"config.yaml", "settings.ini", ".env"}


def test_filters_pragmas_newlines_and_case_folding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(8)
    text = "\r\n".join(
        [
            f'password = "{_rand(rng, 16)}"  # pragma: allowlist secret',
            "# pragma: allowlist nextline secret",
            f'api_key = "{_rand(rng, 16)}"',
            'secret = "${SECRET_FROM_ENV}"',
            "password = get_password()",
            'user_id = "' + _rand(rng, 32, _HEX) + '"',
            # Non-ASCII letters that Python's case-insensitive matching equates
            # with k and s: the keyword detector matches them, so must we.
            f'api_\u212aey = "{_rand(rng, 16)}"',
            f'\u017fecret = "{_rand(rng, 16)}"',
            f'contrase\u00d1a = "{_rand(rng, 16)}"',
            f'PASSWORD = "{_rand(rng, 16)}"',
        ]
    )
    (tmp_path / "mixed.py").write_bytes(text.encode("utf-8"))
    (tmp_path / "old_mac.py").write_bytes(f'x = 1\rpassword = "{_rand(rng, 12)}"\r'.encode())
    (tmp_path / "package-lock.json").write_text(f'{{"password": "{_rand(rng, 16)}"}}\n')
    (tmp_path / "swagger.py").write_text(f'password = "{_rand(rng, 16)}"\n')
    ours = thresher_hits(tmp_path)
    assert ours == detect_secrets_hits(tmp_path, monkeypatch)
    assert ("mixed.py", 7, "Secret Keyword") in ours
    assert ("old_mac.py", 2, "Secret Keyword") in ours


_KEYWORDS = ["password", "api_key", "secret", "pwd", "db_pass", "private_key", "PASSWORD"]
_ASSIGN = [" = ", "=", ": ", ":= ", " == ", " => ", "(", " "]
_EXTS = [".py", ".yaml", ".ini", ".cfg", ".env", "", ".txt", ".go", ".java", ".js", ".toml"]


def _fuzz_line(rng: random.Random, tokens: list[str]) -> str:
    roll = rng.random()
    if roll < 0.3:
        quote = rng.choice(['"', "'", "`", ""])
        value = rng.choice([_rand(rng, rng.randint(1, 30), _ALNUM + "!$_-./+"), *tokens])
        return f"{rng.choice(_KEYWORDS)}{rng.choice(_ASSIGN)}{quote}{value}{quote}"
    if roll < 0.55:
        quote = rng.choice(['"', "'", ""])
        return f"{rng.choice(['x = ', '', 'key: ', '- '])}{quote}{rng.choice(tokens)}{quote}"
    if roll < 0.6:
        return f"[section{rng.randint(0, 2)}]"
    return _rand(rng, rng.randint(0, 60), _ALNUM + " ._()=:'\"-")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_trees_match(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    tokens = [line.split(" = ", 1)[-1].strip("\"'") for _, s in SAMPLES.values() for line in s]
    for index in range(25):
        lines = [_fuzz_line(rng, tokens) for _ in range(rng.randint(1, 30))]
        newline = rng.choice(["\n", "\r\n"])
        path = tmp_path / f"f{index}{rng.choice(_EXTS)}"
        path.write_bytes(newline.join(lines).encode() + newline.encode())
    assert thresher_hits(tmp_path) == detect_secrets_hits(tmp_path, monkeypatch)
