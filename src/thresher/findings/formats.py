"""detect-secrets' format parsers (YAML, config), and when they must be left out.

detect-secrets reads YAML and config files parsed, and tries its config parser on any
file where nothing was found. Two kinds of file cannot go through them: a piece of a
large file (no parser can read a piece), and text whose runs of blanks make the
config parser's option regex take the square of their length. Both are read as plain
lines instead, and counted as such.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from detect_secrets.transformers import get_transformed_file
from detect_secrets.types import NamedIO
from detect_secrets.util.filetype import FileType, determine_file_type

from thresher.findings.re2_classes import compile_re2, python_class, searchable

# configparser's option regex, which detect-secrets runs on every line of a config file
# and (eagerly) of any file with no findings, costs the square of each run of blanks.
_BLANK = r"[^\S\n]"
_BLANK_RUN = re.compile(_BLANK + "{64,}")
PARSE_BUDGET = 20_000_000  # the sum of those squares up to which parsing stays cheap


def parsable(text: str) -> bool:
    """Whether detect-secrets' format parsers can read ``text`` in bounded time.

    Ordinary files stay far below the budget (indentation is short); a file built of
    long runs of blanks is read as plain lines instead, as any other file is, and is
    counted, because a value only a parser would have found there is not found.

    The runs are found by RE2 (one pass of an automaton, where Python's engine tries
    every blank as a start), with the class spelled as Python's; each run's length is
    counted in characters, as the Python regex counts it."""
    cost = 0
    for run in _blank_run().finditer(searchable(text).encode()):
        cost += len(run.group().decode()) ** 2
        if cost > PARSE_BUDGET:
            return False
    return True


@cache
def _blank_run() -> Any:
    return compile_re2(f"[{python_class(_BLANK)}]{{64,}}")


_PARSED_TYPES = frozenset(
    {FileType.YAML, FileType.CONFIG, FileType.INI, FileType.PROPERTIES, FileType.TOML}
)


def has_format_parser(path: str) -> bool:
    """Whether this is a YAML or config file, which detect-secrets reads parsed.

    (Its config parser is tried on every file, but only these are meant for it.)"""
    return determine_file_type(path) in _PARSED_TYPES


def transformed(handle: NamedIO, *, eager: bool) -> list[str] | None:
    """The parsed file, or None: a parser that fails in a way detect-secrets does not
    expect (a YAML nested deeper than the recursion limit) leaves the plain lines."""
    try:
        return get_transformed_file(handle, use_eager_transformers=eager)
    except Exception:  # hostile input: any failure of a parser means "not parsed"
        handle.seek(0)
        return None
