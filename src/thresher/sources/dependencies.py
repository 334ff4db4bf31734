"""Collecting dependency findings for a run: lockfiles -> OSV -> findings.

``thresher deps`` and ``thresher scan --deps`` both call ``scan_dependencies`` and hand
its findings to the same tribunal, journal and reports as a secret scan
(``thresher.scan.run``). What this module decides:

- **which dependencies**: every lockfile under the root (or the PATHs), or with
  ``--diff BASE..HEAD`` only those the range adds or changes. A dependency counts as
  added or changed when its lockfile at HEAD pins a (package, version) that the same
  lockfile at BASE does not: a version bump or a new package is triaged; a lockfile
  re-indented, re-ordered or moved line by line is not. Both sides are read from the
  commits' blobs, as ``scan --diff`` reads HEAD's blobs;
- **which OSV**: the API (``--osv-url``, details cached in ``.thresher/osv-cache.db``)
  or the exports of ``--osv-offline DIR`` (with a persistent index beside the cache);
- **which ignores**: ``osv-scanner.toml`` at the root. It is repository content that
  silences findings, so in a pull-request job it is read from the base commit (as
  ``thresher.toml`` and ``--baseline`` are, see ``thresher.config.trust``): a pull request
  cannot add an ignore for the vulnerability it introduces.

A malformed lockfile is an error naming the file (kept in ``errors``); the other
lockfiles are still read and triaged.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from thresher.deps.discover import SKIPPED_DIRS, find_lockfiles, read_all
from thresher.deps.lockfiles import MAX_BYTES, LockfileKind, decode, kind_of, parse
from thresher.deps.model import Dependency, LockfileError, Vulnerability, _package_key
from thresher.deps.osv import (
    DEFAULT_URL,
    Ignores,
    OfflineDatabase,
    OsvCache,
    OsvClient,
    PackageVersion,
)
from thresher.deps.osv.ignores import parse_ignores
from thresher.errors import UsageError
from thresher.findings import Finding
from thresher.findings.vault import SecretVault
from thresher.git.scope import git, in_work_tree, read_blobs
from thresher.sources.dedupe import dedupe
from thresher.sources.osv import IgnoredMatch, OsvFindingSource, VulnerabilityCatalog

IGNORE_FILE = "osv-scanner.toml"
CACHE_NAME = "osv-cache.db"
OFFLINE_INDEX_NAME = "osv-offline-index.db"


class DepsDiffError(UsageError):
    """``--diff`` for dependencies cannot be resolved: not a git work tree, not a range,
    or a side that is not a commit."""


@dataclass(frozen=True)
class DepsOptions:
    """How to collect dependency findings (``thresher deps`` / ``scan --deps``)."""

    paths: tuple[Path, ...] = ()  # lockfiles or directories; () for the whole root
    osv_url: str = DEFAULT_URL
    osv_offline: Path | None = None  # a directory of <Ecosystem>/all.zip exports
    cache_dir: Path = Path(".thresher")  # the OSV details cache and the offline index
    # A pull-request job: osv-scanner.toml is read from the base of ``diff``, never
    # from the checkout (module docstring).
    ignores_from_base: bool = False


@dataclass(frozen=True)
class DependencyScan:
    """What a run decides about dependencies, and what it read to get there."""

    findings: tuple[Finding, ...] = ()
    # Synthetic keys (``sources.osv.dependency_key``), never secrets.
    vault: SecretVault = field(default_factory=SecretVault)
    catalog: VulnerabilityCatalog = field(default_factory=VulnerabilityCatalog)
    lockfiles: tuple[str, ...] = ()
    dependencies: int = 0
    errors: tuple[LockfileError, ...] = ()
    ignored: tuple[IgnoredMatch, ...] = ()
    notices: tuple[str, ...] = ()  # ignores read from the base, offline problems
    osv: str = DEFAULT_URL  # where the advisories came from: the URL, or "offline DIR"

    def describe(self) -> str:
        """The stderr line after the dependency scan."""
        ignored = f", {len(self.ignored)} ignored by {IGNORE_FILE}" if self.ignored else ""
        errors = f"; {len(self.errors)} lockfile(s) not readable" if self.errors else ""
        return (
            f"read {len(self.lockfiles)} lockfile(s), {self.dependencies} dependencies: "
            f"{len(self.findings)} vulnerable (package, version, advisory){ignored}{errors}"
        )


def scan_dependencies(
    root: Path, options: DepsOptions, *, diff: str | None = None
) -> DependencyScan:
    """Lockfiles -> OSV -> one finding per (package, version, vulnerability)."""
    notices: list[str] = []
    if diff is not None:
        dependencies, errors, lockfiles = _changed_dependencies(root, diff, options.paths)
    else:
        lockfiles = [p.as_posix() for p in find_lockfiles(root, options.paths)]
        dependencies, errors = read_all(root, options.paths)
    ignores, notice = load_project_ignores(root, diff, from_base=options.ignores_from_base)
    if notice:
        notices.append(notice)
    found, osv = _lookup(dependencies, options, notices)
    source = OsvFindingSource(dependencies, found, ignores=ignores)
    deduped = dedupe(source.collect())
    return DependencyScan(
        findings=deduped.findings,
        vault=deduped.vault,
        catalog=source.catalog,
        lockfiles=tuple(lockfiles),
        dependencies=len(dependencies),
        errors=tuple(errors),
        ignored=tuple(source.ignored),
        notices=tuple(notices),
        osv=osv,
    )


def _lookup(
    dependencies: list[Dependency], options: DepsOptions, notices: list[str]
) -> tuple[dict[PackageVersion, tuple[Vulnerability, ...]], str]:
    packages = [PackageVersion.of(d) for d in dependencies]
    if not packages:
        return {}, _origin(options)
    if options.osv_offline is not None:
        with OfflineDatabase(
            options.osv_offline, index=options.cache_dir / OFFLINE_INDEX_NAME
        ) as database:
            found = database.lookup(packages)
            notices.extend(f"offline OSV: {problem}" for problem in database.problems)
        return found, _origin(options)
    with (
        OsvCache(options.cache_dir / CACHE_NAME) as cache,
        OsvClient(options.osv_url, cache=cache) as client,
    ):
        return client.lookup(packages), _origin(options)


def _origin(options: DepsOptions) -> str:
    if options.osv_offline is not None:
        return f"offline {options.osv_offline}"
    return options.osv_url


# -- osv-scanner.toml ---------------------------------------------------------------------


def load_project_ignores(
    root: Path, diff: str | None, *, from_base: bool
) -> tuple[Ignores, str | None]:
    """The root's ``osv-scanner.toml``, from the checkout, or in a pull-request job from
    the base of ``diff`` (module docstring). Returns the ignores and a notice saying
    where they came from when that is not the checkout."""
    path = root / IGNORE_FILE
    if not from_base:
        if not path.is_file() or path.is_symlink():
            return Ignores(), None
        return parse_ignores(_read_small(path), IGNORE_FILE), None
    if diff is None:
        return Ignores(), f"pull request without --diff: {IGNORE_FILE} is not read"
    base, _head = resolve_range(root, diff)
    proc = git(root, "show", f"{base}:./{IGNORE_FILE}")
    if proc.returncode != 0:
        if path.exists():
            return Ignores(), (
                f"pull request: {IGNORE_FILE} does not exist at the base commit {base[:12]}; "
                "ignores the pull request adds are not used"
            )
        return Ignores(), None
    text = proc.stdout[:MAX_BYTES].decode("utf-8", "replace")
    where = f"{IGNORE_FILE} at {base[:12]}"
    return parse_ignores(text, where), f"pull request: {IGNORE_FILE} read from {where}"


def _read_small(path: Path) -> str:
    with path.open("rb") as handle:
        return handle.read(MAX_BYTES).decode("utf-8", "replace")


# -- --diff -------------------------------------------------------------------------------


def resolve_range(root: Path, spec: str) -> tuple[str, str]:
    """``BASE..HEAD`` or ``BASE...HEAD`` (from their merge base) as two commit ids."""
    if not in_work_tree(root, need_git=True):
        raise DepsDiffError(f"--diff needs a git work tree, and {root} is not inside one")
    three = "..." in spec
    parts = spec.split("..." if three else "..")
    if len(parts) != 2 or not all(parts) or any(p.startswith("-") for p in parts):
        raise DepsDiffError(
            f"--diff {spec!r} is not a range", hint="write it as BASE..HEAD, e.g. origin/main..HEAD"
        )
    commits = []
    for part in parts:
        proc = git(
            root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{part}^{{commit}}"
        )
        if proc.returncode != 0:
            raise DepsDiffError(f"--diff: {part!r} is not a commit in {root}")
        commits.append(proc.stdout.decode().strip())
    base, head = commits
    if three:
        proc = git(root, "merge-base", base, head)
        if proc.returncode != 0:
            raise DepsDiffError(f"--diff {spec!r}: the two sides have no merge base")
        base = proc.stdout.decode().strip()
    return base, head


def _tree(root: Path, commit: str) -> dict[str, str]:
    """path -> blob id of every regular file at ``commit``, below ``root``."""
    proc = git(root, "ls-tree", "-r", "-z", "--full-tree", commit)
    if proc.returncode != 0:
        raise DepsDiffError(f"--diff: git ls-tree {commit[:12]} failed")
    prefix = git(root, "rev-parse", "--show-prefix").stdout.decode().strip()
    blobs: dict[str, str] = {}
    for record in proc.stdout.split(b"\0"):
        meta, _, name = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split()
        if len(fields) != 3 or fields[1] != "blob" or fields[0] not in {"100644", "100755"}:
            continue
        path = os.fsdecode(name)
        if path.startswith(prefix):
            blobs[path[len(prefix) :]] = fields[2]
    return blobs


class _Side:
    """The lockfiles of one commit, read from git's objects (never the checkout)."""

    def __init__(self, root: Path, commit: str) -> None:
        self.root = root
        self.blobs = _tree(root, commit)
        self._texts: dict[str, str | None] = {}

    def preload(self, paths: Iterable[str]) -> None:
        ids = [self.blobs[p] for p in paths if p in self.blobs]
        contents, _oversized = read_blobs(self.root, ids, MAX_BYTES)
        for path in paths:
            blob = self.blobs.get(path)
            if blob is not None and blob in contents:
                self._texts[path] = decode(path, contents[blob])

    def read(self, path: str) -> str | None:
        path = posixpath.normpath(path)
        if path not in self._texts:
            blob = self.blobs.get(path)
            if blob is None:
                return None
            contents, oversized = read_blobs(self.root, [blob], MAX_BYTES)
            if blob in oversized:
                raise LockfileError(
                    path, f"is more than the {MAX_BYTES:,} bytes a lockfile may have"
                )
            self._texts[path] = decode(path, contents[blob]) if blob in contents else None
        return self._texts[path]

    def parse(self, path: str) -> list[Dependency]:
        text = self.read(path)
        return [] if text is None else parse(path, text, read=self.read)


def _changed_dependencies(
    root: Path, diff: str, paths: tuple[Path, ...]
) -> tuple[list[Dependency], list[LockfileError], list[str]]:
    """The dependencies HEAD's lockfiles pin that the same lockfile at BASE does not."""
    base_commit, head_commit = resolve_range(root, diff)
    head, base = _Side(root, head_commit), _Side(root, base_commit)
    wanted = _wanted(root, paths)
    lockfiles = sorted(
        p
        for p in head.blobs
        if kind_of(p) is not None and not SKIPPED_DIRS.intersection(p.split("/")[:-1]) and wanted(p)
    )
    # A lockfile whose blob did not change adds nothing; a requirements file may change
    # through an included file, so those are always compared.
    compared = [
        p
        for p in lockfiles
        if head.blobs[p] != base.blobs.get(p) or kind_of(p) is LockfileKind.REQUIREMENTS
    ]
    head.preload(compared)
    base.preload(compared)
    dependencies: list[Dependency] = []
    errors: list[LockfileError] = []
    for path in compared:
        try:
            pinned = head.parse(path)
        except LockfileError as exc:
            errors.append(exc)
            continue
        try:
            before = {_pin(d) for d in base.parse(path)}
        except LockfileError:
            before = set()  # unreadable at the base: everything it pins now is new
        dependencies.extend(d for d in pinned if _pin(d) not in before)
    return list(dict.fromkeys(dependencies)), errors, lockfiles


def _pin(dependency: Dependency) -> tuple[str, str, str, str]:
    key = _package_key(dependency.ecosystem, dependency.name)
    return dependency.path, dependency.ecosystem.value, key, dependency.version


def _wanted(root: Path, paths: tuple[Path, ...]) -> Callable[[str], bool]:
    """Whether a root-relative lockfile path is under one of ``paths`` (all when none)."""
    if not paths:
        return lambda _path: True
    prefixes: list[str] = []
    for path in paths:
        full = path if path.is_absolute() else root / path
        relative = os.path.relpath(full.resolve(), root.resolve()).replace(os.sep, "/")
        if relative == ".." or relative.startswith("../"):
            raise UsageError(f"{path} lies outside the scanned root {root}")
        prefixes.append("" if relative == "." else relative)
    return lambda p: any(not pre or p == pre or p.startswith(pre + "/") for pre in prefixes)
