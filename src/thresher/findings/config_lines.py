"""detect-secrets' config parser, step for step, without compiling a regex per line.

``IniFileParser._get_value_and_line_offset`` finds the line of each option by building
``^\\s*{key}[ :=]+{value}`` (both escaped) and matching it, and it builds that regex
again for every line it tries until the key is found. Every key and value differ, so
Python's regex cache never holds it: a config file with long values costs a regex
compilation (a parse of the whole escaped value) per line before each key. The
pattern is literal text around a run of blanks and delimiters, so the same question is
answered here with string comparisons (``first_line_matches``); everything else is
detect-secrets' code as it reads, and it runs only where ``formats`` has checked that
the module is the one read here (its source digest), so the result is the same.
"""

from __future__ import annotations

import configparser
from typing import Any

from detect_secrets.transformers.config import (
    ConfigFileTransformer,
    EagerConfigFileTransformer,
    IniFileParser,
    _construct_values_list,
    _is_allowlist_nextline_secret_comment,
)
from detect_secrets.transformers.exceptions import ParsingError
from detect_secrets.types import NamedIO

_DELIMITERS = " :="


def first_line_matches(line: str, key: str, value: str) -> bool:
    """Whether ``re.compile(r'^\\s*{key}[ :=]+{value}'.format(key=re.escape(key),
    value=re.escape(value))).match(line)`` matches.

    The escaped key and value are literal text. ``\\s`` in a ``str`` pattern is what
    ``str.isspace`` holds, as is what ``str.lstrip`` strips; each repetition may give
    back characters, so every split the regex engine would try is tried."""
    blanks = len(line) - len(line.lstrip())
    for lead in range(blanks + 1):
        if not line.startswith(key, lead):
            continue
        at = lead + len(key)
        run = at
        while run < len(line) and line[run] in _DELIMITERS:
            run += 1
        if any(line.startswith(value, cut) for cut in range(at + 1, run + 1)):
            return True
    return False


class _IniFileParser(IniFileParser):
    """``IniFileParser`` with its line search answered by ``first_line_matches``."""

    def _get_value_and_line_offset(self, key: str, values: str) -> list[tuple[str, int]]:
        # detect-secrets' method as written, but for the first-line regex (see above).
        values_list = _construct_values_list(values)
        if not values_list:
            return []
        current_value_list_index = 0
        output = []
        for line_offset, line in enumerate(self.lines):
            if _is_allowlist_nextline_secret_comment(line):
                output.append((line, self.line_offset + line_offset + 1))
                continue
            if not line or self._comment_regex.match(line):
                continue
            if current_value_list_index == 0:
                if first_line_matches(line, key, values_list[current_value_list_index]):
                    output.append(
                        (
                            values_list[current_value_list_index],
                            self.line_offset + line_offset + 1,
                        )
                    )
                    current_value_list_index += 1
                continue
            if current_value_list_index == len(values_list):
                if line_offset == 0:
                    line_offset = 1
                self.line_offset += line_offset
                self.lines = self.lines[line_offset:]
                break
            output.append(
                (values_list[current_value_list_index], self.line_offset + line_offset + 1)
            )
            current_value_list_index += 1
        else:
            self.lines = []
        return output


def _parse_file(file: NamedIO, add_header: bool = False) -> list[str]:
    # detect-secrets' ``_parse_file`` as written, on the parser above.
    lines: list[str] = []
    for key, value, line_number in _IniFileParser(file, add_header=add_header):
        while len(lines) < line_number - 1:
            lines.append("")
        if _is_allowlist_nextline_secret_comment(value):
            lines.append(value)
            continue
        if value[0] in {"'", '"'} and value[-1] == value[0]:
            value = value[1:-1]
        value = value.replace('"', '\\"')
        lines.append(f'{key} = "{value}"')
    return lines


def is_config(transformer: Any) -> bool:
    """Whether ``parse_config`` stands in for this transformer's ``parse_file``."""
    return type(transformer) in (ConfigFileTransformer, EagerConfigFileTransformer)


def parse_config(transformer: Any, file: NamedIO) -> list[str]:
    """The transformer's ``parse_file``: raises ``ParsingError`` as it does."""
    try:
        return _parse_file(file, add_header=type(transformer) is EagerConfigFileTransformer)
    except configparser.Error:
        raise ParsingError from None
