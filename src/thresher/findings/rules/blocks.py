"""A block's own ``default = "..."`` argument, on the block's first line or below it.

Terraform writes a variable's default inside its block, usually a few lines under the
``variable "db_password" {`` line that names it (after ``type``, ``description``,
``sensitive``), so no one line holds both the credential's name and its value. A
``block-default`` rule's pattern matches the block's opening; this module reads on
from there, counting braces outside strings, to the ``default =`` at the block's own
level (not one in a nested ``validation { }`` block), for at most ``MAX_BLOCK_LINES``
lines, ``_LINE_CHARS`` characters of each and ``_MAX_DEPTH`` levels of braces.

The caller passes on where the last block read ended (``Block.last``) and opens no
block before it: a variable block is never inside another, and a hostile file of
unclosed blocks then has each line read once, not once per block above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_BLOCK_LINES = 40
_LINE_CHARS = 4096
_MAX_DEPTH = 32
_NAME = "default"


@dataclass(frozen=True, slots=True)
class Block:
    """What reading a block found: the ``default`` argument's line index and the text
    after its ``=`` (None when there is none), and the last line index read."""

    line: int
    rest: str | None = field(repr=False)  # holds the value: never in a repr or a log
    last: int


def block_default(lines: Sequence[str], index: int, start: int) -> Block:
    """The default argument of the block opened just before ``lines[index][start]``;
    none when the block closes, or the limits pass, without one."""
    depth = 1
    at = index
    for at in range(index, min(len(lines), index + MAX_BLOCK_LINES)):
        text = (lines[at][start:] if at == index else lines[at])[:_LINE_CHARS]
        if depth == 1:
            rest = _argument(text)
            if rest is not None:
                return Block(at, rest, at)
        depth = _depth(text, depth)
        if not 0 < depth <= _MAX_DEPTH:
            break
    return Block(index, None, at)


def _argument(text: str) -> str | None:
    """What follows ``default =`` when the text starts with that argument."""
    stripped = text.lstrip()
    if not stripped.startswith(_NAME):
        return None
    rest = stripped[len(_NAME) :].lstrip()
    if rest[:1] != "=" or rest[1:2] in ("=", ">"):
        return None
    return rest[1:]


def _depth(text: str, depth: int) -> int:
    """The brace depth after ``text``: braces inside a quoted string do not count, nor
    anything after a ``#`` or ``//`` comment."""
    if '"' not in text and "#" not in text and "/" not in text and "}" not in text:
        return depth + text.count("{")
    quoted = False
    escaped = False
    previous = ""
    for char in text:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == "#" or (char == "/" and previous == "/"):
            break
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth <= 0:
                return depth
        previous = char
    return depth
