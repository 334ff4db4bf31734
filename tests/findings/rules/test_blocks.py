"""terraform-sensitive-default: a variable's default, below the line that names it.
Values are generated at test time."""

from __future__ import annotations

import time

from tests.findings.rules.casekit import ALNUM, pick
from thresher.findings.rules.blocks import MAX_BLOCK_LINES, block_default
from thresher.findings.rules.book import builtin_rules
from thresher.findings.rules.matcher import Rulebook

RULE = next(rule for rule in builtin_rules() if rule.id == "terraform-sensitive-default")


def hits(text: str, path: str = "variables.tf") -> list[tuple[int, str]]:
    """(1-based line, value) of the rule's hits."""
    lines = text.split("\n")
    return [(h.index + 1, h.value) for h in Rulebook([RULE]).scan(path, lines, range(len(lines)))]


def password(seed: int) -> str:
    return pick(ALNUM, 16, seed) + "%"


def test_a_default_lines_below_its_variable_is_found_at_its_own_line() -> None:
    value = password(41)
    text = (
        'variable "region" {\n  default = "eu-west-1"\n}\n\n'
        'variable "db_password" {\n'
        '  description = "The {admin} password, see ${path.module}"\n'
        "  type        = string\n"
        "  sensitive   = true\n"
        f'  default     = "{value}"\n'
        "}\n"
    )
    assert hits(text) == [(9, value)]


def test_every_credential_variable_of_a_file_is_read() -> None:
    one, two = password(42), password(43)
    text = (
        f'variable "api_token" {{\n  type = string\n  default = "{one}"\n}}\n'
        f'variable "SECRET_KEY" {{ default = "{two}" }}\n'
    )
    assert hits(text) == [(3, one), (5, two)]


def test_what_is_not_the_blocks_own_literal_default_is_not_read() -> None:
    value = password(44)
    nested = (
        'variable "db_password" {\n  type = string\n  validation {\n'
        f'    default = "{value}"\n    condition = true\n  }}\n}}\n'
    )
    closed = (
        f'variable "db_password" {{\n  type = string\n}}\nlocals {{\n  default = "{value}"\n}}\n'
    )
    reference = 'variable "db_password" {\n  default = "${var.base_password}"\n}\n'
    heredoc = 'variable "db_password" {\n  default = <<EOT\nnot-read\nEOT\n}\n'
    empty = 'variable "db_password" {\n  default = ""\n}\n'
    unnamed = f'variable "db_name" {{\n  type = string\n  default = "{value}"\n}}\n'
    for text in (nested, closed, reference, heredoc, empty, unnamed):
        assert hits(text) == [], text


def test_reading_stops_after_a_bounded_number_of_lines() -> None:
    value = password(45)
    filler = "  # note\n" * (MAX_BLOCK_LINES - 2)
    near = f'variable "db_password" {{\n{filler}  default = "{value}"\n}}\n'
    far = f'variable "db_password" {{\n{filler}  # one more\n  default = "{value}"\n}}\n'
    assert hits(near) == [(MAX_BLOCK_LINES, value)]
    assert hits(far) == []


def test_a_hostile_file_of_open_blocks_stays_bounded() -> None:
    text = ('variable "db_password" {\n' + "{" * 10_000 + "\n") * 200
    assert hits(text) == []


def test_blocks_that_never_close_read_each_line_once() -> None:
    """Each block would read its 40 lines; a block opened inside one already read is
    not opened again, so the file's lines are read once."""
    line = '"x{}" ' * 700  # braces in strings: every character read, the depth stays
    text = ('variable "db_password" {\n' + line + "\n") * 500
    lines = text.split("\n")
    assert hits(text) == []
    started = time.perf_counter()
    Rulebook([RULE]).scan("variables.tf", lines, range(len(lines)))
    assert time.perf_counter() - started < 2.0


def test_a_block_repr_does_not_show_the_text_of_its_default() -> None:
    value = password(31)
    lines = ['variable "db_password" {', f'  default = "{value}"', "}"]
    block = block_default(lines, 0, len(lines[0]))
    assert block.rest is not None and value in block.rest
    assert value not in repr(block) and value not in str(block)
