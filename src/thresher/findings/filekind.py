"""What kind of file a repository-relative path names, and whether it is test code.

Where a candidate lives says as much as what it looks like: a password in a
deployable ``docker-compose.yml`` is a finding, the same word in a
``config.example.yml`` is a placeholder, a hash in ``package-lock.json`` is
metadata. The kinds are a closed vocabulary so that ``thresher eval`` can break
its scores down by them and the scorer can learn from them.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import lru_cache
from pathlib import PurePosixPath


def words(text: str) -> frozenset[str]:
    """A vocabulary written as whitespace-separated words."""
    return frozenset(text.split())


# The test-scope vocabulary: a path component token equal to one of these.
TEST_TOKENS = words(
    """
    bench benches benchmark benchmarks conftest demo demos dummy e2e example examples fake
    fakes fixture fixtures httptest
    itest itests mock mocked mocking mocks pytest sample samples spec specs stub stubs test
    testcase testcases testdata testhelper testhelpers testing tests testsuite testsupport
    testutil testutils unittest unittests
    """
)
_CAMEL = re.compile(
    r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])"
    r"|(?<=[0-9])(?=[A-Za-z])"
)
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


class FileKind(StrEnum):
    """Where a candidate sits, from the path alone (first match wins, in this order)."""

    TEST = "test"
    LOCKFILE = "lockfile"
    CI = "ci"
    TEMPLATE = "template"
    DOCS = "docs"
    CONFIG = "config"
    SOURCE = "source"
    OTHER = "other"
    # Not a file of the tree: text GitHub holds outside it (an issue, a pull request, a
    # discussion, a wiki page). Never derived from a path: the location says so.
    TEXT = "text"


# A run asks about the same few thousand paths tens of thousands of times (deduping,
# scoring, every rule of every finding): each path is tokenised once.
_PATHS_CACHED = 1 << 16


@lru_cache(maxsize=_PATHS_CACHED)
def path_tokens(path: str) -> tuple[str, ...]:
    """Lower-case tokens of every path component, split at camelCase and letter/digit
    boundaries as well as kept whole (so ``e2e`` survives as one token)."""
    tokens: tuple[str, ...] = ()
    for part in path_parts(path):
        tokens += _part_tokens(part)
    return tokens


@lru_cache(maxsize=_PATHS_CACHED)
def _part_tokens(part: str) -> tuple[str, ...]:
    """``path_tokens`` of one component: a tree's paths share most of theirs."""
    tokens = [t for t in _NON_ALNUM.split(part.lower()) if t]
    for piece in _CAMEL.split(part):
        tokens += [t for t in _NON_ALNUM.split(piece.lower()) if t]
    return tuple(tokens)


# Directories that hold a project's tests by convention though no test word names them:
# ``t/`` is Perl's (``prove``), Test::Nginx's and busted's, and some Python projects' own
# (``t/unit``). Only a whole directory name counts: the letter alone is no token.
TEST_DIRECTORIES = frozenset({"t"})


@lru_cache(maxsize=_PATHS_CACHED)
def in_test_scope(path: str) -> bool:
    return any(token in TEST_TOKENS for token in path_tokens(path)) or any(
        part in TEST_DIRECTORIES for part in path_parts(path)[:-1]
    )


def path_parts(path: str) -> tuple[str, ...]:
    """``PurePosixPath(path).parts``: a plain relative path's parts are the pieces between
    its slashes (parsing one with pathlib costs more than the rest of a lookup); any other
    path (a root, ``//``, ``.`` parts, a trailing slash) is parsed by pathlib."""
    pieces = path.split("/")
    if not path or "" in pieces or "." in pieces:
        return PurePosixPath(path).parts
    return tuple(pieces)


_LOCKFILES = words(
    """
    package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml go.sum go.mod cargo.lock
    gemfile.lock composer.lock poetry.lock pipfile.lock uv.lock podfile.lock
    packages.lock.json mix.lock pubspec.lock gradle.lockfile flake.lock
    """
)
_CI_NAMES = words(
    """
    .gitlab-ci.yml .travis.yml jenkinsfile appveyor.yml .drone.yml azure-pipelines.yml
    bitbucket-pipelines.yml cloudbuild.yaml cloudbuild.yml circle.yml .cirrus.yml
    buildkite.yml codemagic.yaml
    """
)
_CI_DIRS = (".github/workflows/", ".circleci/", ".buildkite/", ".gitlab/", ".ci/")
_TEMPLATE_SUFFIXES = (
    ".example", ".sample", ".dist", ".template", ".tmpl", ".tpl", ".j2", ".jinja", ".jinja2",
    ".erb", ".mustache", ".hbs", ".default", ".orig", ".skel",
)  # fmt: skip
_TEMPLATE_MARKERS = frozenset({"example", "sample", "template", "dist", "default", "skeleton"})
_DOC_SUFFIXES = (".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".txt", ".textile", ".wiki")
_DOC_NAMES = frozenset({"readme", "changelog", "changes", "history", "contributing", "faq"})
_CONFIG_SUFFIXES = (
    ".yml", ".yaml", ".json", ".toml", ".ini", ".cfg", ".conf", ".config", ".properties",
    ".env", ".xml", ".plist", ".tf", ".tfvars", ".hcl", ".cnf", ".npmrc", ".pypirc",
    ".netrc", ".htpasswd", ".pgpass", ".service",
)  # fmt: skip
_CONFIG_NAMES = frozenset(
    {"dockerfile", "docker-compose.yml", "docker-compose.yaml", "makefile", "vagrantfile",
     ".env", ".npmrc", ".pypirc", ".netrc", ".pgpass", ".htpasswd", "procfile"}
)  # fmt: skip
_SOURCE_SUFFIXES = (
    ".py", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".go", ".java", ".kt", ".kts",
    ".scala", ".rb", ".php", ".cs", ".c", ".h", ".cc", ".cpp", ".hpp", ".m", ".mm", ".swift",
    ".rs", ".sh", ".bash", ".zsh", ".ps1", ".bat", ".cmd", ".pl", ".pm", ".lua", ".r", ".ex",
    ".exs", ".erl", ".clj", ".groovy", ".dart", ".vue", ".svelte", ".sql", ".gradle", ".ipynb",
    ".html", ".htm", ".jsp", ".aspx", ".cshtml", ".vb", ".fs",
)  # fmt: skip


# Documentation whatever its scope (``examples/README.md`` is test scope and still prose):
# prose formats, docs trees, changelogs and release notes by name, agent skill and
# instruction files (``SKILL.md``, ``AGENTS.md``, ``CLAUDE.md`` are ``.md``). A ``.txt``
# counts by its name or its tree only: as often as prose it is a data dump, a credentials
# file, a requirements list or a ``CMakeLists.txt``; a name counts without a suffix or
# with ``.txt`` only (``history.py`` is code).
_PROSE_SUFFIXES = (*(s for s in _DOC_SUFFIXES if s != ".txt"), ".mdx")
_PROSE_NAMES = _DOC_NAMES | words(
    """
    news release releases release-notes release_notes releasenotes whatsnew authors
    install installing upgrading migrating usage notes manual
    """
)
_DOC_TREES = words("docs documentation")
# Manual pages: roff sources in section 1-9 (``man/syncthing-config.5``).
_MAN_SECTIONS = frozenset("123456789")


@lru_cache(maxsize=_PATHS_CACHED)
def in_documentation(path: str) -> bool:
    """Whether ``path`` is documentation: text people read, not a file a system loads."""
    parts = path.lower().replace("\\", "/").split("/")
    name = parts[-1]
    stem, _, suffix = name.partition(".")
    return (
        name.endswith(_PROSE_SUFFIXES)
        or (stem in _PROSE_NAMES and suffix in ("", "txt", "html"))
        or any(part in _DOC_TREES for part in parts[:-1])
        or (len(parts) > 1 and parts[0] == "doc")
        or (suffix in _MAN_SECTIONS and any(part.startswith("man") for part in parts[:-1]))
    )


@lru_cache(maxsize=_PATHS_CACHED)
def file_kind(path: str) -> FileKind:
    lower = path.lower().replace("\\", "/")
    name = lower.rsplit("/", 1)[-1]
    if in_test_scope(path):
        return FileKind.TEST
    if name in _LOCKFILES or name.endswith((".lock", "-lock.json", "-lock.yaml")):
        return FileKind.LOCKFILE
    if name in _CI_NAMES or any(d in "/" + lower for d in ("/" + d for d in _CI_DIRS)):
        return FileKind.CI
    stem_parts = set(_NON_ALNUM.split(name))
    if name.endswith(_TEMPLATE_SUFFIXES) or (stem_parts & _TEMPLATE_MARKERS):
        return FileKind.TEMPLATE
    stem = name.split(".", 1)[0]
    if name.endswith(_DOC_SUFFIXES) or stem in _DOC_NAMES or "/docs/" in "/" + lower:
        return FileKind.DOCS
    if name in _CONFIG_NAMES or name.endswith(_CONFIG_SUFFIXES) or name.startswith(".env"):
        return FileKind.CONFIG
    if name.endswith(_SOURCE_SUFFIXES):
        return FileKind.SOURCE
    return FileKind.OTHER
