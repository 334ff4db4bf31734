"""``find_imports(package)``: where the project's own code imports a package.

"Is the vulnerable package even used?" is the first question of dependency triage, and
the answer must come from the project's code, not from what it vendors or installs
(``node_modules/``, ``vendor/``, ``site-packages/``, virtualenvs, build output). Each
ecosystem spells an import its own way; the patterns below are compiled by RE2, so a
hostile file cannot stall the search, and the files are read through the
``Workspace`` (containment, no links followed, size and binary checks). Matched lines
are redacted before they are shown.

The search over-approximates on purpose: a name that merely looks like an import of
the package counts as one. A false "imported" costs an escalation; a false "not
imported" would clear a vulnerable dependency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.workspace import Workspace
from thresher.deps.model import Ecosystem

MAX_FILES = 20_000
MAX_MATCHES = 50
_MAX_LINE = 2_000
_SHOWN = 300

# Where a project keeps other people's code, or its own build output.
SKIP_DIRS = frozenset(
    {
        "node_modules",
        "bower_components",
        "jspm_packages",
        "vendor",
        "third_party",
        "third-party",
        "site-packages",
        "dist-packages",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "__pycache__",
        ".mypy_cache",
        ".git",
        "dist",
        "build",
        "target",
        ".next",
        ".nuxt",
        ".cargo",
        ".bundle",
    }
)

SUFFIXES: dict[Ecosystem, frozenset[str]] = {
    Ecosystem.PYPI: frozenset({".py", ".pyi", ".pyw", ".ipynb"}),
    Ecosystem.NPM: frozenset(
        {".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte"}
    ),
    Ecosystem.GO: frozenset({".go"}),
    Ecosystem.CRATES_IO: frozenset({".rs"}),
    Ecosystem.RUBYGEMS: frozenset({".rb", ".rake", ".ru", "Rakefile"}),
    Ecosystem.PACKAGIST: frozenset({".php", ".phtml"}),
}

# Distributions whose import name is not derived from their name.
_PYPI_MODULES: dict[str, tuple[str, ...]] = {
    "pyyaml": ("yaml",),
    "beautifulsoup4": ("bs4",),
    "pillow": ("PIL",),
    "scikit-learn": ("sklearn",),
    "scikit-image": ("skimage",),
    "python-dateutil": ("dateutil",),
    "opencv-python": ("cv2",),
    "opencv-python-headless": ("cv2",),
    "pyjwt": ("jwt",),
    "protobuf": ("google.protobuf",),
    "pycryptodome": ("Crypto",),
    "pycryptodomex": ("Cryptodome",),
    "pyopenssl": ("OpenSSL",),
    "python-jose": ("jose",),
    "python-multipart": ("multipart", "python_multipart"),
    "websocket-client": ("websocket",),
    "setuptools": ("setuptools", "pkg_resources"),
    "attrs": ("attr", "attrs"),
    "djangorestframework": ("rest_framework",),
    "msgpack-python": ("msgpack",),
    "pymysql": ("pymysql",),
    "mysqlclient": ("MySQLdb",),
    "psycopg2-binary": ("psycopg2",),
    "gitpython": ("git",),
    "pygithub": ("github",),
    "ruamel.yaml": ("ruamel.yaml", "ruamel"),
    "google-cloud-storage": ("google.cloud.storage", "google.cloud"),
}


class _Searcher(Protocol):
    def search(self, text: str) -> object: ...


@dataclass(frozen=True)
class ImportSearch:
    """The names looked for and the RE2 patterns that find their imports."""

    ecosystem: Ecosystem
    names: tuple[str, ...]
    patterns: tuple[str, ...]


def import_names(
    ecosystem: Ecosystem, package: str, modules: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """The names code uses to import ``package``; ``modules``: import paths an advisory
    publishes (OSV ``ecosystem_specific.imports``), searched as well."""
    names: list[str] = [*modules]
    match ecosystem:
        case Ecosystem.PYPI:
            key = re.sub(r"[-_.]+", "-", package.lower())
            names += _PYPI_MODULES.get(key, ())
            base = key.removeprefix("python-").removeprefix("py-")
            names += [key.replace("-", "_"), base.replace("-", "_"), package.replace("-", "_")]
        case Ecosystem.RUBYGEMS:
            names += [package, package.replace("-", "/"), package.replace("-", "_")]
        case Ecosystem.CRATES_IO:
            names.append(package.replace("-", "_"))
        case Ecosystem.PACKAGIST:
            vendor = package.split("/", 1)[0]
            names.append(vendor.replace("-", "").replace("_", ""))
        case Ecosystem.NPM | Ecosystem.GO:
            names.append(package)
    return tuple(dict.fromkeys(n for n in names if n))


def _alternatives(names: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(n) for n in names) + ")"


def import_search(
    ecosystem: Ecosystem, package: str, modules: tuple[str, ...] = ()
) -> ImportSearch:
    names = import_names(ecosystem, package, modules)
    alt = _alternatives(names)
    quote = "[\"'`]"
    sub = "(?:/[^\"'`]*)?"
    patterns: tuple[str, ...]
    match ecosystem:
        case Ecosystem.PYPI:
            patterns = (
                rf"^\s*import\s+(?:[\w.]+(?:\s+as\s+\w+)?\s*,\s*)*{alt}(?:[.\s,;]|$)",
                rf"^\s*from\s+{alt}(?:[.\s]|$)",
                rf"(?:import_module|__import__)\(\s*[\"']{alt}(?:[.\"'])",
                # a notebook's JSON source lines, and imports in exec'd strings
                rf"[\"']\s*(?:import|from)\s+{alt}(?:[.\s,;\\\"']|$)",
            )
        case Ecosystem.NPM:
            patterns = (
                rf"\brequire(?:\.resolve)?\s*\(\s*{quote}{alt}{sub}{quote}",
                rf"\bfrom\s+{quote}{alt}{sub}{quote}",
                rf"\bimport\s*\(?\s*{quote}{alt}{sub}{quote}",
            )
        case Ecosystem.GO:
            patterns = (rf"\"{alt}(?:/[^\"]*)?\"",)
        case Ecosystem.RUBYGEMS:
            patterns = (rf"\brequire(?:_relative)?\s*\(?\s*[\"']{alt}(?:/[^\"']*)?[\"']",)
        case Ecosystem.PACKAGIST:
            # PHP namespaces are case-insensitive; the vendor prefix is all a package
            # name says of them, so any use of the vendor's namespace counts.
            patterns = (rf"(?i)(?:^|[^\w\\])\\?{alt}\\",)
        case Ecosystem.CRATES_IO:
            patterns = (
                rf"\b(?:use|extern\s+crate)\s+(?:::)?{alt}\b",
                rf"(?:^|[^\w:]){alt}::",
            )
    return ImportSearch(ecosystem, names, patterns)


def _compile(pattern: str) -> _Searcher:
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension, not needed at start

    options = re2.Options()
    options.log_errors = False
    options.max_mem = 8 << 20
    compiled: _Searcher = re2.compile(pattern, options)
    return compiled


def find_imports(
    workspace: Workspace,
    ecosystem: Ecosystem,
    package: str,
    modules: tuple[str, ...] = (),
    *,
    max_files: int = MAX_FILES,
) -> ToolOutput:
    """Search the project's own code for imports of ``package`` (see the module doc)."""
    search = import_search(ecosystem, package, modules)
    try:
        regexes = [_compile(p) for p in search.patterns]
    except Exception as exc:  # a package name RE2 cannot take; never the model's pattern
        raise ToolError(f"cannot search for imports of {package!r}: {exc}") from None
    matches: list[dict[str, Any]] = []
    files = skipped = 0
    complete = True
    for rel, text in workspace.source_texts(SUFFIXES[ecosystem], SKIP_DIRS):
        if files >= max_files:
            complete = False
            break
        files += 1
        if text is None:
            skipped += 1
            continue
        for number, line in enumerate(text.split("\n"), start=1):
            head = line[:_MAX_LINE]
            if not any(r.search(head) for r in regexes):
                continue
            if len(matches) == MAX_MATCHES:
                break
            shown = workspace.redact(head.rstrip("\r"))[:_SHOWN]
            matches.append({"path": rel, "line": number, "text": shown})
        if len(matches) == MAX_MATCHES:
            break
    complete = complete and skipped == 0
    data: dict[str, Any] = {
        "package": package,
        "ecosystem": ecosystem.value,
        "names": list(search.names),
        "imported": bool(matches),
        "matches": matches,
        "files_searched": files,
        "files_unreadable": skipped,
        # True: every source file of the ecosystem outside vendored trees was read, so
        # no match means no import (of these names) in the project's own code.
        "complete": complete,
    }
    rows = [f"{m['path']}:{m['line']}: {m['text']}" for m in matches]
    head = (
        f"{len(matches)} import(s) of {package} ({', '.join(search.names)}) in "
        f"{files} {ecosystem.value} source file(s)"
        if matches
        else f"no import of {package} ({', '.join(search.names)}) in {files} "
        f"{ecosystem.value} source file(s) outside vendored and installed code"
    )
    notes = [] if complete else ["[search incomplete: file limit reached or unreadable files]"]
    return ToolOutput("\n".join([head, *rows, *notes]), data)
