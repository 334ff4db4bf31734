"""The placeholder validator: catches filler, never random high-entropy values."""

from __future__ import annotations

import base64
import hashlib
import random
import string

import pytest

from tests.tokens import github_token, random_secret
from tests.validators.helpers import assert_safe, finding_of
from thresher.findings import SecretType
from thresher.validators import placeholder
from thresher.validators.placeholder import PlaceholderValidator, placeholder_reason


def status(value: str) -> str:
    results = PlaceholderValidator().check(value, finding_of(SecretType.GENERIC))
    [result] = results
    # A whole-value interpolation is reported as syntax (hard evidence), any other
    # placeholder as a placeholder (soft evidence).
    assert result.kind in ("placeholder", "syntax")
    return result.status.value


@pytest.mark.parametrize(
    "value",
    [
        "$API_KEY",
        "%API_KEY%",
        "process.env.API_KEY",
        "os.environ['API_KEY']",
        'os.getenv("API_KEY")',
        "secrets.DEPLOY_TOKEN",
        "$(cat /run/secrets/token)",
        "ghp_" + "0" * 36,
        "sk_live_" + "abc" * 12,
        "0123456789abcdef",
        "abababababab",
        "ghp_abc...",
        "token\u2026",
        "\u2022" * 12,
        "fake-token-value",
        "TODO",
        "not_a_real_key",
        "lorem-ipsum-dolor",
        "############",
    ],
)
def test_placeholder_forms(value: str) -> None:
    assert status(value) == "invalid"


@pytest.mark.parametrize(
    "value",
    [
        "fakeAbc9Lx2QpZ7",
        "testing-Xq9Lm2Pz8Rk4",
        "contest" + random_secret(20, seed=3),
    ],
)
def test_words_inside_other_words_are_not_placeholders(value: str) -> None:
    assert status(value) == "valid"


def test_random_high_entropy_values_are_never_placeholders() -> None:
    rng = random.Random(1234)
    alphabets = [
        string.ascii_letters + string.digits,
        "0123456789abcdef",
        string.ascii_letters + string.digits + "+/",
        string.ascii_letters + string.digits + "-_",
    ]
    for index in range(2000):
        alphabet = alphabets[index % len(alphabets)]
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(16, 64)))
        assert placeholder_reason(value) is None, value
    for seed in range(200):
        assert placeholder_reason(github_token(seed=seed)) is None
        raw = random.Random(seed).randbytes(30)
        assert placeholder_reason(base64.b64encode(raw).decode()) is None


def test_documentation_digests(monkeypatch: pytest.MonkeyPatch) -> None:
    value = random_secret(32, seed=77)
    assert status(value) == "valid"
    digest = hashlib.sha256(value.encode()).hexdigest()
    monkeypatch.setattr(placeholder, "DOCUMENTATION_DIGESTS", frozenset({digest}))
    results = PlaceholderValidator().check(value, finding_of(SecretType.STRIPE_KEY))
    assert results[0].status == "invalid" and "documentation" in results[0].detail
    assert_safe(results, value)


def test_details_never_echo_the_value() -> None:
    for value in ("${GITHUB_TOKEN}", "your_api_key_here", "ghp_" + "0" * 36, "fake-token-x"):
        assert_safe(PlaceholderValidator().check(value, finding_of(SecretType.GENERIC)), value)


@pytest.mark.parametrize(
    "value",
    [
        "0123456789abcdef0123456789abcdef01234567",  # a 40-character token's docs sample
        "0123456789ABCDEF0123456789ABCDEF",
        "fedcba9876543210fedcba98",
        "0000111122223333444455556666777788889999aaaabbbbccccddddeeeeffff",
        "aabbccddeeff",
    ],
)
def test_hex_counting_and_stepped_runs_are_filler(value: str) -> None:
    assert placeholder_reason(value) is not None
    assert status(value) == "invalid"


@pytest.mark.parametrize("seed", range(50))
def test_random_hex_is_not_taken_for_a_run(seed: int) -> None:
    value = random.Random(seed).randbytes(20).hex()
    assert placeholder_reason(value) is None


def test_a_published_value_inside_a_connection_string(monkeypatch: pytest.MonkeyPatch) -> None:
    """Azurite's account key is published for every local install; a connection string
    that carries it is that documentation value, whatever surrounds it."""
    key = base64.b64encode(random.Random(5).randbytes(64)).decode()
    monkeypatch.setattr(
        placeholder, "DOCUMENTATION_DIGESTS", frozenset({hashlib.sha256(key.encode()).hexdigest()})
    )
    connection = (
        f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={key};"
        "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"
    )
    results = PlaceholderValidator().check(connection, finding_of(SecretType.GENERIC))
    assert results[0].status == "invalid" and "documentation" in results[0].detail
    assert_safe(results, connection)
    other = connection.replace(key, base64.b64encode(random.Random(6).randbytes(64)).decode())
    assert PlaceholderValidator().check(other, finding_of(SecretType.GENERIC))[0].status == (
        "valid"
    )


def test_the_placeholder_search_is_skipped_only_where_it_finds_nothing() -> None:
    """An ASCII value with none of the pattern's text is not searched; every other value
    is, and the answer is the search's (the long s folds onto ``s`` under IGNORECASE)."""
    import re

    from thresher.validators.placeholder import _PLACEHOLDER, _placeholder_text

    pieces = ["xAmPlE", "SAMPLE", "sampl", "place", "holder", "DuMmY", "change", "me", "_",
              "YOUR", "_api-", "key", "INSERT", "Replace", "-", "redact", "ed", "<", ">",
              "${", "}", "{{", "}}", "%(", "a_b", ")s", "xxx", "X", "**", "*", "\u017f", "é",
              "q", "7", " "]  # fmt: skip
    rng = random.Random(26)
    values = ["\u017fample", "<a>", "xXxXxX", "****", "%(user)s"]
    values += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 9))) for _ in range(5000)]

    def span(match: re.Match[str] | None) -> tuple[int, int] | None:
        return None if match is None else match.span()

    for value in values:
        assert span(_placeholder_text(value)) == span(_PLACEHOLDER.search(value)), value


def test_the_ellipsis_search_is_skipped_only_where_it_finds_nothing() -> None:
    from thresher.validators.placeholder import _ELLIPSIS, _ELLIPSIS_NEEDS

    rng = random.Random(27)
    pieces = [".", "..", "\u2026", "\u2022", "#", "##", "###", "a", " ", "\u2022\u2022"]
    for _ in range(5000):
        value = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        gate = any(need in value for need in _ELLIPSIS_NEEDS)
        assert gate == bool(_ELLIPSIS.search(value)), value
