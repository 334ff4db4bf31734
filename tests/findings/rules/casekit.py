"""The pieces the rule cases are built from: a case, random values, joined prefixes.

The cases (one positive and one negative line per built-in rule) are generated at test time.

Every value is built from random pieces with a fixed seed, in the provider's documented
shape (and with a correct checksum where the provider defines one): well-formed, never
a live credential, and never a literal token in the repository.
"""

from __future__ import annotations

import base64
import random
import string
from dataclasses import dataclass

from thresher.validators.offline import crc32_base62

ALNUM = string.ascii_letters + string.digits
LOWER_HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
URLSAFE = string.ascii_letters + string.digits + "_-"
BASE32 = string.ascii_uppercase + "234567"


@dataclass(frozen=True)
class Case:
    """``line`` in a file named ``path`` must yield ``value`` from the rule;
    ``negative`` (same file name) must yield nothing from it."""

    path: str
    line: str
    value: str
    negative: str


def pick(alphabet: str, length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


def p(*parts: str) -> str:
    """Joins pieces: prefixes are never written whole beside a body in the source."""
    return "".join(parts)


def npm(seed: int, *, valid: bool = True) -> str:
    body = pick(ALNUM, 30, seed)
    check = crc32_base62(body)
    if not valid:
        check = check[:-1] + ("A" if check[-1] != "A" else "B")
    return p("npm", "_", body, check)


def pem(kind: str, seed: int) -> str:
    rows = "\n".join(pick(B64, 64, seed + i) for i in range(3))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{rows}\n-----END {kind}PRIVATE KEY-----"


def der_blob(size: int, seed: int) -> str:
    """Base64 of random bytes behind a DER SEQUENCE header with a two-byte length, the
    shape a PKCS#12 keystore starts with (``MII...``): no key, no certificate inside."""
    rng = random.Random(seed)
    body = bytes(rng.randrange(256) for _ in range(size))
    return base64.b64encode(b"\x30\x82" + len(body).to_bytes(2, "big") + body).decode()
