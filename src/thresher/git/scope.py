"""Which files, and which lines, a scan looks at.

A whole-tree scan lists files the way a developer sees the project: inside a
git work tree through git itself (tracked plus untracked-but-not-ignored, so
``.gitignore`` is honoured exactly as git reads it), elsewhere by walking the
tree without ``.git``. A diff scan asks git for the lines a range (or the
index) adds and the content those files have on that side, so a pull request
is judged on what it adds and nothing else.

git runs as an argv list, never through a shell, with every repository
setting that could run a program (fsmonitor, hooks, external diff, textconv)
switched off, and without the caller's ``GIT_*`` environment, which could
point it at another repository.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from thresher.findings.options import ScanError
from thresher.findings.skips import Skipped, SkipReason

GIT_TIMEOUT_S = 120.0
_GIT = (
    "git", "-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=",
    "-c", "safe.directory=*", "-c", "core.quotePath=false", "--no-pager",
)  # fmt: skip
_DIFF = (
    "diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames",
    "--relative", "--src-prefix=a/", "--dst-prefix=b/",
)  # fmt: skip
_REV = re.compile(r"[0-9A-Za-z_][0-9A-Za-z._/~^@{}+-]{0,199}")
_HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_SKIP_MODES = {"120000", "160000"}  # symlinks and submodules are not file content

# Where thresher writes its run directories (transcripts, journals, reports).
OWN_OUTPUT_DIR = ".thresher"


@dataclass(frozen=True)
class Listed:
    """A file on disk: root-relative posix path, absolute path, size in bytes."""

    path: str
    disk: str
    size: int


@dataclass
class DiffScope:
    """What a diff adds: line numbers and blob ids per path, and the commit."""

    added: dict[str, frozenset[int]] = field(default_factory=dict)
    blobs: dict[str, str] = field(default_factory=dict)
    commit: str | None = None


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {
        "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C",
        "GIT_NO_REPLACE_OBJECTS": "1",
    }  # fmt: skip


def git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            [*_GIT, *args],
            cwd=root,
            env=_env(),
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError as exc:
        raise ScanError("git is not installed; it is needed to list files and diffs") from exc
    except subprocess.TimeoutExpired as exc:
        raise ScanError(f"git {args[0]} timed out after {GIT_TIMEOUT_S:.0f} s") from exc


def _stderr(proc: subprocess.CompletedProcess[bytes]) -> str:
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else f"exit status {proc.returncode}"


def in_work_tree(root: Path, *, need_git: bool = False) -> bool:
    """Without git installed a plain tree is still scannable, a diff is not."""
    return _probe(root, need_git=need_git) is True


def _probe(root: Path, *, need_git: bool = False) -> bool | None:
    """True inside a work tree; False where git says there is no repository at all;
    None otherwise (git missing, a bare repository, another failure)."""
    try:
        proc = git(root, "rev-parse", "--is-inside-work-tree")
    except ScanError:
        if need_git:
            raise
        return None
    if proc.returncode == 0:
        return True if proc.stdout.strip() == b"true" else None
    return False if b"not a git repository" in proc.stderr else None


@dataclass(frozen=True)
class Tree:
    """A tree's files (``list_files``), and whether git found a repository there: False
    only where git said there is none (its history then needs no reading)."""

    listed: list[Listed]
    skipped: list[Skipped]
    repository: bool | None


def list_files(root: Path) -> tuple[list[Listed], list[Skipped]]:
    """Regular files under ``root``, and the entries passed over and why (symlinks,
    vanished files, unreadable directories). Inside git, ignored files are left out."""
    tree = list_tree(root)
    return tree.listed, tree.skipped


def list_tree(root: Path) -> Tree:
    """``list_files``, with what git said of the repository."""
    repository = _probe(root)
    if repository:
        proc = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        if proc.returncode != 0:
            raise ScanError(f"git ls-files failed in {root}: {_stderr(proc)}")
        names = sorted({os.fsdecode(n) for n in proc.stdout.split(b"\0") if n})
        return Tree(*_stat_all(root, names), repository)
    return Tree(*_walk(root), repository)


def is_own_output(path: str) -> bool:
    """Whether a root-relative posix path lies inside a ``.thresher/`` directory.

    Those directories hold thresher's own runs: reports and transcripts that quote
    findings, rule names and redacted forms. Scanning them would turn every run's
    output into the next run's candidates, so no scope ever includes them, at any
    depth (a monorepo may hold one per package).
    """
    return OWN_OUTPUT_DIR in path.split("/")[:-1]


def _stat_all(root: Path, names: list[str]) -> tuple[list[Listed], list[Skipped]]:
    listed: list[Listed] = []
    passed: list[Skipped] = []
    for name in names:
        disk = f"{root}{os.sep}{name}"
        try:
            info = os.lstat(disk)
        except OSError as exc:
            # Deleted in the work tree but still in the index, or not reachable.
            passed.append(Skipped(name, SkipReason.NOT_A_FILE, str(exc.strerror or exc)))
            continue
        if _is_regular(info.st_mode):
            listed.append(Listed(name, disk, info.st_size))
        elif not _is_dir(info.st_mode):
            passed.append(Skipped(name, SkipReason.NOT_A_FILE, _kind(info.st_mode)))
    return listed, passed


def _walk(root: Path) -> tuple[list[Listed], list[Skipped]]:
    listed: list[Listed] = []
    passed: list[Skipped] = []
    stack = [str(root)]
    base = len(str(root)) + 1
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            relative = directory[base:].replace(os.sep, "/") or "."
            passed.append(Skipped(relative + "/", SkipReason.UNREADABLE, str(exc.strerror or exc)))
            continue
        for entry in entries:
            relative = entry.path[base:].replace(os.sep, "/")
            if entry.is_dir(follow_symlinks=False):
                if entry.name == OWN_OUTPUT_DIR:  # counted once, never walked
                    passed.append(Skipped(relative + "/", SkipReason.OWN_OUTPUT))
                elif entry.name != ".git":
                    stack.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                try:
                    size = entry.stat(follow_symlinks=False).st_size
                except OSError as exc:
                    passed.append(
                        Skipped(relative, SkipReason.UNREADABLE, str(exc.strerror or exc))
                    )
                    continue
                listed.append(Listed(relative, entry.path, size))
            else:
                kind = "symlink" if entry.is_symlink() else "special file"
                passed.append(Skipped(relative, SkipReason.NOT_A_FILE, kind))
    listed.sort(key=lambda item: item.path)
    passed.sort(key=lambda item: item.path)
    return listed, passed


def _kind(mode: int) -> str:
    return "symlink" if (mode & 0o170000) == 0o120000 else "special file"


def _is_regular(mode: int) -> bool:
    return (mode & 0o170000) == 0o100000


def _is_dir(mode: int) -> bool:
    return (mode & 0o170000) == 0o040000


def _require_repo(root: Path, flag: str) -> None:
    if not in_work_tree(root, need_git=True):
        raise ScanError(
            f"{flag} needs a git work tree, and {root} is not inside one",
            hint="run the scan in a git checkout, or scan the whole tree without it",
        )


def _commit(root: Path, rev: str, flag: str) -> str:
    if not _REV.fullmatch(rev) or ".." in rev:
        raise ScanError(f"{flag}: {rev!r} is not a revision")
    proc = git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if proc.returncode != 0:
        raise ScanError(f"{flag}: {rev!r} is not a commit in {root}")
    return proc.stdout.decode().strip()


def diff_range(root: Path, spec: str) -> DiffScope:
    """``BASE..HEAD`` (or ``BASE...HEAD``, from their merge base): the lines
    HEAD adds, read from HEAD's blobs."""
    _require_repo(root, "--diff")
    three = "..." in spec
    parts = spec.split("..." if three else "..")
    if len(parts) != 2 or not all(parts):
        raise ScanError(
            f"--diff {spec!r} is not a range", hint="write it as BASE..HEAD, e.g. origin/main..HEAD"
        )
    base, head = (_commit(root, part, "--diff") for part in parts)
    if three:
        proc = git(root, "merge-base", base, head)
        if proc.returncode != 0:
            raise ScanError(f"--diff {spec!r}: the two sides have no merge base")
        base = proc.stdout.decode().strip()
    added = _added_lines(root, [base, head])
    listing = git(root, "ls-tree", "-r", "-z", head)
    if listing.returncode != 0:
        raise ScanError(f"--diff {spec!r}: git ls-tree failed: {_stderr(listing)}")
    blobs = _blob_ids(listing.stdout, tree=True)
    return DiffScope(added, {p: blobs[p] for p in added if p in blobs}, head)


def diff_staged(root: Path) -> DiffScope:
    """The lines the index adds against HEAD, read from the index."""
    _require_repo(root, "--staged")
    added = _added_lines(root, ["--cached"])
    listing = git(root, "ls-files", "-s", "-z")
    if listing.returncode != 0:
        raise ScanError(f"--staged: git ls-files failed: {_stderr(listing)}")
    blobs = _blob_ids(listing.stdout, tree=False)
    return DiffScope(added, {p: blobs[p] for p in added if p in blobs}, None)


def _added_lines(root: Path, revs: list[str]) -> dict[str, frozenset[int]]:
    proc = git(root, *_DIFF, *revs, "--")
    if proc.returncode != 0:
        raise ScanError(f"git diff failed: {_stderr(proc)}")
    return parse_added_lines(proc.stdout)


def parse_added_lines(patch: bytes) -> dict[str, frozenset[int]]:
    """Added line numbers per new-side path, from ``git diff -U0`` output.

    Hunk bodies are skipped by their counts, so an added line that happens to
    read ``++ x`` (shown as ``+++ x``) is never taken for a file header."""
    added: dict[str, set[int]] = {}
    current: str | None = None
    old_left = new_left = 0
    for raw in patch.split(b"\n"):
        if old_left or new_left:
            if raw.startswith(b"-"):
                old_left -= 1
            elif raw.startswith(b"+"):
                new_left -= 1
            elif raw.startswith(b" "):
                old_left, new_left = old_left - 1, new_left - 1
            continue  # including "\ No newline at end of file"
        if raw.startswith(b"diff --git "):
            current = None
        elif raw.startswith(b"+++ "):
            name = raw[4:].removesuffix(b"\t")  # git adds a tab after names with spaces
            current = None if name == b"/dev/null" else _unquote(name).removeprefix("b/")
        elif (hunk := _HUNK.match(raw)) is not None:
            old_left = int(hunk.group(1)) if hunk.group(1) is not None else 1
            count = int(hunk.group(3)) if hunk.group(3) is not None else 1
            new_left = count
            if current is not None and count:
                start = int(hunk.group(2))
                added.setdefault(current, set()).update(range(start, start + count))
    return {path: frozenset(lines) for path, lines in added.items()}


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _unquote(name: bytes) -> str:
    """git's C-style quoting of unusual path names (``"a\\tb"``, octal bytes)."""
    if not (name.startswith(b'"') and name.endswith(b'"') and len(name) >= 2):
        return os.fsdecode(name)
    body = name[1:-1].decode("latin-1")
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            nxt = body[index + 1]
            if nxt in "01234567":
                out.append(int(body[index + 1 : index + 4], 8) & 0xFF)
                index += 4
                continue
            out.append(_ESCAPES.get(nxt, ord(nxt)))
            index += 2
            continue
        out.append(ord(char))
        index += 1
    return os.fsdecode(bytes(out))


def _blob_ids(listing: bytes, *, tree: bool) -> dict[str, str]:
    """path -> blob id from ``ls-tree -r -z`` or ``ls-files -s -z`` (stage 0)."""
    blobs: dict[str, str] = {}
    for record in listing.split(b"\0"):
        if not record or b"\t" not in record:
            continue
        meta, _, name = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split()
        if len(fields) != 3 or fields[0] in _SKIP_MODES:
            continue
        if tree and fields[1] != "blob":
            continue
        if not tree and fields[2] != "0":
            continue
        blobs[os.fsdecode(name)] = fields[2] if tree else fields[1]
    return blobs


def read_blobs(root: Path, ids: list[str], max_bytes: int) -> tuple[dict[str, bytes], set[str]]:
    """Blob contents by id, and the ids passed over for being too large.

    Two git processes for any number of files: sizes first, so an oversized
    blob is never read into memory, then the contents."""
    unique = sorted(set(ids))
    if not unique:
        return {}, set()
    check = git(root, "cat-file", "--batch-check", stdin="\n".join(unique).encode() + b"\n")
    if check.returncode != 0:
        raise ScanError(f"git cat-file failed: {_stderr(check)}")
    wanted: list[str] = []
    oversized: set[str] = set()
    for row in check.stdout.decode("ascii", "replace").splitlines():
        fields = row.split()
        if len(fields) == 3 and fields[1] == "blob":
            if int(fields[2]) <= max_bytes:
                wanted.append(fields[0])
            else:
                oversized.add(fields[0])
    if not wanted:
        return {}, oversized
    batch = git(root, "cat-file", "--batch", stdin="\n".join(wanted).encode() + b"\n")
    if batch.returncode != 0:
        raise ScanError(f"git cat-file failed: {_stderr(batch)}")
    return _parse_batch(batch.stdout), oversized


def _parse_batch(out: bytes) -> dict[str, bytes]:
    contents: dict[str, bytes] = {}
    position = 0
    while position < len(out):
        end = out.index(b"\n", position)
        fields = out[position:end].split()
        position = end + 1
        if len(fields) != 3:
            continue  # "<id> missing"
        size = int(fields[2])
        contents[fields[0].decode()] = out[position : position + size]
        position += size + 1
    return contents
