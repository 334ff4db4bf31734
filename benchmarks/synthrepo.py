"""A synthetic git repository for the history benchmarks, written with ``git fast-import``.

N commits over a tree of filler source files and a few config files. M candidate
values are present at HEAD; along the way some were removed and added back, and
some more were added and removed for good, so the history holds every case the
history index answers. Values are random strings made at run time (never real,
never committed anywhere): ``API_KEY_7 = "<32 random letters and digits>"``.

Shared by ``benchmarks/history.py`` and ``benchmarks/pr.py``; not part of thresher.
"""

from __future__ import annotations

import random
import shutil
import string
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

_ALPHABET = string.ascii_letters + string.digits
_ENV = {"LC_ALL": "C", "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": "/nonexistent"}
_GIT = ("git", "-c", "user.name=bench", "-c", "user.email=bench@example.com",
        "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main")  # fmt: skip


@dataclass(frozen=True)
class Shape:
    commits: int
    candidates: int
    filler_files: int = 400
    filler_lines: int = 60
    config_files: int = 20
    seed: int = 0


def secret(rng: random.Random) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(32))


def _filler(rng: random.Random, number: int) -> str:
    a, b = rng.randrange(1000), rng.randrange(1000)
    return f"value_{number} = compute({a}, {b})  # step {rng.randrange(100)}\n"


def _data(payload: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(payload), payload)


def build(dest: Path, shape: Shape) -> Path:
    """Create ``dest`` as a repository with ``shape``; its work tree is HEAD's tree."""
    rng = random.Random(shape.seed)
    dest.mkdir(parents=True)
    subprocess.run([*_GIT, "init", "-q", str(dest)], check=True, env=_ENV)
    files = {
        f"src/pkg{j % 20}/mod_{j}.py": [_filler(rng, n) for n in range(shape.filler_lines)]
        for j in range(shape.filler_files)
    }
    configs = {f"config/settings_{k}.py": ["import os\n"] for k in range(shape.config_files)}
    names = sorted(files)
    events = _schedule(rng, shape)
    # Delta chains of at most 10: with fast-import's default of 50 the 2N repository's
    # files (twice as many versions each) have longer chains on average than the N one's,
    # and git's own cost per commit would grow with the size of the benchmark itself.
    proc = subprocess.Popen(
        [*_GIT, "fast-import", "--quiet", "--done", "--depth=10"],
        cwd=dest, stdin=subprocess.PIPE, env=_ENV,
    )  # fmt: skip
    assert proc.stdin is not None
    out = proc.stdin
    for number in range(shape.commits):
        changed: dict[str, list[str]] = {}
        if number == 0:
            changed.update(files)
            changed.update(configs)
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(names)
            lines = files[name]
            for _ in range(rng.randint(3, 15)):
                lines[rng.randrange(len(lines))] = _filler(rng, rng.randrange(10**6))
            changed[name] = lines
        for value_id, value, action in events.get(number, []):
            path = f"config/settings_{value_id % shape.config_files}.py"
            lines = configs[path]
            line = f'API_KEY_{value_id} = "{value}"\n'
            gone = f'API_KEY_{value_id} = os.environ["API_KEY_{value_id}"]\n'
            if action == "add":
                if gone in lines:
                    lines[lines.index(gone)] = line
                else:
                    lines.append(line)
            else:
                lines[lines.index(line)] = gone
            changed[path] = lines
        message = f"change {number}".encode()
        out.write(b"commit refs/heads/main\n")
        out.write(b"committer bench <bench@example.com> %d +0000\n" % (1_600_000_000 + number * 60))
        out.write(_data(message))
        for path, lines in changed.items():
            out.write(b"M 100644 inline %s\n" % path.encode())
            out.write(_data("".join(lines).encode()))
    out.write(b"done\n")
    out.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run([*_GIT, "reset", "-q", "--hard", "main"], cwd=dest, check=True, env=_ENV)
    return dest


def _schedule(rng: random.Random, shape: Shape) -> dict[int, list[tuple[int, str, str]]]:
    """When each value is added, removed, re-added. ``candidates`` values end at HEAD;
    a fifth of them were removed and added back; a quarter more are removed for good."""
    events: dict[int, list[tuple[int, str, str]]] = {}
    last = max(shape.commits - 1, 1)
    extra = shape.candidates // 4
    for value_id in range(shape.candidates + extra):
        value = secret(rng)
        points = sorted(rng.sample(range(1, last + 1), 3)) if last >= 3 else [last] * 3
        add, remove, readd = points
        plan = [(add, "add")]
        if value_id >= shape.candidates:
            plan.append((max(remove, add + 1), "remove"))
        elif value_id % 5 == 0 and readd > remove > add:
            plan += [(remove, "remove"), (readd, "add")]
        for at, action in plan:
            if at < shape.commits:
                events.setdefault(at, []).append((value_id, value, action))
    return events


def export(repo: Path, dest: Path) -> Path:
    """HEAD's tree as plain files, without ``.git``: the same tree with no history."""
    dest.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "tree.tar"
        subprocess.run(
            [*_GIT, "archive", "-o", str(archive), "HEAD"], cwd=repo, check=True, env=_ENV
        )
        with tarfile.open(archive) as tar:
            tar.extractall(dest, filter="data")
    return dest


def commit_line(repo: Path, path: str, line: str) -> None:
    """A one-line change on top of HEAD: the pull request."""
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("a", encoding="utf-8") as handle:
        handle.write(line)
    subprocess.run([*_GIT, "add", "-A"], cwd=repo, check=True, env=_ENV)
    subprocess.run([*_GIT, "commit", "-q", "-m", "one line"], cwd=repo, check=True, env=_ENV)


def tiny(dest: Path) -> Path:
    """A one-file, one-commit repository."""
    dest.mkdir(parents=True)
    subprocess.run([*_GIT, "init", "-q", str(dest)], check=True, env=_ENV)
    (dest / "app.py").write_text("print('hello')\n", encoding="utf-8")
    subprocess.run([*_GIT, "add", "-A"], cwd=dest, check=True, env=_ENV)
    subprocess.run([*_GIT, "commit", "-q", "-m", "initial"], cwd=dest, check=True, env=_ENV)
    return dest


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
