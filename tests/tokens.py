"""Test tokens generated at test time: well-formed, never real, never committed."""

from __future__ import annotations

import random
import string

from thresher.validators.offline import crc32_base62

_ALPHABET = string.ascii_letters + string.digits


def github_token(prefix: str = "ghp", seed: int = 7, *, valid_checksum: bool = True) -> str:
    """A classic GitHub token with a correct (or deliberately wrong) CRC32 checksum."""
    rng = random.Random(seed)
    body = "".join(rng.choice(_ALPHABET) for _ in range(30))
    checksum = crc32_base62(body)
    if not valid_checksum:
        checksum = checksum[:-1] + ("A" if checksum[-1] != "A" else "B")
    return f"{prefix}_{body}{checksum}"


def random_secret(length: int = 40, seed: int = 11) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(_ALPHABET) for _ in range(length))
