"""The offline panel's shared reads show each finding's line as ``read_file`` does."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from tests.agents.test_workspace import detecting_workspace
from tests.tokens import github_token, random_secret
from thresher.agents.toolspecs import ReadFileArgs
from thresher.findings import Finding
from thresher.tribunal.files import PackedLines, SharedReads, context_range


def _key_block(rng: random.Random) -> list[str]:
    body = ["".join(rng.choice(string.ascii_letters + "+/") for _ in range(64)) for _ in range(6)]
    return ["-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"]


def _file(rng: random.Random, length: int) -> list[str]:
    """Code with tokens, passwords and key blocks at random places."""
    lines: list[str] = []
    while len(lines) < length:
        kind = rng.random()
        if kind < 0.1:
            lines.append(f'TOKEN = "{github_token(seed=rng.randrange(10**6))}"')
        elif kind < 0.2:
            lines.append(f"password = '{random_secret(20, seed=rng.randrange(10**6))}'")
        elif kind < 0.23:
            lines.extend(_key_block(rng))
        else:
            lines.append(f"x_{len(lines)} = compute({rng.randrange(1000)})")
    return lines


def _finding(path: str, line: int) -> Finding:
    return Finding.model_validate(
        {
            "id": f"f-{line}",
            "rule_id": "GitHub Token",
            "fingerprint": f"sha256:{line}",
            "redacted": "…(40 chars)",
            "locations": [{"path": path, "line": line}],
        }
    )


@pytest.mark.parametrize("seed", range(6))
def test_a_shared_read_shows_each_line_as_its_own_read_does(tmp_path: Path, seed: int) -> None:
    """Each finding's line from the file's one shared read is the line ``read_file`` of
    its context shows (by a redactor that has learned nothing), the window merged with
    its neighbours' or not, a key block near it or not; so is a line no finding is on."""
    rng = random.Random(seed)
    lines = _file(rng, rng.choice([40, 400, 1500]))
    (tmp_path / "app.py").write_text("\n".join(lines) + "\n")
    wanted = sorted(rng.sample(range(1, len(lines) + 1), k=min(len(lines), rng.randint(3, 40))))
    shared = SharedReads(detecting_workspace(tmp_path).narrowed())
    shared.expect(_finding("app.py", line) for line in wanted)
    read = shared.lines("app.py")
    assert read is not None and len(read) == len(lines)
    for line in [*wanted, rng.randint(1, len(lines))]:
        start, end = context_range(line)
        alone = detecting_workspace(tmp_path).narrowed()
        out = alone.read_file(ReadFileArgs(path="app.py", start_line=start, end_line=end))
        assert read[line - 1] == out.data["lines"][line - start], line
        if lines[line - 1].startswith("TOKEN"):
            assert lines[line - 1][12:30] not in read[line - 1]  # redacted, not raw
    assert list(read[:3]) == [read[0], read[1], read[2]]


def test_files_that_cannot_be_shared_are_read_per_finding(tmp_path: Path) -> None:
    """A binary or empty file, or one no finding was expected in, gets no shared read:
    each finding's own read reports it exactly. A file with one finding is shared."""
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01" * 100)
    (tmp_path / "one.py").write_text("a = 1\nb = 2\n")
    shared = SharedReads(detecting_workspace(tmp_path))
    shared.expect(_finding(p, n) for p in ("empty.txt", "blob.bin") for n in (1, 2, 3))
    shared.expect([_finding("one.py", 2)])
    assert shared.lines("empty.txt") is None and shared.context_ok("empty.txt", 1) is None
    assert shared.lines("blob.bin") is None
    one = shared.lines("one.py")
    assert one is not None and one.raw(2) == "b = 2" and one[1] == "b = 2"
    assert shared.lines("never.py") is None


def test_the_memory_bound_counts_the_files_held_not_every_file_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file let go after its last finding gives its share of the bound back: a run
    reads every file with findings once, however many files the tree holds."""
    import thresher.tribunal.files as files

    monkeypatch.setattr(files, "_MAX_CHARS", 100)
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("x = 1\n" * 10)  # 50 characters of lines
    shared = SharedReads(detecting_workspace(tmp_path))
    shared.expect(_finding(p, 2) for p in ("a.py", "b.py", "c.py"))
    assert shared.lines("a.py") is not None and shared.lines("b.py") is not None
    assert shared.lines("c.py") is None  # a and b hold the bound
    shared.decided("a.py")
    shared.expect([_finding("d.py", 1)])
    (tmp_path / "d.py").write_text("y = 2\n" * 10)
    assert shared.lines("d.py") is not None  # a's share was given back


def test_packed_lines_read_as_the_list_they_were_made_from() -> None:
    """A shared read keeps a file as one string and its line starts (``PackedLines``):
    every line, slice and pass over it is the list's."""
    rng = random.Random(26)
    alphabet = "ab \t\r=\"'é"
    for _ in range(200):
        lines = [
            "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 6)))
            for _ in range(rng.randrange(1, 12))
        ]
        packed = PackedLines(lines)
        assert len(packed) == len(lines)
        assert list(packed) == lines
        assert packed.chars == sum(map(len, lines))
        for index in range(-len(lines), len(lines)):
            assert packed[index] == lines[index]
        for start in range(-2, len(lines) + 2):
            for stop in range(-2, len(lines) + 2):
                for step in (1, 2, -1):
                    assert packed[start:stop:step] == lines[start:stop:step]
        with pytest.raises(IndexError):
            packed[len(lines)]
