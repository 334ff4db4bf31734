"""The value profile get_finding shows a model: facts about the value, never the value."""

from __future__ import annotations

import time

from thresher.findings.profile import key_name, profile_value

VALUE = "qX9vLm2Rt7Kp4Zw8"


def test_key_name_on_an_ordinary_line() -> None:
    assert key_name(f'DB_PASSWORD = "{VALUE}"', VALUE) == "DB_PASSWORD"


def test_key_name_at_the_end_of_a_minified_line() -> None:
    """Only the text just before the value is read, so a 60 kB bundle line is cheap and
    the name right before the value is still found."""
    line = "var a=" + "x.y(z)," * 9000 + f'apiKey:"{VALUE}"'
    assert key_name(line, VALUE) == "apiKey"
    profile = profile_value(VALUE, line)
    assert profile["key_name_length"] == len("apiKey")
    assert VALUE not in str(profile)


def test_profiling_a_hostile_value_on_a_60_kb_line_is_fast() -> None:
    """A value a custom rule or a keyword can report in full: a long blank run (the
    trailer strip was quadratic in it) or repeated template braces."""
    values = ["a" + " " * 60_000 + "x", "{{" * 30_000, "${" * 30_000, "my" * 30_000]
    started = time.perf_counter()
    for value in values:
        profile = profile_value(value, f'var k="{value}";' + "x" * 1000)
        assert profile["length"] == len(value)
    assert time.perf_counter() - started < 10.0


def test_the_profile_keeps_its_answers_on_ordinary_values() -> None:
    assert profile_value("changeme # set in prod")["placeholder_word"]
    assert profile_value("${DB_PASSWORD}")["reference"]
    assert profile_value("qX9vLm2Rt7Kp4Zw8 \\")["length"] == len("qX9vLm2Rt7Kp4Zw8 \\")
    assert profile_value("Your API key here")["descriptive_text"]


def _reference_profile(value: str, line: str | None = None) -> dict[str, object]:
    """``profile_value`` as it was written before its fast paths (the ``re`` module's
    functions, a generator per character, the reference pattern on every value)."""
    import math
    import re
    from collections import Counter

    from thresher.findings import profile as p

    def normal(text: str) -> str:
        return re.sub(r"[^a-z0-9]", "", text.lower())

    def entropy(text: str) -> float:
        if not text:
            return 0.0
        counts = Counter(text)
        return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())

    def shape(text: str) -> str:
        if "PRIVATE KEY" in text or text.startswith("PuTTY-User-Key-File"):
            return "private-key"
        if p._UUID.match(text):
            return "uuid"
        if re.fullmatch(r"[0-9]+", text):
            return "digits"
        if re.fullmatch(r"[0-9a-fA-F]+", text) and len(text) >= 16:
            return "hex"
        if re.search(r"\s", text.strip()):
            return "words"
        if re.fullmatch(r"[A-Za-z0-9+/=_-]+", text) and len(text) >= 20:
            return "base64"
        if re.fullmatch(r"[A-Za-z0-9]+", text):
            return "alphanumeric"
        return "mixed"

    def vocabulary_only(text: str) -> bool:
        spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
        tokens = [t.lower() for t in re.split(r"[^A-Za-z0-9]+", spaced) if t]
        return len(tokens) >= 2 and all(
            t in p._ALL_WORDS or t in p._DESCRIPTOR_WORDS for t in tokens
        )

    stripped = p.without_trailer(value.strip()).strip("\"'`")
    head = stripped[: p.PROFILE_CHARS]
    normalized = normal(stripped)
    kind = shape(stripped)
    name = key_name(line, value) if line else None
    classes = [
        n
        for n, t in (("lower", str.islower), ("upper", str.isupper), ("digit", str.isdigit))
        if any(map(t, stripped))
    ]
    if any(not ch.isalnum() for ch in stripped):
        classes.append("symbol")
    repeats_key = (
        bool(name)
        and bool(normalized)
        and (
            normalized == normal(name or "")
            or (len(normalized) >= 4 and normalized in normal(name or ""))
        )
    )
    hex_digest = (
        kind == "hex"
        and len(stripped) in p._HEX_DIGEST_LENGTHS
        and (stripped.islower() or stripped.isupper() or stripped.isdigit())
    )
    placeholder = (
        normalized in p.PLACEHOLDER_WORDS
        or vocabulary_only(head)
        or (len(stripped) >= 4 and len(set(stripped.lower())) == 1)
        or bool(p._PLACEHOLDER_SHAPE.fullmatch(head.lower()))
    )
    return {
        "length": len(value),
        "charset": classes,
        "entropy": round(entropy(value), 2),
        "distinct_characters": len(set(value)),
        "shape": kind,
        "public_key": stripped.startswith(p._PUBLIC_KEY_PREFIXES),
        "placeholder_word": placeholder,
        "reference": bool(p._REFERENCE.search(head)),
        "descriptive_text": kind == "words" and p._descriptive(head),
        "repeats_key_name": repeats_key,
        "hash_like": hex_digest,
        "named_as_hash": bool(name) and bool(p._HASH_CONTEXT.search(name or "")),
        "key_name_length": len(name) if name else 0,
    }


def test_the_profile_equals_the_reference_implementation_on_generated_values() -> None:
    """The compiled patterns, the reference pattern's literal pre-check and the
    whole-string character tests give exactly what the slower form gave: every branch
    of the reference pattern, placeholders, key names, Unicode, blanks and trailers."""
    import random

    from tests.tokens import github_token, random_secret

    fixed = [
        "",
        " ",
        "'",
        '""',
        "x",
        "ab",
        "${DB_PASSWORD}",
        "$(cat key)",
        "$TOKEN",
        "%(pw)s",
        "{{ secrets.X }}",
        "ENC(abc)",
        "vault:secret/data",
        "<your-token>",
        "[secret]",
        "%APPDATA%",
        "{config.key}",
        "process.env.KEY",
        "os.environ['K']",
        "getenv('K')",
        'System.getenv("K")',
        "secrets.API_KEY",
        "a $ b",
        "100%",
        "{",
        "[",
        "<",
        "ENC",
        "vault",
        "unsecure_session_secret",
        "somePASSWORD",
        "apiKeyVariable",
        "xxxxxxxx",
        "your-api-key-here",
        "0123456789abcdef0123456789abcdef",
        "DEADBEEF" * 5,
        "0" * 40,
        "12345678",
        "héllo wörld",
        "ключ_секрет",
        "١٢٣٤٥",
        "Ⅻ",
        "pass word here",
        "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIB",
        "-----BEGIN RSA PRIVATE KEY-----\nabc",
        "value \\",
        "value # comment",
        "12345678-1234-1234-1234-123456789abc",
        github_token(seed=3),
        random_secret(seed=4),
        random_secret(40, seed=6),
    ]
    alphabet = "aZ9_-+/=.$%{}<>[]()#\\ \t\n'\"`:@é€ENCvaultgetenvsecrets"
    rng = random.Random(1234)
    generated = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(3000)
    ]
    for value in fixed + generated:
        for line in (None, f"api_key = '{value}'", f"hash: {value} # sha", value):
            assert profile_value(value, line) == _reference_profile(value, line), (value, line)
