"""The early answers in front of detect-secrets' filters change no answer."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from detect_secrets.filters import allowlist, heuristic
from detect_secrets.util.code_snippet import CodeSnippet

from thresher.findings import allowlist_re2, filters_fast

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "dev" / "files"


def lines() -> list[str]:
    """Lines from the dev corpus when it is there, and lines built to sit on each edge."""
    rng = random.Random(9)
    found: list[str] = []
    if CORPUS.is_dir():
        files = sorted(p for p in CORPUS.rglob("*") if p.is_file())
        for path in rng.sample(files, min(300, len(files))):
            text = path.read_bytes()[:20_000].decode("utf-8", "replace")
            found += [line for line in text.splitlines() if line.strip()][:80]
    pieces = ["x", "=", ":", "!", "(", ")", "[", "]", " ", "a.b", "get_key", "'v'", "\v", "-"]
    # Where Python's classes and RE2's differ: Unicode blanks and word characters, a
    # lone surrogate, line separators other than the newline.
    pieces += ["\u3000", "\x1c", "\u00e9", "\u0663", "\u2028", "\ud800", "\t", "\x85", "_"]
    built = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(5000)]
    return found + built + [
        "secret = get_secret_key()", "secret = request.headers['apikey']", ")x = y(",
        "a = b(", "a = (b)", "a(b) = c", "a != b[c]", "k: v(1)", "(=)", "=(]",
    ]  # fmt: skip


@pytest.mark.slow
def test_the_reference_filter_answers_as_detect_secrets_does() -> None:
    for line in lines():
        assert filters_fast.is_indirect_reference(line) == heuristic.is_indirect_reference(line), (
            line
        )


def test_the_pragma_filter_answers_as_detect_secrets_does() -> None:
    sample = lines()
    pragmas = [
        "x = 1  # pragma: allowlist secret", "# pragma: allowlist nextline secret",
        "y = 2 // pragma: whitelist secret", "z = 3 /* pragma: allowlist secret */",
        "pragma allowlist secret", "# pragma:allowlist-secret",
    ]  # fmt: skip
    for line, previous in itertools.product(pragmas + sample[:200], pragmas + sample[:40]):
        for name in ("app.py", "config.yaml"):
            snippet = CodeSnippet([previous, line], 1, 1)
            expected = allowlist.is_line_allowlisted(name, line, snippet)
            assert allowlist_re2.is_line_allowlisted(name, line, snippet) == expected, (
                line,
                previous,
            )
