"""``findings.keyword_re2``: the keyword plugin's RE2 twins find what its regexes find."""

from __future__ import annotations

from typing import Any

import pytest

from thresher.findings.keyword_re2 import Twin, twins

_LINES = (
    'password = "Xq7pLm2vRt9sKw"',
    "api_key: 'a1b2c3d4e5f6g7h8'",
    'const secret = "caf\u00e9-Xq7pLm2vRt9s"',  # not ASCII: the public search
    "nothing to see here",
    "token=",
)


class _PublicOnly:
    """A compiled program as a google-re2 release without the private names shows it."""

    def __init__(self, program: Any) -> None:
        self._inner = program
        self.groups = program.groups

    def search(self, text: str) -> Any:
        return self._inner.search(text)


def test_a_release_without_the_private_match_searches_through_the_public_one() -> None:
    found = twins()
    if not found:
        pytest.skip("this detect-secrets release has no rewritten keyword regexes")
    for original, twin in found.items():
        public = Twin(original, _PublicOnly(twin._program))
        for line in _LINES:
            fast, slow = twin.search(line), public.search(line)
            assert (fast and fast.group(1)) == (slow and slow.group(1)), (original.pattern, line)
