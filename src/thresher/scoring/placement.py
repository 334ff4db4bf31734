"""Where a candidate's text lives (deployed, documentation, a commented-out line) and
whether only context rules found its value: the facts behind the policy's rule that
documentation is not a deployment.

A sample value in a README (``password: changeme``, ``OS_PASSWORD=rsufn4sc``), a
commented-out config line (``#   password: 'foo'``) or a changelog entry is text people
read, not a value a system loads: the scorer's P(real) can be high there (the corpus's
annotators often call such samples ``real``), but nothing says the value was ever
issued. A token in a provider's own format is different: an AWS key id or a GitHub
token with a valid checksum pasted into a README may well be live.

Both facts are features (``PLACEMENT_FEATURES``, ``GENERIC_FEATURE``), so the policy
reads them from the assessment the way it reads the test-reference fact, and the scorer
may learn from them when it is retrained. The comment test reads one line in the
syntax its file's suffix names; a block comment's inner lines are seen only where they
open with ``*`` (C, Java, JavaScript) and a docstring's not at all.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import cache, lru_cache
from pathlib import PurePosixPath

from thresher.findings.filekind import FileKind, file_kind, in_documentation
from thresher.findings.model import SecretType, secret_type_for_rule
from thresher.findings.rules.book import RuleKind, builtin_rules
from thresher.scoring.shape import translation_catalog, vendored_or_generated


class Placement(StrEnum):
    """Where the text of a finding lives, from its path and its line."""

    DEPLOYMENT = "deployment"  # anything a system might load: code, config, data
    # A docs tree, prose, a changelog, a skill file, a Python docstring.
    DOCUMENTATION = "documentation"
    COMMENTED_OUT = "commented-out"  # a comment in the file's own syntax
    # Another project's code copied in (``vendor/``, ``third_party/``, ``node_modules/``)
    # or code a tool wrote (``*.pb.go``, ``*.min.js``): this repository deploys neither
    # value as its own; its crypto test vectors and API fixtures are not its secrets.
    VENDORED = "vendored"
    # A CI pipeline's own configuration (``.github/workflows/``, ``.gitlab-ci.yml``): a
    # generic password there starts a throwaway service container for the tests
    # (``POSTGRES_PASSWORD: postgres``); a provider's token there is still a leak.
    CI = "ci"
    # A translation catalog (``Messages_de.properties``, ``i18n/lang/ko-kr-lang.json``,
    # ``*.po``): the text under a ``password`` key there is the word a login form shows
    # in that language (``Senha``, ``Passwort``), not a value any system checks.
    LOCALE = "locale"

    @property
    def described(self) -> str:
        return {
            Placement.DEPLOYMENT: "deployable text",
            Placement.DOCUMENTATION: "documentation",
            Placement.COMMENTED_OUT: "a commented-out line",
            Placement.VENDORED: "vendored or generated code",
            Placement.CI: "a CI pipeline's configuration",
            Placement.LOCALE: "a translation catalog",
        }[self]


# The features that carry a non-deployed placement (none: deployment), and the one that
# says only context rules found the value.
PLACEMENT_FEATURES = {
    Placement.DOCUMENTATION: "placement_documentation",
    Placement.COMMENTED_OUT: "placement_commented_out",
    Placement.VENDORED: "placement_vendored",
    Placement.CI: "placement_ci",
    Placement.LOCALE: "placement_locale",
}
# Translation catalogs are data files; source code under a ``lang/`` directory (a
# language's parser) is code, whatever the directory says.
_CATALOG_KINDS = frozenset({FileKind.CONFIG, FileKind.OTHER})
GENERIC_FEATURE = "found_by_context_rules_only"

# detect-secrets plugins that read context or entropy, not a provider's format.
_GENERIC_PLUGINS = frozenset(
    {"secret keyword", "base64 high entropy string", "hex high entropy string"}
)
# Types whose value is a password however it is wrapped (a URL, Basic auth, an htpasswd
# line, a connection string): what a person chose, so no format proves it was issued.
_PASSWORD_TYPES = frozenset(
    {SecretType.PASSWORD, SecretType.URL_CREDENTIALS, SecretType.DATABASE_CONNECTION_STRING}
)
_FORMAT_KINDS = frozenset({RuleKind.TOKEN, RuleKind.PEM_BLOCK})


@cache
def _context_rules() -> frozenset[str]:
    """Built-in rules that find a value by its key or its surroundings (assignments,
    literals, block defaults, Secret manifests) or whose value is a password."""
    return frozenset(
        rule.id
        for rule in builtin_rules()
        if rule.kind not in _FORMAT_KINDS or rule.secret_type in _PASSWORD_TYPES
    )


def context_rule(rule: str) -> bool:
    """Whether a scanner rule finds values by context, not by a provider's format.

    A rule thresher does not know (an operator's own, a GitHub secret-scanning type) counts
    as a format unless its secret type is a password's: that keeps its findings' calls."""
    name = rule.strip().lower()
    return (
        name in _GENERIC_PLUGINS
        or name in _context_rules()
        or secret_type_for_rule(name) in _PASSWORD_TYPES
    )


@lru_cache(maxsize=1 << 12)
def generic_value(rule_id: str, rules: tuple[str, ...]) -> bool:
    """Every rule that matched the value reads context: no provider's format did (a few
    combinations of rules recur over a scan: each is worked out once)."""
    return all(context_rule(rule) for rule in (rule_id, *rules))


# Comment markers by file suffix. A marker counts at the start of the line, or further on
# after blank space outside any string (``key: 1  # password: x``); ``*`` (a block
# comment's inner line), ``'`` and ``rem`` only at the start.
_HASH = ("#",)
_SLASH = ("//", "/*", "*")
_XML = ("<!--",)
_TABLE: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        _HASH,
        "py pyi rb sh bash zsh ksh fish pl pm r yml yaml toml cfg conf cnf properties env tf"
        " tfvars service pypirc netrc pgpass ps1 psm1 ex exs nix cmake mk coffee jl tcl awk"
        " graphql gql dockerfile gemspec rake cr nim",
    ),
    ((*_HASH, ";"), "ini npmrc editorconfig"),
    ((*_HASH, "//", "/*"), "hcl php"),
    (
        _SLASH,
        "js mjs cjs ts tsx jsx go java kt kts scala cs c h cc cpp cxx hpp hh m mm swift rs"
        " dart groovy gradle jsonc json5 proto css scss less sass sol zig",
    ),
    ((*_SLASH, *_XML), "vue svelte"),
    (_XML, "xml html htm xhtml config plist jsp aspx cshtml csproj xaml svg md markdown"),
    (("--",), "sql lua hs elm ada"),
    ((";",), "clj cljs el lisp asm reg"),
    (("%",), "tex erl"),
    (("rem ", "::", "@rem "), "bat cmd"),
    (("'", "rem "), "vb vbs bas"),
    ((), "json ipynb csv tsv lock sum"),
)
_BY_SUFFIX: dict[str, tuple[str, ...]] = {
    suffix: markers for markers, suffixes in _TABLE for suffix in suffixes.split()
}
_BY_NAME: dict[str, tuple[str, ...]] = dict.fromkeys(
    ("dockerfile", "makefile", "vagrantfile", "procfile", "gemfile"), _HASH
) | {"rakefile": _HASH, "jenkinsfile": _SLASH, ".env": _HASH}
# Files of no known syntax: the two markers nearly every config and script language uses.
_FALLBACK = ("#", "//")
_CLOSING = {"<!--": "-->", "/*": "*/"}
_LEADING_ONLY = frozenset({"*", "'", "rem ", "@rem ", "::"})
# Complete string literals, blanked before markers are looked for; a quote left open
# after that opens the string the value sits in.
_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`""")
_OPEN_QUOTE = re.compile(r"[\"'`]")


@lru_cache(maxsize=1 << 16)
def _markers(path: str) -> tuple[str, ...]:
    """The comment markers of a file's syntax (once a path: every finding of it asks)."""
    name = PurePosixPath(path).name.lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith(".env"):
        return _HASH
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    return _BY_SUFFIX.get(suffix, _FALLBACK)


def commented_out(path: str, line: str, index: int) -> bool:
    """Whether the text at ``index`` of ``line`` is inside a comment of the file's syntax
    (``index`` < 0: the value was not found on the line, so only a comment line counts)."""
    markers = _markers(path)
    body = line.lstrip()
    head = body[:8].lower()
    start = len(line) - len(body)
    for marker in markers:
        if head.startswith(marker) and (marker != "*" or body[1:2] in ("", " ", "\t", "/")):
            closing = _CLOSING.get(marker)
            if closing is None or index < 0 or closing not in line[start:index]:
                return True
    if index <= 0:
        return False
    code = _STRING.sub(lambda m: "_" * len(m[0]), line[:index])
    still_open = _OPEN_QUOTE.search(code)
    if still_open is not None:
        code = code[: still_open.start()]
    for marker in markers:
        if marker in _LEADING_ONLY:
            continue
        at = code.find(marker)
        while at > 0:
            closing = _CLOSING.get(marker)
            if code[at - 1] in " \t" and (closing is None or closing not in code[at:]):
                return True
            at = code.find(marker, at + 1)
    return False


def placement(
    path: str,
    line: str,
    index: int,
    *,
    deployed_elsewhere: bool = False,
    outside_tree: bool = False,
    docstring: bool = False,
) -> Placement:
    """Where the text lives: vendored or generated code, documentation, a CI
    pipeline's configuration or a translation catalog, by its path; else documentation
    again when the line is in a docstring (``docstrings.py``); else a comment by its
    line; else deployed. A value also deployed at another location
    (``deployed_elsewhere``) is deployed, and so is text outside the tree (an issue, a
    comment on GitHub): it is no file, and a credential pasted there is a leak like any other."""
    if outside_tree or deployed_elsewhere:
        return Placement.DEPLOYMENT
    if vendored_or_generated(path):
        return Placement.VENDORED
    if in_documentation(path):
        return Placement.DOCUMENTATION
    kind = file_kind(path)
    if kind is FileKind.CI:
        return Placement.CI
    if kind in _CATALOG_KINDS and translation_catalog(path):
        return Placement.LOCALE
    if docstring:
        return Placement.DOCUMENTATION
    if commented_out(path, line, index):
        return Placement.COMMENTED_OUT
    return Placement.DEPLOYMENT
