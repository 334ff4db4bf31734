"""detect-secrets' format parsers (YAML, config), and when they must be left out.

detect-secrets reads YAML and config files parsed, and tries its config parser on any
file where nothing was found. Two kinds of file cannot go through them: a piece of a
large file (no parser can read a piece), and text whose runs of blanks make the
config parser's option regex take the square of their length. Both are read as plain
lines instead, and counted as such.

detect-secrets tries its config parser on every file, twice when nothing is found
(once as it is, once under an added ``[global]`` header), and almost every file is
no config file: the parser reads it, fails, and the file is read another way. Where
a glance at the text proves that the parser fails (``config_fails``), it is not run:
the answer is the same, without building a parser and reading the whole file.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from detect_secrets.transformers import get_transformers
from detect_secrets.transformers.config import ConfigFileTransformer, EagerConfigFileTransformer
from detect_secrets.transformers.exceptions import ParsingError
from detect_secrets.transformers.yaml import YAMLTransformer
from detect_secrets.types import NamedIO
from detect_secrets.util.filetype import FileType, determine_file_type

from thresher.findings import yaml_lines
from thresher.findings.config_lines import is_config, parse_config
from thresher.findings.re2_classes import Encoded, compile_re2, python_class, searchable_utf8

# configparser's option regex, which detect-secrets runs on every line of a config file
# and (eagerly) of any file with no findings, costs the square of each run of blanks.
_BLANK = r"[^\S\n]"
_LONG = 64  # blanks in a run whose cost is counted
_BLANK_RUN = re.compile(_BLANK + f"{{{_LONG},}}")
PARSE_BUDGET = 20_000_000  # the sum of those squares up to which parsing stays cheap


def parsable(text: str, shared: Encoded | None = None) -> bool:
    """Whether detect-secrets' format parsers can read ``text`` in bounded time.

    Ordinary files stay far below the budget (indentation is short); a file built of
    long runs of blanks is read as plain lines instead, as any other file is, and is
    counted, because a value only a parser would have found there is not found.

    The runs are found by RE2 (one pass of an automaton, where Python's engine tries
    every blank as a start), with the class spelled as Python's; each run's length is
    counted in characters, as the Python regex counts it."""
    cost = 0
    data = shared.utf8 if shared is not None and shared.of(text) else searchable_utf8(text)
    if text.isascii() and _ASCII_RUN not in data.translate(_ASCII_BLANKS):
        return True  # no run at all: the search below, an automaton's pass, finds none
    for run in _blank_run().finditer(data):
        cost += len(run.group().decode()) ** 2
        if cost > PARSE_BUDGET:
            return False
    return True


# An ASCII text's blanks (``_BLANK``'s ASCII members) as spaces: it holds a run of
# ``_BLANK`` as long as ``_ASCII_RUN`` exactly where the translation holds that one
# (a byte translation and a search for a long needle, both far cheaper in C).
_ASCII_BLANKS = bytes.maketrans(b"\t\x0b\x0c\r\x1c\x1d\x1e\x1f", b" " * 8)
_ASCII_RUN = b" " * _LONG


@cache
def _blank_run() -> Any:
    return compile_re2(f"[{python_class(_BLANK)}]{{{_LONG},}}")


_PARSED_TYPES = frozenset(
    {FileType.YAML, FileType.CONFIG, FileType.INI, FileType.PROPERTIES, FileType.TOML}
)


def has_format_parser(path: str) -> bool:
    """Whether this is a YAML or config file, which detect-secrets reads parsed.

    (Its config parser is tried on every file, but only these are meant for it.)"""
    return determine_file_type(path) in _PARSED_TYPES


def transformed(handle: NamedIO, text: str, *, eager: bool) -> list[str] | None:
    """The parsed file, or None: a parser that fails in a way detect-secrets does not
    expect (a YAML nested deeper than the recursion limit) leaves the plain lines.

    ``get_transformed_file`` step for step (``text`` is what ``handle`` holds), except
    that a config parser proven to fail on ``text`` is passed over as its failure is,
    and that the config parser finds its lines without a regex per line
    (``config_lines``), and the YAML parser's reader steps over runs of characters
    (``yaml_lines``), where their sources are the ones read for that."""
    try:
        transformer: Any
        for transformer in get_transformers():
            # Both checks only pass a transformer over; the cheaper (a flag) first.
            if eager != transformer.is_eager:
                continue
            if not transformer.should_parse_file(handle.name):
                continue
            if config_fails(transformer, text):
                continue
            try:
                lines: list[str]
                if is_config(transformer) and _known_config_sources():
                    lines = parse_config(transformer, handle)
                elif type(transformer) is YAMLTransformer and yaml_lines.known():
                    lines = yaml_lines.parse_file(transformer, handle)
                else:
                    lines = transformer.parse_file(handle)
                return lines
            except ParsingError:
                pass
            finally:
                handle.seek(0)
        return None
    except Exception:  # hostile input: any failure of a parser means "not parsed"
        handle.seek(0)
        return None


# The sources the proofs below were read from: another release parses differently.
_CONFIG_SOURCES = {
    "detect_secrets.transformers.config": "ba24cf634652bbe4",
    "configparser.RawConfigParser._read": "9f355e1dbb22a2a0",
}
# Without a header, the first line that is neither blank nor a comment.
_FIRST_CONTENT = re.compile(r"^[^\S\n]*([^\s#;])", re.MULTILINE)
# Under the added header, a line that is no continuation (it starts in the first
# column), no comment, no section header, and has no delimiter: a parsing error.
_BARE_LINE = re.compile(r"^[^\s#;\[=:][^\n=:]*$", re.MULTILINE)


def config_fails(transformer: object, text: str) -> bool:
    """Whether detect-secrets' config transformer certainly fails on ``text``.

    configparser reads the text line by line (split at newlines only). A full-line
    comment starts, after blanks, with ``#`` or ``;``; a blank or comment line is
    passed over. Without a header (``ConfigFileTransformer``) the first other line
    must be a section header, which starts with ``[`` (else
    ``MissingSectionHeaderError``), and a text with no such line has no section, which
    ``IniFileParser`` refuses. Under the ``[global]`` header the eager transformer
    adds, a line whose first character is no blank is never a continuation (its
    indent, 0, is not deeper than any before); if it is no comment, starts with no
    ``[`` and holds neither ``=`` nor ``:``, it is neither a section nor an option, a
    parsing error configparser raises at the end of the file. Every such failure is a
    ``configparser.Error``, which the transformer turns into the ``ParsingError``
    ``get_transformed_file`` passes over."""
    kind = type(transformer)
    if kind is ConfigFileTransformer:
        if not _known_config_sources():
            return False
        first = _FIRST_CONTENT.search(text)
        return first is None or first.group(1) != "["
    if kind is EagerConfigFileTransformer:
        return _known_config_sources() and _BARE_LINE.search(text) is not None
    return False


@cache
def _known_config_sources() -> bool:
    """Whether the parsers are the ones read for ``config_fails``; when their source
    cannot be read, they are taken as unknown (the parsers then always run)."""
    import configparser
    import hashlib
    import inspect
    import sys

    read = configparser.RawConfigParser._read  # type: ignore[attr-defined]
    for name, expected in _CONFIG_SOURCES.items():
        try:
            source = inspect.getsource(
                read if name.startswith("configparser.") else sys.modules[name]
            )
        except (OSError, TypeError, KeyError):
            return False
        if hashlib.sha256(source.encode()).hexdigest()[:16] != expected:
            return False
    return True
