"""The value features use compiled patterns and C loops over the value's characters:
they give exactly what the per-character generators gave."""

from __future__ import annotations

import itertools
import math
import random
import re
import sys

import pytest

from tests.tokens import github_token, random_secret
from thresher.scoring import features as fx
from thresher.scoring.features import Features, value_features
from thresher.scoring.shape import der_public, jose_header, jwt_public_claims, word_features
from thresher.scoring.vocabulary import (
    CODE_CHARS,
    EXPLICIT_PLACEHOLDER,
    PROVIDER_PREFIX,
    REFERENCE,
    URL_CREDS,
)

_MAX_VALUE = fx._MAX_VALUE
_entropy = fx._entropy


def _reference_shape(value: str) -> str:
    if re.fullmatch(
        r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", value
    ):
        return "uuid"
    if value.isdigit():
        return "digits"
    if len(value) >= 16 and all(c in "0123456789abcdefABCDEF" for c in value):
        return "hex"
    if any(c.isspace() for c in value.strip()):
        return "words"
    if len(value) >= 20 and re.fullmatch(r"[A-Za-z0-9+/=_-]+", value):
        return "base64"
    if value.isalnum():
        return "alphanumeric"
    return "mixed"


def _reference_features(value: str, key: str | None) -> Features:
    """``value_features`` as it was written before its fast paths."""
    v = value.strip().strip("\"'`")[:_MAX_VALUE]
    f: Features = {}
    n = len(v)
    f["len_log2"] = math.log2(1 + n) / 8
    for low, high in ((0, 5), (5, 8), (8, 12), (12, 20), (20, 32), (32, 64), (64, 10**9)):
        if low <= n < high:
            f[f"len_{low}_{high if high < 10**9 else 'inf'}"] = 1.0
    classes = [
        any(c.islower() for c in v),
        any(c.isupper() for c in v),
        any(c.isdigit() for c in v),
        any(not c.isalnum() and not c.isspace() for c in v),
    ]
    for name, present in zip(("lower", "upper", "digit", "symbol"), classes, strict=True):
        if present:
            f[f"has_{name}"] = 1.0
    f[f"classes_{sum(classes)}"] = 1.0
    shape = _reference_shape(v)
    f[f"shape_{shape}"] = 1.0
    if shape == "hex" and n in (32, 40, 56, 64, 96, 128):
        f["hex_digest_length"] = 1.0
    f["entropy_per_char"] = _entropy(v) / math.log2(max(2, min(n, 64))) if n > 1 else 0.0
    if n and len(set(v)) <= 2:
        f["few_distinct_chars"] = 1.0
    if any(ch in CODE_CHARS for ch in v):
        f["value_code_chars"] = 1.0
    if v.endswith(("(", ")", "{", ";", ",")) or v.startswith(("(", ")")):
        f["value_code_edge"] = 1.0
    if re.search(r"[A-Za-z0-9_]\.[A-Za-z_]", v) and not URL_CREDS.match(v):
        f["value_dotted_name"] = 1.0
    if re.fullmatch(r"[a-z]+(?:_[a-z0-9]+)+|[A-Z]+(?:_[A-Z0-9]+)+", v):
        f["value_identifier_case"] = 1.0
    if REFERENCE.search(v):
        f["value_reference"] = 1.0
    if v.startswith(("$", "%", "@", "#{", "{")):
        f["value_sigil"] = 1.0
    if EXPLICIT_PLACEHOLDER.match(v):
        f["value_explicit_placeholder"] = 1.0
    if URL_CREDS.match(v):
        f["value_url_credentials"] = 1.0
    elif "://" in v:
        f["value_url"] = 1.0
    if (
        v.count("/") >= 2
        and re.fullmatch(r"[~.]{0,2}/*(?:[\w.@%+-]+/+)+[\w.@%+-]*", v[:512])
        and (shape != "base64" or (v.startswith(("/", "./", "../", "~/")) and v.count("/") >= 3))
    ):
        f["value_path_like"] = 1.0
    if "@" in v and "." in v.split("@")[-1] and " " not in v:
        f["value_email_like"] = 1.0
    if PROVIDER_PREFIX.match(v):
        f["value_provider_prefix"] = 1.0
    if v.startswith(("MII", "MFk", "MCow", "MFw")):
        f["value_der_base64"] = 1.0
    if der_public(v):
        f["value_public_der"] = 1.0
    if jose_header(v):
        f["value_jose_header"] = 1.0
    if re.search(r"%(?:\([A-Za-z_]\w*\))?[-+ #0]?\d*[sdqv](?![A-Za-z0-9])", v):
        f["value_format_string"] = 1.0
    if v.count(".") == 2 and v.startswith("eyJ"):
        f["value_jwt_shape"] = 1.0
        if jwt_public_claims(v):
            f["value_public_claims"] = 1.0
    if "PRIVATE KEY" in v or "BEGIN" in v:
        f["value_pem_marker"] = 1.0
    if key is not None:
        norm_v = re.sub(r"[^a-z0-9]", "", v.lower())
        norm_k = re.sub(r"[^a-z0-9]", "", key.lower())
        if norm_v and len(norm_v) >= 3 and (norm_v == norm_k or norm_v in norm_k):
            f["value_repeats_key"] = 1.0
    return f


@pytest.mark.slow
def test_value_features_equal_the_reference_on_generated_values() -> None:
    """Every shape and class: Unicode letters, digits and spaces, symbols, code
    characters, hex of digest lengths, UUIDs, URLs, dotted names, identifiers, keys, and
    every branch of the reference pattern (its literal pre-check)."""
    fixed = [
        "",
        " ",
        "a",
        "A",
        "1",
        "_",
        "(",
        "é",
        "\u216b",
        "\u0661\u0662\u0663",
        "\u00a0x",
        "tab\there",
        "12345678-1234-1234-1234-123456789abc",
        "0123456789abcdef" * 2,
        "DEADBEEF" * 5,
        "settings.SECRET_KEY",
        "DB_PASSWORD",
        "db_password",
        "https://u:p@host/x",
        "http://example.com/a/b",
        "a/b/c",
        "me@example.com",
        "${TOKEN}",
        "{{ x }}",
        "eyJhbGciOi.eyJzdWIi.sig",
        "MIIBIjANBgkq",
        "-----BEGIN PRIVATE KEY-----",
        "ENC(x)",
        "vault:a/b",
        "#{x}",
        "@VAR@",
        "__KEY__",
        "<%= x %>",
        "%VAR%",
        "%(name)s",
        "{%x",
        "}}",
        "[some key]",
        "<tag>",
        "{name.x}",
        "$(cmd)",
        "$X",
        "a${b}",
        "call(x);",
        "(a)",
        "your-api-key-here",
        github_token(seed=7),
        random_secret(seed=8),
    ]
    alphabet = "aZ9_-+/=.$%{}()<>[];,@#:é€ \t\u0661\u216b"
    rng = random.Random(99)
    generated = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 70))) for _ in range(4000)
    ]
    generated += ["".join(rng.choice("0123456789abcdefABCDEF") for _ in range(n)) for n in
                  (16, 32, 40, 56, 64, 96, 128, 15)]  # fmt: skip
    for value in fixed + generated:
        for key in (None, "password", value, "api_key_" + value[:5]):
            assert value_features(value, key) == _reference_features(value, key), (value, key)


def _reference_word_counts(value: str) -> tuple[int, int, bool, int]:
    """Letters, vowels, non-ASCII, case flips: ``word_features``' per-character loops."""
    v = value[:256]
    letters = sum(1 for c in v if c.isalpha())
    vowels = sum(1 for c in v if c in "aeiouyAEIOUY")
    flips = sum(
        1
        for a, b in itertools.pairwise(v)
        if a.isalpha() and b.isalpha() and a.isupper() != b.isupper()
    )
    return letters, vowels, any(ord(c) > 127 for c in v), flips


def test_word_features_count_as_the_character_loops_did() -> None:
    """ASCII values are counted in C, the rest one pair at a time: the same counts,
    Unicode letters cased (É, ǅ titlecase) and uncased (Arabic) included."""
    alphabet = "aZbYéÉǅ\u0627 1_-.AEyu"
    rng = random.Random(11)
    values = ["", "a", "aB", "AbCd", "ǅa", "Ǆǆ", "abc" * 100]
    values += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(3000)
    ]
    values += [
        "".join(rng.choice("aAbB1._") for _ in range(rng.randint(1, 300))) for _ in range(300)
    ]
    for value in values:
        f = word_features(value)
        letters, vowels, non_ascii, flips = _reference_word_counts(value)
        if not value:
            assert f == {}
            continue
        n = len(value[:256])
        assert f["letter_share"] == letters / n, value
        assert f.get("vowel_share") == (vowels / letters if letters else None), value
        assert ("value_non_ascii" in f) == non_ascii, value
        assert f["case_flips"] == min(flips, 16) / 16, value


def test_the_symbol_pattern_is_the_character_test_on_every_code_point() -> None:
    pattern = fx._SYMBOL
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        assert (not c.isalnum() and not c.isspace()) == bool(pattern.fullmatch(c)), hex(code)


def test_entropy_is_summed_as_one_term_a_character() -> None:
    from collections import Counter

    def reference(value: str) -> float:
        counts = Counter(value)
        n = len(value)
        return -sum(c / n * math.log2(c / n) for c in counts.values()) if n else 0.0

    rng = random.Random(12)
    values = ["", "a", "aa", "ab", "aab", random_secret(seed=3), github_token(seed=4)]
    values += [
        "".join(rng.choice("abcAB01_é") for _ in range(rng.randint(1, 200))) for _ in range(2000)
    ]
    for value in values:
        assert repr(_entropy(value)) == repr(reference(value)), value
