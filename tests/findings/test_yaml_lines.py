"""The YAML lines are detect-secrets' own, however the text is built, errors included."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest
from detect_secrets.transformers import get_transformed_file
from detect_secrets.transformers.yaml import YAMLTransformer

from thresher.findings import formats, yaml_lines
from thresher.findings.engine import _NamedText

# Pieces of YAML that move the scanner's every path: keys, plain scalars with ``:``
# inside and at their end, flows, anchors, tags, block scalars, quotes and escapes,
# comments, every line break PyYAML knows, the BOM, tabs, document markers.
_PIECES = [
    "key", "value", "pass", "a:b", ": ", ":", "- ", "-", "{", "}", "[", "]", ", ", ",",
    "#c", " #c", "? ", "&a ", "*a", "!!binary ", "| ", ">- ", "'q'", '"d"', '"e\\"x"',
    "'it''s'", " ", "  ", "\t", "\n", "\n  ", "\n    ", "\x85", "\u2028", "\u2029",
    "\ufeff", "\r", "\r\n", "---\n", "...\n", "aGVsbG8=", "%YAML 1.1\n", "x" * 30,
    "ab12cd34ef56ab78cd90ef12ab34cd56", "\\", "é", "https://u:p@h/x", "a: {b: c, d: e}",
]  # fmt: skip

_DOCUMENTS = [
    "password: hunter2\n",
    "db:\n  user: admin  # the owner\n  password: 'p@ss:word'\n",
    "a: &x s3cr3t-value\nb: *x\nc:\n  - *x\n",
    "inline: {token: abcdef0123456789abcdef, other: [1, 2, x:y]}\n\n",
    "{key: value}\n\nnext: v\n",
    "text: |\n  line one\n  line two: not a key\nfolded: >\n  a\n  b\n",
    "plain: this is\n  a folded\n  plain scalar\nafter: x\n",
    "bin: !!binary aGVsbG8gd29ybGQ=\n",
    "\ufeffbom: first\n",
    "crlf: a\r\nnext: b\r\n",
    "nel: a\x85next: b\u2028sep: c\u2029end: d\n",
    "url: https://user:pass@example.com:8080/path?q=1#frag\n",
    "deep:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 30)) + "  " * 30 + "v: x\n",
    "bad: [unclosed\n",
    "key: value\n  bad indent: x\n",
    "- a\n- b: c\n  d: e\n- [f, {g: h}]\n",
    "? complex key\n: complex value\n",
    "tab:\tvalue\n",
    "---\nfirst: 1\n...\n",
    "long: " + "k" * 2000 + "\n",
]


_KEYS = ["password", "key", "a b", "'quoted key'", "x:y", "-dash", "token_1", "é"]
_VALUES = [
    "hunter2", "p@ss:word", "'single'", '"double \\" esc"', "[a, b:c, {d: e}]", "{f: g}",
    "&anchor val", "*anchor", "!!binary aGVsbG8=", "|\n  block\n  text", ">\n  folded",
    "multi\n  line plain", "a#b", "http://h:1/p#f", "ab12cd34ef56ab78cd90", "", "~", "12",
    "-x", ": odd", "\t tab", "'it''s'", "x" * 40,
]  # fmt: skip


def _texts() -> Iterator[str]:
    yield from _DOCUMENTS
    rng = random.Random(7)
    for _ in range(3000):  # pieces at random: mostly errors, every scanner path
        yield "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 40)))
    for _ in range(2000):  # mappings: mostly documents that parse
        lines = []
        for _ in range(rng.randint(1, 10)):
            indent = rng.choice(["", "", "", "  "])
            value = rng.choice(_VALUES).replace("\n", "\n" + indent + "  ")
            comment = rng.choice(["", "", " # note", "  #x: y"])
            line_break = rng.choice(["\n", "\n", "\n\n", "\r\n", "\x85", " \n"])
            lines.append(f"{indent}{rng.choice(_KEYS)}: {value}{comment}{line_break}")
        yield rng.choice(["", "---\n", "\ufeff"]) + "".join(lines)


def _outcome(parse: Callable[[_NamedText], list[str] | None], text: str) -> list[str] | str | None:
    try:
        return parse(_NamedText(text, "values.yaml"))
    except Exception as exc:  # the stock parser's failures must be ours too
        return type(exc).__name__


def test_the_lines_and_failures_are_the_stock_parsers() -> None:
    transformer = YAMLTransformer()
    outcomes: list[list[str] | str] = []
    for text in _texts():
        expected = _outcome(transformer.parse_file, text)
        got = _outcome(lambda handle: yaml_lines.parse_file(transformer, handle), text)
        assert got == expected, text
        outcomes.append(expected)
    # Not all errors: many texts parse, and some to lines holding values.
    assert sum(isinstance(outcome, list) for outcome in outcomes) > 700
    assert sum(isinstance(outcome, list) and bool(outcome) for outcome in outcomes) > 300


def test_the_installed_sources_are_the_ones_read() -> None:
    yaml_lines.known.cache_clear()
    assert yaml_lines.known()


def test_another_release_runs_the_stock_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(self: object, *args: object) -> None:
        raise AssertionError("the run-at-a-time loader ran for an unknown release")

    yaml_lines.known.cache_clear()
    monkeypatch.setitem(yaml_lines._SOURCES, "yaml.scanner.Scanner.scan_plain", "0" * 16)
    monkeypatch.setattr(yaml_lines._Loader, "scan_plain", refused)
    try:
        assert not yaml_lines.known()
        for text in _DOCUMENTS:
            stock = _outcome(get_transformed_file, text)
            expected = stock if isinstance(stock, list) else None  # a failure: plain lines
            assert formats.transformed(_NamedText(text, "values.yaml"), text, eager=False) == (
                expected
            )
    finally:
        yaml_lines.known.cache_clear()


def test_the_scan_reads_yaml_through_the_fast_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    original = yaml_lines._Loader.scan_plain

    def counted(self: yaml_lines._Loader) -> object:
        read.append(self.name)
        return original(self)

    monkeypatch.setattr(yaml_lines._Loader, "scan_plain", counted)
    text = _DOCUMENTS[1]
    lines = formats.transformed(_NamedText(text, "values.yaml"), text, eager=False)
    assert lines == get_transformed_file(_NamedText(text, "values.yaml"))
    assert read
