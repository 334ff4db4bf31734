"""Finding a rule's lines in one pass over the text finds what the line-by-line run
finds, and every way out of it (a pattern it cannot rewrite, a keyword set that cannot
tell, a line holding a newline) still reports the same hits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import pytest
import re2  # type: ignore[import-untyped]

from tests.findings.rules.cases import CASES
from thresher.findings.rules import lines as lines_module
from thresher.findings.rules.book import Rule, builtin_rules
from thresher.findings.rules.lines import (
    KeywordSet,
    first_start,
    line_numbers,
    line_program,
    matching_lines,
)
from thresher.findings.rules.matcher import Rulebook, RuleHit

Found = list[tuple[int, str, str]]


@contextmanager
def line_by_line() -> Iterator[None]:
    """Books built inside run every rule line by line, the way they did before."""
    saved = lines_module.line_program
    lines_module.line_program = lambda pattern: None
    try:
        yield
    finally:
        lines_module.line_program = saved


def found(hits: Sequence[RuleHit]) -> Found:
    return [(hit.index, hit.rule_id, hit.value) for hit in hits]


def every_case() -> list[tuple[str, list[str]]]:
    """Each case's file, its negative and positive lines among others, and all the
    positive lines of one file name together."""
    files: dict[str, list[str]] = {}
    for case in CASES.values():
        files.setdefault(case.path, []).extend(["# x", case.negative, case.line, ""])
    return [(path, "\n".join(text).split("\n")) for path, text in files.items()]


def test_the_builtin_book_finds_what_it_finds_line_by_line() -> None:
    book = Rulebook(builtin_rules())
    with line_by_line():
        reference = Rulebook(builtin_rules())
    total = 0
    for path, text in every_case():
        got = found(book.scan(path, text, range(len(text))))
        assert got == found(reference.scan(path, text, range(len(text)))), path
        total += len(got)
    assert total >= len(CASES)


@pytest.mark.parametrize(
    "pattern",
    [
        r"^key=(\w+)$",
        r"(?i)\bpass\s+(\S+)",
        r"a[^x]*b",
        r"(?s)tok.en",
        r"x*",
        r"(?:^|[\s;])pwd=([^;]*);",
        r"\bend\b$",
    ],
)
def test_a_pass_over_the_text_finds_exactly_the_lines_each_line_matches(pattern: str) -> None:
    chunk = ["key=abc", "pass  word", "a", "b", "tok", "en", "", "x pwd=1;", "the end", "KEY=x"]
    chunk += ["ünïcode pass wört", "a-b", "end", "  pwd=;"]
    encoded = "\n".join(chunk).encode()
    program = line_program(pattern)
    alone = re2.compile(pattern)
    expected = [i for i, line in enumerate(chunk) if alone.search(line) is not None]
    assert list(_numbered(matching_lines(first_start(program), encoded), encoded)) == expected


def _numbered(lines: Iterable[tuple[int, int]], encoded: bytes) -> list[int]:
    """The numbers of ``matching_lines``' lines, each checked to span its line."""
    spans = list(lines)
    numbers = line_numbers(encoded, [begin for begin, _ in spans])
    text = encoded.split(b"\n")
    for begin, end in spans:
        assert encoded[begin:end] == text[numbers[begin]]
    return [numbers[begin] for begin, _ in spans]


def test_a_pattern_meaning_something_else_on_a_whole_text_runs_line_by_line() -> None:
    """``\\A`` is a line's start on one line, the text's start on a whole text."""
    assert line_program(r"\Atoken=(?P<secret>\w+)") is None
    assert line_program(r"(?-m:^)x") is None
    rules = [Rule(id="start", pattern=r"\Atoken=(?P<secret>\w{6,})\z", keywords=("token",))]
    text = ["x", "token=abcdef1", "token=qwerty12 more", "say token=zzzzzzz", "token=123456"]
    assert found(Rulebook(rules).scan("a.txt", text, range(len(text)))) == [
        (1, "start", "abcdef1"),
        (4, "start", "123456"),
    ]


def test_when_the_keyword_set_cannot_tell_every_rule_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    book = Rulebook(builtin_rules())
    expected = {path: found(book.scan(path, text, range(len(text)))) for path, text in every_case()}
    monkeypatch.setattr(KeywordSet, "present", lambda self, lowered: None)
    unsure = Rulebook(builtin_rules())
    for path, text in every_case():
        assert found(unsure.scan(path, text, range(len(text)))) == expected[path]


def test_a_keyword_set_that_does_not_compile_cannot_tell() -> None:
    broken = KeywordSet(["key", "pass"])
    broken._set._set = None  # as when RE2 refuses to compile it
    assert broken.present(b"key") is None
    assert KeywordSet(["key", "pass"]).present(b"my key") == frozenset({"key"})


def test_a_keyword_set_whose_search_fails_cannot_tell() -> None:
    """RE2's set search gives nothing when it runs out of memory: the pattern that
    matches every text is missing then, and the answer is "unknown", not "none"."""

    class Failing:
        def Match(self, text: bytes) -> None:
            return None

    keywords = KeywordSet(["key"])
    keywords._set._set = Failing()  # the binding's set, inside ours
    assert keywords.present(b"key") is None


def test_lines_holding_a_newline_still_find_their_values() -> None:
    """The scanner splits text at newlines; a caller that did not still gets each
    line's values (every rule runs on every line that holds its keyword)."""
    rule = Rule(id="t", pattern=r"token=(?P<secret>[a-z0-9]{8,})", keywords=("token",))
    text = ["a\ntoken=abcd1234", "nothing", "b token=zyxw9876\nc"]
    book = Rulebook([rule])
    with line_by_line():
        reference = Rulebook([rule])
    assert found(book.scan("a.txt", text, range(3))) == [
        (0, "t", "abcd1234"),
        (2, "t", "zyxw9876"),
    ]
    assert found(book.scan("a.txt", text, range(3))) == found(
        reference.scan("a.txt", text, range(3))
    )


def test_a_rule_reads_only_between_its_first_and_last_keyword() -> None:
    """Lines before the first keyword and after the last hold none: not searched, and
    the lines between are each still gated by their own keyword."""
    rule = Rule(id="t", pattern=r"=(?P<secret>[a-z0-9]{8,})", keywords=("token",))
    text = ["x=abcd1234", "token=abcd1235", "y=abcd1236", "TOKEN=abcd1237", "z=abcd1238"]
    with line_by_line():
        reference = Rulebook([rule])
    got = found(Rulebook([rule]).scan("a.txt", text, range(5)))
    assert got == [(1, "t", "abcd1235"), (3, "t", "abcd1237")]
    assert got == found(reference.scan("a.txt", text, range(5)))
    chunk = ["aa", "bb key", "cc", "dd"]
    encoded = "\n".join(chunk).encode()
    program = line_program(r"[a-z]{2}")
    assert _numbered(matching_lines(first_start(program), encoded, (4, 11)), encoded) == [1, 2]


def _generic_texts() -> list[tuple[str, list[str]]]:
    """Lines the generic rules match, and lines they do not, in several files."""
    lines = [
        'api_key = "Zq9vX2mL8pR4tY6w"', "password: hunter2-Zq9vX2", "db_password=S3cr3t!x",
        'setPassword("Zq9vX2mL8p")', "token := 'abcDEF123456xyz'", "secret = get_secret()",
        "credentials: ${CRED}", "salt = 'f00dbabe9988'", "# the key is elsewhere", "",
        "  auth_token: eyJhbGciOi.payload.sig", "nothing here", "ünïcode_key = 'wört1234567'",
        "KEY=x", "a_token_b = 'Zq9vX2mL8pR4'; other_key = 'Mn3bV5cX7zL9'",
    ]  # fmt: skip
    return [
        (path, (lines * 2)[start : start + 12])
        for path in ("a.py", "b.yaml", "c.env", "d.go")
        for start in range(0, len(lines), 3)
    ]


def test_rules_sharing_one_pass_find_what_each_finds_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shared = Rulebook(builtin_rules())
    assert shared._finder._passes  # the generic rules share a pass
    monkeypatch.setattr(lines_module, "SHARED_PASSES", ())
    alone = Rulebook(builtin_rules())
    assert not alone._finder._passes
    total = 0
    for path, text in [*every_case(), *_generic_texts()]:
        got = found(shared.scan(path, text, range(len(text))))
        assert got == found(alone.scan(path, text, range(len(text)))), path
        total += len(got)
    assert total >= len(CASES)


def test_a_shared_pass_whose_set_fails_asks_each_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    class _Failing:  # a set that ran out of memory: no match, not even the sentinel
        def Match(self, data: bytes) -> list[int]:
            return []

    book = Rulebook(builtin_rules())
    reference = Rulebook(builtin_rules())
    for shared in book._finder._passes:
        monkeypatch.setattr(shared._set, "_set", _Failing())  # the binding's set, inside ours
    for path, text in _generic_texts():
        got = found(book.scan(path, text, range(len(text))))
        assert got == found(reference.scan(path, text, range(len(text)))), path
