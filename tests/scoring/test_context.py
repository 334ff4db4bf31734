"""Repository signals the scorer reads: test code inside source files, who names a key
file, and the syntax keyword GitHub Actions uses for secrets."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.gitrepo import git
from thresher.findings.model import Finding, Location
from thresher.scoring.lines import (
    _DEF,
    _JS_TEST,
    _LOOKBACK,
    _RUST_MOD,
    _RUST_TEST_ATTR,
    _TEST_NAMES,
    in_test_block,
)
from thresher.scoring.references import Referenced, references, wants_lookup
from thresher.validators.base import CheckKind, ValidationStatus
from thresher.validators.placeholder import PlaceholderValidator

RUST = """pub fn parse(s: &str) -> Oid { todo() }

#[cfg(test)]
mod tests {
    #[test]
    fn parses() {
        let sha = "b270df1a2fb5d012294e9aaf05e7e0bab1e6a389";
    }
}
"""
PYTHON = """def connect():
    password = load()

def test_connect():
    password = "hunter22"
"""
GO = """package auth

func TestLogin(t *testing.T) {
\ttoken := "abc123def456"
}

func Login() {
\ttoken := "abc123def456"
}
"""


def test_test_blocks_inside_source_files() -> None:
    assert in_test_block(RUST.splitlines(), 7)
    assert not in_test_block(RUST.splitlines(), 1)
    assert in_test_block(PYTHON.splitlines(), 5)
    assert not in_test_block(PYTHON.splitlines(), 2)
    assert in_test_block(GO.splitlines(), 4)
    assert not in_test_block(GO.splitlines(), 8)
    assert not in_test_block([], 1)


def _slow_in_test_block(lines: Sequence[str], number: int) -> bool:
    """``in_test_block`` as first written: every look-back line's indent by a call."""

    def indent(line: str) -> int:
        return len(line) - len(line.lstrip(" \t"))

    if not 1 <= number <= len(lines):
        return False
    current = indent(lines[number - 1])
    for index in range(number - 2, max(-1, number - 2 - _LOOKBACK), -1):
        text = lines[index][:300]
        if not text.strip() or indent(text) >= current:
            continue
        current = indent(text)
        if _JS_TEST.match(text):
            return True
        if _RUST_MOD.match(text):
            previous = lines[index - 1][:300] if index > 0 else ""
            if _RUST_TEST_ATTR.match(previous):
                return True
            continue
        match = _DEF.match(text)
        if match:
            if match.group(2).startswith(_TEST_NAMES):
                return True
            if match.group(1) != "fn":
                return False
        if current == 0:
            return False
    return False


def _pieces() -> list[str]:
    """Lines of code to build files from: the samples' lines and lines of every kind
    the look-back reads (blank, indented, a block's opening)."""
    return [
        *(RUST.splitlines() + PYTHON.splitlines() + GO.splitlines()),
        "", "   ", "\t\t", "def helper():", "  it('works', () => {", "fn build() {",
        "\f", "x = 1", "#[cfg(test)]", "mod inner {", "func TestX(t) {", "class A:",
    ]  # fmt: skip


def test_test_blocks_are_found_as_the_plain_look_back_finds_them() -> None:
    """The look-back with its indents inline, and its early answer for a line at the
    margin, agrees with the plain one on generated code of every indentation."""
    rng = random.Random(5)
    pieces = _pieces()
    for _ in range(300):
        lines = [
            " " * rng.choice([0, 0, 2, 4, 8]) + "\t" * rng.choice([0, 0, 1]) + rng.choice(pieces)
            for _ in range(rng.randint(1, 60))
        ]
        for number in range(0, len(lines) + 2):
            assert in_test_block(lines, number) == _slow_in_test_block(lines, number)


def test_test_blocks_are_found_alike_with_the_indents_of_a_file_kept() -> None:
    """One file's indents kept across its findings, asked in any order, over files
    longer than the look-back and lines indented past the 300 characters read."""
    rng = random.Random(6)
    pieces = _pieces()
    for _ in range(60):
        lines = [
            " " * rng.choice([0, 0, 2, 4, 8, 301]) + "\t" * rng.choice([0, 0, 1])
            + rng.choice(pieces)
            for _ in range(rng.randint(1, 900))
        ]  # fmt: skip
        margins = [-1] * len(lines)
        numbers = list(range(0, len(lines) + 2))
        rng.shuffle(numbers)
        for number in numbers:
            assert in_test_block(lines, number, margins) == _slow_in_test_block(lines, number)


def test_references_tell_test_only_from_code(tmp_path: Path) -> None:
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "server.key").write_text("key", encoding="utf-8")
    (tmp_path / "certs" / "client.key").write_text("key", encoding="utf-8")
    (tmp_path / "certs" / "lonely.key").write_text("key", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "tls_test.py").write_text('load("certs/server.key")', encoding="utf-8")
    (tmp_path / "app.py").write_text('load("certs/client.key")', encoding="utf-8")
    found = references(tmp_path, ["certs/server.key", "certs/client.key", "certs/lonely.key"])
    assert found == {
        "certs/server.key": Referenced.TESTS_ONLY,
        "certs/client.key": Referenced.CODE,
        "certs/lonely.key": Referenced.NOWHERE,
    }


def test_only_key_files_outside_test_code_are_looked_up() -> None:
    assert wants_lookup("certs/server.pem", "Secret Keyword")
    assert wants_lookup("config/app.yml", "Private Key")
    assert not wants_lookup("tests/certs/server.pem", "Private Key")
    assert not wants_lookup("src/app.py", "Secret Keyword")


def _finding(path: str) -> Finding:
    return Finding(
        id="s-1",
        rule_id="Secret Keyword",
        locations=(Location(path=path, line=3),),
        fingerprint="sha256:x",
        redacted="…(7 chars)",
    )


def test_secrets_inherit_in_a_workflow_is_syntax() -> None:
    results = PlaceholderValidator().check("inherit", _finding(".github/workflows/ci.yml"))
    assert [(r.kind, r.status) for r in results] == [(CheckKind.SYNTAX, ValidationStatus.INVALID)]
    elsewhere = PlaceholderValidator().check("inherit", _finding("config/app.yml"))
    assert all(r.kind is not CheckKind.SYNTAX for r in elsewhere)


def test_a_staged_scan_scores_the_staged_line_not_the_working_tree(tmp_path: Path) -> None:
    from thresher.scoring.context import scan_contexts
    from thresher.sources.scan import ScanOptions, scan

    value = "qX9vLm2Rt7Kp4Zw8aB3"
    (tmp_path / "app.py").write_text("import os\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "app.py")
    git(tmp_path, "commit", "-qm", "init")
    (tmp_path / "app.py").write_text(f'import os\nDB_PASSWORD = "{value}"\n', encoding="utf-8")
    git(tmp_path, "add", "app.py")
    # The working tree moves on: the staged line is no longer line 2 on disk.
    (tmp_path / "app.py").write_text(
        f'import os\n\n\n# later edit\nDB_PASSWORD = "{value}"\n', encoding="utf-8"
    )
    result = scan(ScanOptions(root=tmp_path, staged=True))
    contexts, _ = scan_contexts(result, tmp_path)
    (ctx,) = contexts.values()
    assert ctx.line == f'DB_PASSWORD = "{value}"'


def test_lines_are_counted_as_the_scanner_counts_them(tmp_path: Path) -> None:
    from thresher.scoring.lines import LineReader

    (tmp_path / "f.py").write_text('a = 1\n\x0cb = 2\nc = "x"\n', encoding="utf-8")
    assert LineReader(tmp_path).line("f.py", 3) == 'c = "x"'


def test_a_fixture_named_only_by_a_fixture_that_tests_load_is_test_material(
    tmp_path: Path,
) -> None:
    """nats-server's shape: configs/tls.conf names certs/key.pem, and only a test names
    tls.conf; a deployable main.go naming prod.conf keeps prod.conf's key deployable."""
    (tmp_path / "configs" / "certs").mkdir(parents=True)
    (tmp_path / "configs" / "certs" / "key.pem").write_text("key", encoding="utf-8")
    (tmp_path / "configs" / "certs" / "prod-key.pem").write_text("key", encoding="utf-8")
    (tmp_path / "configs" / "tls.conf").write_text('tls { key_file: "certs/key.pem" }')
    (tmp_path / "configs" / "prod.conf").write_text('tls { key_file: "certs/prod-key.pem" }')
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "tls_test.go").write_text('load("../configs/tls.conf")')
    (tmp_path / "server" / "main.go").write_text('load("configs/prod.conf")')
    found = references(tmp_path, ["configs/certs/key.pem", "configs/certs/prod-key.pem"])
    assert found == {
        "configs/certs/key.pem": Referenced.TESTS_ONLY,
        "configs/certs/prod-key.pem": Referenced.CODE,
    }


def test_references_find_names_that_overlap_or_recur(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every mention counts, however the names overlap in the text (``server.key`` inside
    ``my-server.key.bak``, ``app.conf`` right after ``tls.conf``), with or without RE2's
    pass ahead of the automaton (it refuses an alternation too large for its memory)."""
    from thresher.scoring import references as refs

    (tmp_path / "certs").mkdir()
    for name in ("server.key", "key.pem1", "tls.conf", "app.conf"):
        (tmp_path / "certs" / name).write_text("key", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    filler = "config " * 5000
    (tmp_path / "tests" / "t_test.py").write_text(
        f'{filler}load("my-server.key.bak") x="/tls.confapp.conf" "_key.pem1"', encoding="utf-8"
    )
    (tmp_path / "run.sh").write_text(f"{filler}cat server.key\n{filler}", encoding="utf-8")
    wanted = ["certs/server.key", "certs/key.pem1", "certs/tls.conf", "certs/app.conf"]
    expected = {
        "certs/server.key": Referenced.CODE,  # run.sh; the test's mention is another name's
        "certs/key.pem1": Referenced.NOWHERE,  # "_key.pem1" is another name's tail
        "certs/tls.conf": Referenced.TESTS_ONLY,
        "certs/app.conf": Referenced.NOWHERE,  # "confapp.conf": a tail, not a name
    }
    assert references(tmp_path, wanted) == expected
    monkeypatch.setattr(refs, "_finder", lambda names: None)
    assert references(tmp_path, wanted) == expected


def test_references_in_a_file_dense_with_names(tmp_path: Path) -> None:
    """A file naming fixtures hundreds of times (past the matches RE2 reports one by
    one, the automaton reads the rest whole): a mention at its very end still counts."""
    (tmp_path / "certs").mkdir()
    for name in ("server.key", "client.key"):
        (tmp_path / "certs" / name).write_text("key", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    listing = "load('server.key')\n" * 500
    (tmp_path / "tests" / "t_test.py").write_text(listing, encoding="utf-8")
    (tmp_path / "run.sh").write_text(listing + "cat client.key\n", encoding="utf-8")
    found = references(tmp_path, ["certs/server.key", "certs/client.key"])
    assert found == {"certs/server.key": Referenced.CODE, "certs/client.key": Referenced.CODE}


def test_a_path_a_source_file_names_is_code_whoever_names_the_fixtures_beside_it(
    tmp_path: Path,
) -> None:
    """The second step looks up only the fixtures that can decide: ``shared.pem`` is named
    by main.go, so the test-only ``tls.conf`` beside it does not make it test material;
    ``key.pem``, named by ``tls.conf`` alone, is."""
    (tmp_path / "configs" / "certs").mkdir(parents=True)
    (tmp_path / "configs" / "certs" / "key.pem").write_text("key", encoding="utf-8")
    (tmp_path / "configs" / "certs" / "shared.pem").write_text("key", encoding="utf-8")
    (tmp_path / "configs" / "tls.conf").write_text('key_file: "certs/key.pem certs/shared.pem"')
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "tls_test.go").write_text('load("../configs/tls.conf")')
    (tmp_path / "server" / "main.go").write_text('load("configs/certs/shared.pem")')
    found = references(tmp_path, ["configs/certs/key.pem", "configs/certs/shared.pem"])
    assert found == {
        "configs/certs/key.pem": Referenced.TESTS_ONLY,
        "configs/certs/shared.pem": Referenced.CODE,
    }


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 200_000])
def test_a_file_head_is_what_a_buffered_read_of_the_limit_gives(tmp_path: Path, size: int) -> None:
    from thresher.scoring.reading import read_head

    path = tmp_path / "f.bin"
    path.write_bytes(random.Random(size).randbytes(size))
    for limit in (0, 1, 4096, 100_000, 1 << 20):
        with path.open("rb") as handle:
            assert read_head(path, limit) == handle.read(limit)
    with pytest.raises(OSError):
        read_head(tmp_path / "missing", 10)
    with pytest.raises(OSError):
        read_head(tmp_path, 10)  # a directory opens as a descriptor, but is not read


def test_a_file_is_found_as_resolving_its_whole_path_finds_it(tmp_path: Path) -> None:
    """Each directory is resolved once, from its parent's resolution and one ``lstat``,
    and the file checked with one ``lstat``: links to files or directories inside and
    outside the root (on the way too), ``..``, absolute paths, a directory, a missing
    file or directory, a deep path and an address are read or refused as before."""
    from thresher.scoring.lines import LineReader

    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "a" / "b").mkdir(parents=True)
    outside.mkdir()
    (root / "a" / "b" / "f.txt").write_text("x = 1\n", encoding="utf-8")
    (root / "top.txt").write_text("y\n", encoding="utf-8")
    (outside / "secret.txt").write_text("no\n", encoding="utf-8")
    (root / "a" / "in-link.txt").symlink_to(root / "a" / "b" / "f.txt")
    (root / "a" / "out-link.txt").symlink_to(outside / "secret.txt")
    (root / "a" / "out-dir").symlink_to(outside)
    (root / "a" / "in-dir").symlink_to(root / "a" / "b")
    (root / "a" / "loop").symlink_to(root / "a" / "loop")
    reader = LineReader(root)
    paths = [
        "a/b/f.txt", "top.txt", "a/in-link.txt", "a/out-link.txt", "a/out-dir/secret.txt",
        "a/in-dir/f.txt", "a/b/../b/f.txt", "a/../../outside/secret.txt", "a/b", "a/b/",
        "a/b/.", "a/b/..", "missing/f.txt", "a/missing.txt", str(outside / "secret.txt"),
        str(root / "top.txt"), "a//b/./f.txt", "https://github.com/o/r/issues/1", "a/loop",
        "a/loop/f.txt", "", "a/in-dir/./f.txt", "a/out-dir/../a/b/f.txt", "a/b/f.txt/x",
        "a/in-dir/missing/deeper/f.txt", "a/b/" + "c/" * 70 + "f.txt", "a/missing/../top.txt",
    ]  # fmt: skip
    for path in paths:
        try:
            expected: Path | type[Exception] | None = reader._resolved(path)
        except RuntimeError:  # a symlink loop: resolving raises, and so it still does
            expected = RuntimeError
        if expected is RuntimeError:
            with pytest.raises(RuntimeError):
                reader._target(path)
        else:
            assert reader._target(path) == expected, path
    assert reader.lines("a/in-dir/f.txt") == ("x = 1", "")
    assert reader.lines("a/out-dir/secret.txt") == ()


def test_references_read_the_listing_a_scan_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given the scan's listing of the tree, the pass lists nothing itself (no git
    spawned from a process grown large) and finds what its own listing finds."""
    from thresher.git import scope as gitscope
    from thresher.scoring import references as refs

    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "server.key").write_text("-----BEGIN PRIVATE KEY-----\n")
    (tmp_path / "tls_test.go").write_text('load("certs/server.key")\n')
    (tmp_path / "main.go").write_text('open("certs/other.key")\n')
    wanted = ["certs/server.key", "certs/other.key"]
    tree, _ = gitscope.list_files(tmp_path)
    expected = references(tmp_path, wanted)

    def refused(root: Path) -> object:
        raise AssertionError("listed again")

    monkeypatch.setattr(refs.gitscope, "list_files", refused)
    assert references(tmp_path, wanted, tree) == expected
    assert expected["certs/server.key"] is Referenced.TESTS_ONLY


def test_names_settled_early_are_looked_for_no_more_and_decide_as_before(tmp_path: Path) -> None:
    """A name every source file mentions makes its file ``CODE`` at the first of them:
    the pass stops looking for it (``_REMAKE_AFTER`` mentions later) while it still
    finds every file naming the names that are not settled."""
    from thresher.scoring import references as refs

    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "settings.json").write_text("{}")
    (tmp_path / "conf" / "fixture.json").write_text("{}")
    (tmp_path / "conf" / "unused.json").write_text("{}")
    for number in range(3 * refs._REMAKE_AFTER):
        (tmp_path / f"src{number:03}.py").write_text('open("conf/settings.json")\n' * 3)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "zz_test.py").write_text('open("fixture.json")')
    wanted = ["conf/settings.json", "conf/fixture.json", "conf/unused.json"]
    assert references(tmp_path, wanted) == {
        "conf/settings.json": Referenced.CODE,
        "conf/fixture.json": Referenced.TESTS_ONLY,
        "conf/unused.json": Referenced.NOWHERE,
    }
