"""Rules as data: what a rule is, and the rule books it is read from.

detect-secrets knows about twenty token formats and one keyword list; a credential in
a shape it does not know is never triaged. thresher's own rules fill that gap, and
they are data, not code: the built-in book is a TOML file shipped in the package
(``builtin.toml``), and an operator's custom rules in configuration use the very same
fields. A new provider is then a reviewed table of text, not a new module, and
``thresher rules list/show`` can print exactly what runs.

Every pattern is RE2 (linear in the line, whatever the line holds); a pattern RE2
cannot compile is a ``RuleError`` naming the rule, before any file is read.
"""

from __future__ import annotations

import re
import tomllib
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from thresher.findings.model import SecretType, Severity
from thresher.findings.options import RE2_HINT, ScanError, compile_rule_pattern

BUILTIN_FILE = "builtin.toml"
_ID_PATTERN = r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$"


class RuleError(ScanError):
    """A rule that cannot run: a pattern RE2 refuses, a missing field, a duplicate id.
    The message names the rule and the book it came from (exit code 2, a usage error)."""


class RuleKind(StrEnum):
    """How a match becomes a value.

    ``token``: the value group is the secret as it stands (a provider's token format).
    ``assignment``: the value group is the text after ``key =`` / ``key:``; the value is
    read from it the way that syntax's parser would (quotes stripped, a trailing comment
    dropped) and must pass the value filters. ``literal``: the value group is the value
    as written (a URL's password, an XML element's text), and must pass the filters.
    ``pem-block``: the match is a PEM header; the value is the whole block to its END
    line when it is there (what detect-secrets reports for a private key, so both
    sources' reports of one key meet), else the header.

    ``block-default``: the pattern matches a block's opening, through its ``{`` (the
    key group naming it: ``variable "db_password" {``); the value is the block's own
    ``default = "..."`` argument, on that line or one of the next lines
    (``rules.blocks``), read as a quoted assignment and filtered, and reported at its
    own line. ``kubernetes-data`` / ``kubernetes-string-data``: the pattern is only a gate (a
    line saying ``kind: Secret``); the values are read from the manifest's structure
    (``rules.manifests``): each entry under a Secret's ``data:``, base64-decoded, or
    under its ``stringData:``, as written, reported at the line of its key.
    """

    TOKEN = "token"
    ASSIGNMENT = "assignment"
    LITERAL = "literal"
    PEM_BLOCK = "pem-block"
    BLOCK_DEFAULT = "block-default"
    KUBERNETES_DATA = "kubernetes-data"
    KUBERNETES_STRING_DATA = "kubernetes-string-data"


# Kinds whose values come from a file's structure, not from one line's match.
STRUCTURED = {RuleKind.KUBERNETES_DATA: "data", RuleKind.KUBERNETES_STRING_DATA: "stringData"}


class Check(StrEnum):
    """A provider-defined property a value must have to be that provider's token."""

    GITHUB_CRC32 = "github-crc32"  # ghp_ + 30 + CRC32 of the 30, base62, 6 characters
    NPM_CRC32 = "npm-crc32"  # npm_ + 30 + the same checksum
    BASE64 = "base64"  # decodes as base64 (a Kubernetes Secret's data, a key file)
    BASIC_AUTH = "basic-auth"  # base64 of "user:password", as HTTP Basic sends it
    BASE64_PRIVATE_KEY = "base64-private-key"  # base64 of a PEM private key block
    RANDOM = "random"  # reads as generated: no blank, 12+ alphanumerics, mixed
    BASE64_DER = "base64-der"  # base64 of a DER SEQUENCE with a 2-4 byte length (PKCS#12)


class Rule(BaseModel):
    """One detector. ``keywords`` gate it: the pattern runs only on lines that hold one
    of them (case-insensitive, one RE2 set over the whole text: ``rules.lines``); a rule without
    keywords runs on every line."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=80)
    pattern: str = Field(min_length=1)
    provider: str = "custom"
    description: str = ""
    kind: RuleKind = RuleKind.TOKEN
    keywords: tuple[str, ...] = ()
    # The named or numbered group holding the value; default: the named group
    # ``secret`` when the pattern has one, else the whole match. For an assignment, an
    # empty group at the end of the pattern (``(?P<value>)``) marks where the value
    # starts; it is read from the rest of the line (up to ``max_length``).
    value_group: str | int | None = None
    # For assignments: the group holding the key, and the words one of which it must
    # hold as a word ("api key" matches apiKey, API_KEY, x-api-key).
    key_group: str | None = None
    key_words: tuple[str, ...] = ()
    min_length: int = Field(default=1, ge=1)
    max_length: int = Field(default=4096, ge=1)
    min_entropy: float = Field(default=0.0, ge=0.0)  # Shannon bits per character
    checks: tuple[Check, ...] = ()
    severity: Severity = Severity.HIGH
    secret_type: SecretType | None = None
    validator: str | None = None  # the thresher validator that can confirm a hit
    path: str | None = None  # RE2 on the file's path: the rule runs on matching files only

    @field_validator("keywords")
    @classmethod
    def _lower_keywords(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not word.strip() or not word.isascii() for word in value):
            raise ValueError("keywords are non-empty ASCII text")
        return tuple(word.lower() for word in value)

    def compiled(self) -> Any:
        """The RE2 program, or a ``RuleError`` naming this rule."""
        try:
            program = compile_rule_pattern(self.pattern)
        except ValueError as exc:
            raise RuleError(f"rule {self.id!r}: {exc}", hint=RE2_HINT) from None
        for name, group in (("value_group", self.value_group), ("key_group", self.key_group)):
            if isinstance(group, str) and group not in program.groupindex:
                raise RuleError(f"rule {self.id!r}: {name} {group!r} is not a group of its pattern")
            if isinstance(group, int) and not 0 <= group <= program.groups:
                raise RuleError(f"rule {self.id!r}: {name} {group} is not a group of its pattern")
        if self.key_words and self.key_group is None:
            raise RuleError(f"rule {self.id!r}: key_words need a key_group")
        return program

    def compiled_path(self) -> Any:
        """The RE2 program of ``path``, or None when the rule runs on every file."""
        if self.path is None:
            return None
        try:
            return compile_rule_pattern(self.path)
        except ValueError as exc:
            raise RuleError(f"rule {self.id!r}: path {exc}", hint=RE2_HINT) from None

    def group(self, program: Any) -> str | int:
        """Which group holds the value (see ``value_group``)."""
        if self.value_group is not None:
            return self.value_group
        return "secret" if "secret" in program.groupindex else 0


def parse_book(data: dict[str, Any], where: str) -> tuple[Rule, ...]:
    """The ``[[rule]]`` tables of a parsed rule book, validated; errors name the rule."""
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        raise RuleError(f"{where}: 'rule' must be an array of tables ([[rule]])")
    rules: list[Rule] = []
    seen: set[str] = set()
    for number, table in enumerate(tables, 1):
        rule = rule_from(table, f"{where}, rule {number}")
        if not re.match(_ID_PATTERN, rule.id):
            raise RuleError(f"{where}: rule {rule.id!r}: ids are lower-case words joined by - or .")
        if rule.id in seen:
            raise RuleError(f"{where}: rule {rule.id!r} is defined twice")
        seen.add(rule.id)
        rules.append(rule)
    return tuple(rules)


def rule_from(table: Any, where: str) -> Rule:
    """One rule from a TOML table or a config entry, or a ``RuleError`` saying which."""
    name = table.get("id") if isinstance(table, dict) else None
    label = f"rule {name!r} ({where})" if isinstance(name, str) else where
    try:
        rule = Rule.model_validate(table)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "rule"
        raise RuleError(f"{label}: {field}: {first['msg']}") from None
    return rule


@cache
def builtin_rules() -> tuple[Rule, ...]:
    """The rule book shipped in the package, validated and compiled once per process."""
    text = resources.files(__package__).joinpath(BUILTIN_FILE).read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"{BUILTIN_FILE}: not valid TOML: {exc}") from None
    rules = parse_book(data, BUILTIN_FILE)
    for rule in rules:
        rule.compiled()
    return rules
