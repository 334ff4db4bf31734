"""detect-secrets' YAML parser, with PyYAML's reader stepping over runs, not characters.

YAML files are about 2% of a tree's bytes and a fifth of a scan's time: detect-secrets
reads them through PyYAML's pure-Python loader (its shims hook ``compose_node`` and read
the reader's line, which libyaml's loader cannot offer), and that loader's scanner steps
one character per method call: ``Reader.forward`` per character, a loop of ``peek``
calls over each plain scalar and each run of blanks, a copy of the possible simple keys
before every token. ``_Loader`` answers those few methods for a text held whole (the
only input detect-secrets gives it) with the same effect on every field the scanner
reads (pointer, index, line, column, tokens, simple keys), a run at a time: a regex
finds where a plain scalar, a run of blanks or a comment ends, and ``forward`` moves
over a run without line breaks or byte-order marks in one step (anything else goes
through PyYAML's own ``forward``). Every other method is PyYAML's, so the tokens, marks,
errors and lines are the ones the stock loader gives.

``parse_file`` is ``YAMLTransformer.parse_file`` itself (its code object, run with
``_Parser`` in place of ``YAMLFileParser``), and ``_Parser`` is ``YAMLFileParser`` with
this loader. It runs only where the sources it was written against are the ones
installed (``known``, by digest); otherwise detect-secrets' transformer runs as it is.
"""

from __future__ import annotations

import re
import types
from functools import cache
from typing import Any

import yaml
from detect_secrets.transformers import yaml as ds_yaml
from detect_secrets.types import NamedIO
from yaml.tokens import ScalarToken

# What ``Reader.forward`` does more for than count a column: line breaks, and the BOM.
_NOT_A_COLUMN = frozenset("\n\x85\u2028\u2029\r\ufeff")
_NOT_A_COLUMN_RE = re.compile("[\n\x85\u2028\u2029\r\ufeff]")
_BLANKS = re.compile(" *")
# The characters ``fetch_more_tokens`` checks before a plain scalar, and those
# ``check_plain`` refuses to start one with (unless a non-blank follows, a case left to
# PyYAML): any other character starts a plain scalar.
_NOT_PLAIN = frozenset("\0 \t\r\n\x85\u2028\u2029-?:,[]{}#&*!|>'\"%@`.")
_COMMENT = re.compile("[^\0\r\n\x85\u2028\u2029]*")
# Where ``scan_plain``'s inner loop stops: at a character of ``_END``, or at a ``:``
# followed by one (in a flow, also at ``,?[]{}``, and at a ``:`` followed by ``,[]{}``).
# Each repetition starts with a ``:`` the class before it cannot match: linear.
_END = "\0 \t\r\n\x85\u2028\u2029"
_BLOCK_RUN = re.compile(f"[^{_END}:]*(?::(?![{_END}])[^{_END}:]*)*")
_FLOW_STOP = ",?\\[\\]{}"
_FLOW_RUN = re.compile(
    f"[^{_END}:{_FLOW_STOP}]*(?::(?![{_END},\\[\\]{{}}])[^{_END}:{_FLOW_STOP}]*)*"
)

# The sources ``_Loader`` and ``parse_file`` were read against (sha256, 16 hex digits).
_SOURCES = {
    "detect_secrets.transformers.yaml": "9f5d3824c23f7394",
    "yaml.reader.Reader.__init__": "7a9b04d3680cf04a",
    "yaml.reader.Reader.update": "c6fe8bac9b65bc39",
    "yaml.reader.Reader.forward": "859e786fd0c95716",
    "yaml.scanner.Scanner.check_token": "7cf5fee86f5bb03e",
    "yaml.scanner.Scanner.peek_token": "8607e81ba1660bcb",
    "yaml.scanner.Scanner.get_token": "3ba7c50a9f5239a5",
    "yaml.scanner.Scanner.fetch_more_tokens": "4178ce0833e1928c",
    "yaml.scanner.Scanner.check_plain": "4e69d47015989d56",
    "yaml.scanner.Scanner.fetch_plain": "2b770e919537f5ce",
    "yaml.scanner.Scanner.unwind_indent": "416b1de2e4f0e01f",
    "yaml.scanner.Scanner.need_more_tokens": "51c5f6f018c97d20",
    "yaml.scanner.Scanner.next_possible_simple_key": "1299e3cd86c74fb2",
    "yaml.scanner.Scanner.stale_possible_simple_keys": "d5bcff67d2f9d5f6",
    "yaml.scanner.Scanner.scan_to_next_token": "dc9921d77c615bb8",
    "yaml.scanner.Scanner.scan_plain": "14a1128518d2243c",
}


class _Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` over a ``str``, its per-character steps taken a run at a time.

    For a ``str`` the reader's buffer is the text and a ``\\0`` (``update`` does
    nothing), which every method below relies on."""

    def forward(self, length: int = 1) -> None:
        pointer = self.pointer
        end = pointer + length
        buffer = self.buffer
        if end < len(buffer):
            if length == 1:
                if buffer[pointer] not in _NOT_A_COLUMN:
                    self.pointer = end
                    self.index += 1
                    self.column += 1
                    return
            elif _NOT_A_COLUMN_RE.search(buffer, pointer, end) is None:
                self.pointer = end
                self.index += length
                self.column += length
                return
        super().forward(length)

    # The token queue's three readers. With a token queued and no possible simple key,
    # ``need_more_tokens`` answers no at once: the loop is not entered.

    def check_token(self, *choices: Any) -> bool:
        if not self.tokens or self.possible_simple_keys:
            while self.need_more_tokens():
                self.fetch_more_tokens()
        if self.tokens:
            return not choices or isinstance(self.tokens[0], choices)
        return False

    def peek_token(self) -> Any:
        if not self.tokens or self.possible_simple_keys:
            while self.need_more_tokens():
                self.fetch_more_tokens()
        return self.tokens[0] if self.tokens else None

    def get_token(self) -> Any:
        if not self.tokens or self.possible_simple_keys:
            while self.need_more_tokens():
                self.fetch_more_tokens()
        if self.tokens:
            self.tokens_taken += 1
            return self.tokens.pop(0)
        return None

    def fetch_more_tokens(self) -> Any:
        # PyYAML's first steps; then a character that starts no other token starts a
        # plain scalar (none of the checks before ``check_plain`` can hold for it, and
        # ``check_plain`` holds). Any other goes through PyYAML's own method, whose
        # first steps then change nothing: the next token is already reached, the
        # stale keys are gone, the indentation is unwound to this column.
        self.scan_to_next_token()
        self.stale_possible_simple_keys()
        self.unwind_indent(self.column)
        if self.peek() not in _NOT_PLAIN:
            return self.fetch_plain()
        return super().fetch_more_tokens()

    def need_more_tokens(self) -> bool | None:
        if self.done:
            return False
        if not self.tokens:
            return True
        keys = self.possible_simple_keys
        if not keys:
            return None  # nothing stale; no next possible key (PyYAML's None)
        self.stale_possible_simple_keys()
        if keys and min(key.token_number for key in keys.values()) == self.tokens_taken:
            return True
        return None

    def stale_possible_simple_keys(self) -> None:
        keys = self.possible_simple_keys
        line, index = self.line, self.index
        for key in keys.values():
            if key.line != line or index - key.index > 1024:
                # One is stale: PyYAML's loop drops (or raises for) each, in its order.
                super().stale_possible_simple_keys()
                return

    def scan_to_next_token(self) -> None:
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        buffer = self.buffer
        while True:
            blanks = _BLANKS.match(buffer, self.pointer)
            assert blanks is not None  # `` *`` matches everywhere
            if blanks.end() > self.pointer:
                self.forward(blanks.end() - self.pointer)
            if self.peek() == "#":
                comment = _COMMENT.match(buffer, self.pointer)
                assert comment is not None
                if comment.end() > self.pointer:
                    self.forward(comment.end() - self.pointer)
            if self.scan_line_break():  # type: ignore[no-untyped-call]
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                return

    def scan_plain(self) -> ScalarToken:
        chunks: list[str] = []
        start_mark = self.get_mark()
        end_mark = start_mark
        indent = self.indent + 1
        spaces: list[str] | None = []
        run = _FLOW_RUN if self.flow_level else _BLOCK_RUN
        while True:
            if self.peek() == "#":
                break
            found = run.match(self.buffer, self.pointer)
            assert found is not None  # every part of the pattern may be empty
            length = found.end() - self.pointer
            if length == 0:
                break
            self.allow_simple_key = False
            chunks.extend(spaces or ())
            chunks.append(self.prefix(length))
            self.forward(length)
            end_mark = self.get_mark()
            spaces = self.scan_plain_spaces(indent, start_mark)
            if not spaces or self.peek() == "#" or (not self.flow_level and self.column < indent):
                break
        return ScalarToken("".join(chunks), True, start_mark, end_mark)


class _Parser(ds_yaml.YAMLFileParser):
    """``YAMLFileParser`` as written, on ``_Loader``."""

    def __init__(self, file: NamedIO) -> None:
        self.content = file.read()
        self.loader = _Loader(self.content)
        self.loader.compose_node = self._compose_node_shim  # type: ignore[method-assign,assignment]
        self.is_inline_flow_mapping_key = False
        self.loader.parse_flow_mapping_key = self._parse_flow_mapping_key_shim  # type: ignore[method-assign]


@cache
def _parse_file() -> Any:
    """``YAMLTransformer.parse_file``'s own code, with ``_Parser`` for ``YAMLFileParser``."""
    original = ds_yaml.YAMLTransformer.parse_file
    namespace = {**vars(ds_yaml), "YAMLFileParser": _Parser}
    return types.FunctionType(original.__code__, namespace, original.__name__)


def parse_file(transformer: ds_yaml.YAMLTransformer, handle: NamedIO) -> list[str]:
    """What ``transformer.parse_file(handle)`` returns, or raises (``ParsingError``)."""
    lines: list[str] = _parse_file()(transformer, handle)
    return lines


@cache
def known() -> bool:
    """Whether the installed sources are the ones read here (else the stock parser)."""
    import hashlib
    import inspect

    from yaml.reader import Reader
    from yaml.scanner import Scanner

    read: dict[str, Any] = {"detect_secrets.transformers.yaml": ds_yaml}
    for owner, prefix in ((Reader, "yaml.reader.Reader."), (Scanner, "yaml.scanner.Scanner.")):
        for name in _SOURCES:
            if name.startswith(prefix):
                read[name] = getattr(owner, name.removeprefix(prefix), None)
    for name, expected in _SOURCES.items():
        try:
            source = inspect.getsource(read[name])
        except (OSError, TypeError, KeyError):
            return False
        if hashlib.sha256(source.encode()).hexdigest()[:16] != expected:
            return False
    return True
