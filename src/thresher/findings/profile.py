"""Describe a candidate value in its line without revealing it.

The profile is what ``get_finding`` tells a model about the raw value: its length,
character classes, entropy and shape, and flags that separate credentials from
look-alikes — placeholder words, references to other variables, descriptive
text, hashes named as hashes, UUIDs, a value that merely repeats its key name.
Every field is a number, a flag or a fixed word: never any part of the value.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

_HEX_DIGEST_LENGTHS = {32, 40, 56, 64, 96, 128}
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_REFERENCE = re.compile(
    r"(\$\{[^}]*\}|\$\([^)]*\)|^\$[A-Za-z_][A-Za-z0-9_]*$|%\([a-z_]+\)s|\{\{.*\}\}|"
    r"^ENC\(.*\)$|^vault:|^<[^>]+>$|^\[[^\]]+\]$|^%[A-Z_]+%$|^\{[A-Za-z_][A-Za-z0-9_.]*\}$|"
    r"process\.env|os\.environ|getenv|System\.getenv|secrets\.[A-Z_]+)",
)
# Text that every branch of ``_REFERENCE`` needs (``System.getenv`` holds ``getenv``):
# a value holding none of it is no reference, without the pattern's pass over it.
_REFERENCE_NEEDS = ("$", "%", "{", "<", "[", "ENC(", "vault:", "process.env", "os.environ",
                    "getenv", "secrets.")  # fmt: skip


def may_hold(text: str, needs: tuple[str, ...]) -> bool:
    """Whether a case-blind search whose every match holds one of ``needs`` (lower-case)
    may find one in ``text``: always for text beyond ASCII (case folding reaches past
    ASCII: the Kelvin sign is a ``k``). The gate the scorer's and the validators' costly
    patterns are skipped behind where they provably find nothing."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(need in lowered for need in needs)


def is_reference(text: str) -> bool:
    """Whether ``_REFERENCE`` finds a reference in ``text``."""
    return any(part in text for part in _REFERENCE_NEEDS) and bool(_REFERENCE.search(text))


PLACEHOLDER_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "secrets",
        "admin",
        "administrator",
        "root",
        "test",
        "testing",
        "tester",
        "changeme",
        "changeit",
        "example",
        "sample",
        "dummy",
        "foo",
        "bar",
        "baz",
        "foobar",
        "qux",
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "yes",
        "no",
        "default",
        "user",
        "username",
        "token",
        "key",
        "apikey",
        "api_key",
        "api-key",
        "secretkey",
        "secret_key",
        "mysecret",
        "mypassword",
        "password1",
        "password123",
        "admin123",
        "123456",
        "12345678",
        "123456789",
        "qwerty",
        "letmein",
        "guest",
        "demo",
        "xxx",
        "xxxx",
        "todo",
        "tbd",
        "redacted",
        "hidden",
        "private",
        "value",
        "string",
        "required",
        "optional",
        "empty",
        "blank",
        "placeholder",
        "replaceme",
        "insecure",
        "unsecure",
        "notasecret",
        "sekret",
        "s3cr3t",
        "p@ssw0rd",
        "passw0rd",
        "secret123",
    }
)
_HASH_CONTEXT = re.compile(
    r"(?i)(hash|sha\d*|md5|digest|checksum|integrity|fingerprint|"
    r"etag|nonce|salt|commit|revision|sum\b)"
)
_PLACEHOLDER_SHAPE = re.compile(
    r"(x+|\*+|\.+|-+|0+|1234567890?|abc(def)?|your.*|my.*(key|token|"
    r"secret|password)|.*(here|goes ?here))"
)
_KEY_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]*)\s*[\"']?\s*(?::|=|=>|:=)\s*\S*$")


_NOT_NORMAL = re.compile(r"[^a-z0-9]")


def _normal(text: str) -> str:
    return _NOT_NORMAL.sub("", text.lower())


_KEY_WINDOW = 200


def key_name(line: str, value: str) -> str | None:
    """The name the value is assigned to on its line, if any."""
    index = line.find(value)
    if index <= 0:
        return None
    # Only the text just before the value can name it; reading a whole minified line made
    # the pattern below quadratic (minutes on one 60 kB line).
    before = line[max(0, index - _KEY_WINDOW) : index].rstrip(" \t\"'`(")
    match = _KEY_NAME.search(before + " ")
    if match:
        return match.group(1)
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", before)
    return words[-1] if words else None


def entropy(value: str) -> float:
    if not value:
        return 0.0
    counts = Counter(value)
    n = len(value)  # the same terms, summed in the same order: the same float
    return -sum([c / n * math.log2(c / n) for c in counts.values()])


_DESCRIPTOR_WORDS = frozenset(
    {
        "api",
        "key",
        "keys",
        "password",
        "passwords",
        "secret",
        "token",
        "credential",
        "credentials",
        "your",
        "the",
        "to",
        "of",
        "for",
        "here",
        "application",
        "access",
        "client",
        "id",
        "user",
        "account",
        "auth",
        "authentication",
        "alias",
        "shared",
        "private",
        "public",
        "email",
        "bad",
        "wrong",
        "invalid",
        "new",
        "old",
        "enter",
        "set",
        "see",
        "a",
        "an",
        "and",
        "or",
        "is",
        "with",
        "storage",
        "session",
        "consumer",
        "login",
        "payload",
        "value",
    }
)


_FILLER_WORDS = frozenset(
    {
        "very",
        "important",
        "unsecure",
        "insecure",
        "some",
        "not",
        "real",
        "my",
        "our",
        "base64",
        "encoded",
        "variable",
        "top",
        "jwt",
        "temp",
        "tmp",
        "fake",
        "bearer",
        "on",
        "create",
        "super",
        "long",
        "random",
        "string",
        "here",
        "put",
        "change",
        "this",
        "that",
        "it",
        "example",
        "sample",
        "dummy",
        "mock",
        "test",
        "dev",
        "local",
        "pass",
        "word",
        "phrase",
        "pwd",
        "db",
        "database",
        "app",
        "web",
        "server",
        "service",
        "name",
        "hash",
        "salt",
        "signing",
        "encryption",
        "master",
        "root",
        "admin",
        "default",
        "generated",
        "goes",
    }
)
_ALL_WORDS = PLACEHOLDER_WORDS | _FILLER_WORDS


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def vocabulary_only(text: str) -> bool:
    """A value built only from placeholder vocabulary ("unsecure_session_secret",
    "somePASSWORD", "apiKeyVariable"): a name for a secret, not a secret."""
    spaced = _CAMEL.sub(" ", text)
    tokens = [t.lower() for t in _NOT_ALNUM.split(spaced) if t]
    return len(tokens) >= 2 and all(t in _ALL_WORDS or t in _DESCRIPTOR_WORDS for t in tokens)


# DER SubjectPublicKeyInfo headers (RSA 1024/2048/4096, RSA 512, EC P-256, Ed25519), base64.
_PUBLIC_KEY_PREFIXES = (
    "MIGfMA0GCSqGSIb3DQEBAQUAA4GN",
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A",
    "MIICIjANBgkqhkiG9w0BAQEFAAOCAg8A",
    "MFwwDQYJKoZIhvcNAQEBBQADSwAw",
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE",
    "MCowBQYDK2VwAyEA",
)


def _descriptive(text: str) -> bool:
    """Prose that names what should go there ("API key", "Your password here")."""
    tokens = text.split()
    words = [t.strip(".,:;!?()") for t in tokens]
    alphabetic = [w for w in words if w.isalpha()]
    return (
        len(alphabetic) >= 2
        and len(alphabetic) >= 0.75 * len(tokens)
        and any(w.lower() in _DESCRIPTOR_WORDS for w in alphabetic)
    )


# Compiled once: ``shape`` runs on every finding, and the ``re`` module's own cache
# lookup cost as much as the matching on short values.
_DIGITS = re.compile(r"[0-9]+")
_HEX = re.compile(r"[0-9a-fA-F]+")
_BLANK = re.compile(r"\s")
_BASE64 = re.compile(r"[A-Za-z0-9+/=_-]+")
_ALNUM = re.compile(r"[A-Za-z0-9]+")


def shape(value: str) -> str:
    if "PRIVATE KEY" in value or value.startswith("PuTTY-User-Key-File"):
        return "private-key"
    if _UUID.match(value):
        return "uuid"
    if _DIGITS.fullmatch(value):
        return "digits"
    if _HEX.fullmatch(value) and len(value) >= 16:
        return "hex"
    if _BLANK.search(value.strip()):
        return "words"
    if _BASE64.fullmatch(value) and len(value) >= 20:
        return "base64"
    if _ALNUM.fullmatch(value):
        return "alphanumeric"
    return "mixed"


# The flags below read at most this much of a value: placeholders, references and
# prose are short, and a few of the patterns cost the square of what they read.
PROFILE_CHARS = 4096


def without_trailer(value: str) -> str:
    """``value`` without a trailing shell continuation or comment (`` \\``, `` # note``),
    which detect-secrets keeps on unquoted values.

    What ``re.sub(r"\\s+(\\\\|#.*)$", "", value)`` does to a stripped value, in one
    pass: that pattern retries its ``\\s+`` from every blank of a long run, the square
    of the run. The match starts at the blanks before the first ``#`` after the last
    newline, or before a final backslash, whichever comes first."""
    starts: list[int] = []
    if len(value) >= 2 and value.endswith("\\") and value[-2].isspace():
        starts.append(len(value) - 1)
    for index in range(value.rfind("\n") + 1, len(value)):
        if value[index] == "#" and index and value[index - 1].isspace():
            starts.append(index)
            break
    if not starts:
        return value
    start = min(starts)
    while start > 0 and value[start - 1].isspace():
        start -= 1
    return value[:start]


def profile_value(value: str, line: str | None = None) -> dict[str, Any]:
    """Safe facts about ``value`` (and the line that holds it).

    Bounded whatever the input: the line is read only near the value (``key_name``),
    and the flags read at most ``PROFILE_CHARS`` of the value."""
    stripped = without_trailer(value.strip()).strip("\"'`")
    head = stripped[:PROFILE_CHARS]
    normal = _normal(stripped)
    kind = shape(stripped)
    name = key_name(line, value) if line else None
    classes = [
        n
        for n, t in (("lower", str.islower), ("upper", str.isupper), ("digit", str.isdigit))
        if any(map(t, stripped))
    ]
    if stripped and not stripped.isalnum():  # some character is not alphanumeric
        classes.append("symbol")
    repeats_key = (
        bool(name)
        and bool(normal)
        and (normal == _normal(name or "") or (len(normal) >= 4 and normal in _normal(name or "")))
    )
    hex_digest = (
        kind == "hex"
        and len(stripped) in _HEX_DIGEST_LENGTHS
        and (stripped.islower() or stripped.isupper() or stripped.isdigit())
    )
    placeholder = (
        normal in PLACEHOLDER_WORDS
        or vocabulary_only(head)
        or (len(stripped) >= 4 and len(set(stripped.lower())) == 1)
        or bool(_PLACEHOLDER_SHAPE.fullmatch(head.lower()))
    )
    return {
        "length": len(value),
        "charset": classes,
        "entropy": round(entropy(value), 2),
        "distinct_characters": len(set(value)),
        "shape": kind,
        "public_key": stripped.startswith(_PUBLIC_KEY_PREFIXES),
        "placeholder_word": placeholder,
        "reference": is_reference(head),
        "descriptive_text": kind == "words" and _descriptive(head),
        "repeats_key_name": repeats_key,
        "hash_like": hex_digest,
        "named_as_hash": bool(name) and bool(_HASH_CONTEXT.search(name or "")),
        "key_name_length": len(name) if name else 0,
    }
