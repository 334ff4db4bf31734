"""Export the HEAD trees of fetched git snapshots as a clean corpus (the wild corpus).

    python benchmarks/wild_export.py OUT GIT_DIR [GIT_DIR ...]
    python benchmarks/wild_export.py OUT --list fetched.tsv   # lines: owner/name<TAB>git dir

Writes ``OUT/files/<owner>__<name>/…`` (the HEAD tree of each snapshot, blob by blob)
and ``OUT/trees.tsv`` (one line a repository: directory, commit, files written,
blobs missing from the snapshot). Such a directory is what ``thresher eval --clean``
and ``benchmarks/train_scorer.py --wild`` read: every finding in it is weakly
labelled not a live credential (see ``../shared/corpus/wild/README.md``).

Blob by blob rather than ``git archive``: a snapshot may list its largest files
without holding their blobs, and ``git archive`` stops at the first one. Symbolic
links and submodules are not exported (a scanner follows neither), and they are
counted apart. Nothing here reaches the network: the snapshots are already local.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path, PurePosixPath


def _name_of(git_dir: Path) -> str:
    """``/…/owner+name/repo/.git`` -> ``owner__name``."""
    for part in reversed(git_dir.parts):
        if "+" in part:
            owner, _, name = part.partition("+")
            return f"{owner}__{name}"
    raise SystemExit(f"{git_dir}: cannot tell owner/name from the path (expected owner+name)")


def _safe(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(parts) and not path.startswith("/") and ".." not in parts and ".git" not in parts


def export(git_dir: Path, into: Path) -> tuple[str, int, int, int]:
    """Write the HEAD tree of ``git_dir`` under ``into``: (commit, written, missing, skipped)."""
    git = ["git", f"--git-dir={git_dir}"]
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-z", "HEAD"], check=True, capture_output=True
    ).stdout
    blobs: list[tuple[str, str]] = []
    skipped = 0
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        path = raw_path.decode("utf-8", "replace")
        if kind != "blob" or mode == "120000" or not _safe(path):
            skipped += 1
            continue
        blobs.append((sha, path))
    batch = subprocess.Popen(
        [*git, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert batch.stdin is not None and batch.stdout is not None
    written = missing = 0
    for sha, path in blobs:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            missing += 1
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after the contents
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    batch.stdin.close()
    batch.wait()
    return commit, written, missing, skipped


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("git_dirs", nargs="*", type=Path)
    parser.add_argument("--list", type=Path, help="a TSV of owner/name and git directory")
    args = parser.parse_args(argv)
    git_dirs: list[Path] = list(args.git_dirs)
    if args.list is not None:
        for line in args.list.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if len(fields) >= 2 and fields[1].strip():
                git_dirs.append(Path(fields[1].strip()))
    if not git_dirs:
        parser.error("give git directories or --list")
    files = args.out / "files"
    files.mkdir(parents=True, exist_ok=True)
    rows: dict[str, str] = {}
    manifest = args.out / "trees.tsv"
    if manifest.is_file():
        for line in manifest.read_text(encoding="utf-8").splitlines()[1:]:
            rows[line.split("\t", 1)[0]] = line
    for git_dir in git_dirs:
        name = _name_of(git_dir)
        into = files / name
        if into.exists():
            subprocess.run(["rm", "-rf", str(into)], check=True)
        commit, written, missing, skipped = export(git_dir, into)
        rows[name] = f"{name}\t{commit}\t{written}\t{missing}\t{skipped}"
        print(f"{name}: {commit[:12]} {written} files, {missing} missing, {skipped} skipped")
    header = "repository\tcommit\tfiles\tmissing\tskipped"
    manifest.write_text("\n".join([header, *sorted(rows.values())]) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
