"""One read of the history answers, for every value, what the per-finding pickaxe did."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitrepo import git
from tests.tokens import random_secret
from thresher.agents.toolspecs import GitLogArgs
from thresher.agents.workspace import Workspace
from thresher.git.history import DEFAULT_HISTORY_DEPTH, Change, HistoryIndex, HistoryMode


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    return root


VALUES = {f"F{n}": random_secret(32, seed=n) for n in range(1, 5)}


def _values(paths: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    return {value: (paths or {}).get(fid, []) for fid, value in VALUES.items()}


@pytest.fixture
def story(repo: Path) -> dict[str, str]:
    """Added, removed, re-added, renamed, rotated; one value on a line longer than a read."""
    a, b, c, d = VALUES.values()
    body = "".join(f"SETTING_{n} = {n}\n" for n in range(30))  # so git sees the rename
    (repo / "config.py").write_text(f'{body}KEY = "{a}"\nOTHER = "{b}"\n')
    first = commit_all(repo, f"add config with {a}")
    (repo / "config.py").write_text(f'{body}KEY = "{a}"  # comment\nOTHER = "{b}"\n')
    commit_all(repo, "edit that keeps the value")
    (repo / "config.py").write_text(f'{body}KEY = os.environ["KEY"]\nOTHER = "{b}"\n')
    removed = commit_all(repo, "read the key from the environment")
    (repo / "config.py").write_text(f'{body}KEY = "{a}"\nOTHER = "{b}"\n')
    readded = commit_all(repo, "oops, back again")
    git(repo, "mv", "config.py", "settings.py")
    (repo / "settings.py").write_text(f'{body}KEY = "{a}"\nOTHER = "{c}"\n')
    rotated = commit_all(repo, "rename and rotate OTHER")
    # 1 MB reads: the value straddles the first read's end of this one line.
    filler = "x" * (1024 * 1024 - 10)
    (repo / "blob.min.js").write_text(f"{filler}{d}{filler}\n")
    long_line = commit_all(repo, "vendored bundle")
    (repo / "notes.md").write_text(f"-- {a}\n")
    header_like = commit_all(repo, "a removed line that looks like a header")
    (repo / "notes.md").write_text("gone\n")
    dropped = commit_all(repo, "drop notes")
    return {
        "first": first,
        "removed": removed,
        "readded": readded,
        "rotated": rotated,
        "long_line": long_line,
        "header_like": header_like,
        "dropped": dropped,
    }


def _rows(out: Any) -> list[tuple[str, str, str, str]]:
    return [(c["commit"], c["change"], c["path"], c["subject"]) for c in out.data["commits"]]


def test_the_index_agrees_with_the_per_value_pickaxe(repo: Path, story: dict[str, str]) -> None:
    index = HistoryIndex.build(repo, _values())
    assert index.stats.mode is HistoryMode.FULL and index.stats.complete
    assert index.stats.commits_read == 8
    old = Workspace(repo, value_for=VALUES.get)
    new = Workspace(repo, value_for=VALUES.get, history=index)
    for fid in VALUES:
        for max_count in (1, 2, 20):
            args = GitLogArgs(finding_id=fid, max_count=max_count)
            assert _rows(new.git_log(args)) == _rows(old.git_log(args)), (fid, max_count)
        # Not the renamed files: a pathspec hides the rename from git, which then shows
        # a deletion of config.py; the index saw the rename, as an unfiltered log does.
        for path in ("notes.md", "blob.min.js", "."):
            args = GitLogArgs(finding_id=fid, path=path)
            assert _rows(new.git_log(args)) == _rows(old.git_log(args)), (fid, path)
    out = new.git_log(GitLogArgs(finding_id="F1"))
    assert VALUES["F1"] not in out.text + json.dumps(out.data)
    assert "add config with [finding value]" in out.text


def test_added_removed_and_readded_with_first_seen_and_removal(
    repo: Path, story: dict[str, str]
) -> None:
    index = HistoryIndex.build(repo, _values())
    a = index.of(VALUES["F1"])
    assert [(t.commit, t.change) for t in a.touches if t.path == "config.py"] == [
        (story["readded"], Change.ADDED),
        (story["removed"], Change.REMOVED),
        (story["first"], Change.ADDED),
    ]
    assert a.first_added is not None and a.first_added.commit == story["first"]
    assert a.removed is not None and a.removed.path == "notes.md"
    assert a.files == 2  # config.py, notes.md: the rename kept its line as it was
    b = index.of(VALUES["F2"])  # rotated: removed in the commit that added F3 there
    assert b.removed is not None and b.removed.replaced and b.removed.commit == story["rotated"]
    assert b.removed.path == "settings.py"  # a rename with an edit: the new name
    d = index.of(VALUES["F4"])  # split across two reads of one 2 MB line
    assert [(t.commit, t.change, t.path) for t in d.touches] == [
        (story["long_line"], Change.ADDED, "blob.min.js")
    ]


def test_the_depth_bound_is_honoured_and_reported(repo: Path, story: dict[str, str]) -> None:
    index = HistoryIndex.build(repo, _values(), depth=3)
    assert index.stats.commits_read == 3 and index.stats.stopped_at_depth
    assert "stopped at --history-depth 3" in index.stats.describe()
    assert {t.commit for v in VALUES.values() for t in index.of(v).touches} <= {
        story["dropped"],
        story["header_like"],
        story["long_line"],
    }
    out = Workspace(repo, value_for=VALUES.get, history=index).git_log(GitLogArgs(finding_id="F1"))
    assert out.data["truncated"] and "older history not searched" in out.text
    exact = HistoryIndex.build(repo, _values(), depth=8)
    assert exact.stats.commits_read == 8 and not exact.stats.stopped_at_depth
    off = HistoryIndex.build(repo, _values(), depth=0)
    assert off.stats.mode is HistoryMode.OFF and off.stats.commits_read == 0


def test_a_diff_scan_reads_only_the_range_and_checks_the_base(
    repo: Path, story: dict[str, str]
) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    fresh = random_secret(32, seed=99)
    (repo / "settings.py").write_text(
        f'KEY = "{VALUES["F1"]}"\nOTHER = "{VALUES["F3"]}"\nNEW = "{fresh}"\n'
    )
    head = commit_all(repo, "add NEW")
    values = {VALUES["F1"]: ["settings.py"], fresh: ["settings.py"]}
    index = HistoryIndex.build(repo, values, diff=f"{base}..HEAD")
    assert index.stats.mode is HistoryMode.RANGE and index.stats.commits_read == 1
    assert index.of(fresh).existed_before is False
    assert [t.commit for t in index.of(fresh).touches] == [head]
    assert index.of(VALUES["F1"]).existed_before is True
    assert index.of(VALUES["F1"]).touches == ()  # nothing before the range was read
    three = HistoryIndex.build(repo, values, diff=f"{base}...{head}")
    assert three.stats.commits_read == 1


def test_values_never_reach_git_argv_or_environment(
    repo: Path, story: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[list[str], dict[str, str]]] = []
    real_popen = subprocess.Popen

    def popen(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        calls.append((list(argv), dict(kwargs.get("env") or {})))
        return real_popen(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen)
    HistoryIndex.build(repo, _values({"F1": ["settings.py"]}))
    HistoryIndex.build(repo, _values({"F1": ["settings.py"]}), diff="HEAD~2..HEAD")
    assert len(calls) >= 4  # log, rev-parse x2, log, cat-file
    for argv, env in calls:
        assert argv[0] == "git"
        for value in VALUES.values():
            assert not any(value in arg for arg in argv)
            assert not any(value in item for item in env.values())


def test_outside_a_repository_the_tool_says_so(tmp_path: Path) -> None:
    index = HistoryIndex.build(tmp_path, _values())
    assert index.stats.error == "not a git repository"
    assert index.stats.describe() == "history: not read (not a git repository)"
    from thresher.agents.tooling import ToolError

    with pytest.raises(ToolError, match="not a git repository"):
        Workspace(tmp_path, value_for=VALUES.get, history=index).git_log(
            GitLogArgs(finding_id="F1")
        )


def test_the_cli_default_depth_is_the_documented_one() -> None:
    from thresher.cli.scan_cmd import scan_command

    default = inspect.signature(scan_command).parameters["history_depth"].default
    assert default == DEFAULT_HISTORY_DEPTH


def _cli_repo(root: Path, commits: int) -> tuple[Path, str]:
    root.mkdir()
    git(root, "init", "-q")
    value = random_secret(32, seed=5)
    (root / "settings.py").write_text(f'API_KEY = "{value}"\n')
    commit_all(root, "add the key")
    for number in range(commits - 1):
        (root / "notes.txt").write_text(f"{number}\n")
        commit_all(root, f"note {number}")
    return root, value


def test_the_scan_reports_how_far_back_it_read(cli: Any, tmp_path: Path) -> None:
    root, value = _cli_repo(tmp_path / "r", commits=4)
    result = cli("scan", "--root", str(root), "--history-depth", "2", "--json", "out.json")
    assert "history: read 2 commit(s) of history; stopped at --history-depth 2" in result.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["history"] == {
        "mode": "full", "depth": 2, "commits_read": 2, "stopped_at_depth": True,
        "timed_out": False, "error": None,
    }  # fmt: skip
    assert value not in (tmp_path / "out.json").read_text()
    full = cli("scan", "--root", str(root), "--json", "all.json")
    assert "history: read 4 commit(s) of history" in full.stderr
    assert json.loads((tmp_path / "all.json").read_text())["history"]["stopped_at_depth"] is False


def test_a_diff_scan_reads_only_the_range(cli: Any, tmp_path: Path) -> None:
    root, _ = _cli_repo(tmp_path / "r", commits=6)
    (root / "more.py").write_text(f'DB_PASSWORD = "{random_secret(24, seed=8)}"\n')
    commit_all(root, "one more")
    result = cli("scan", "--root", str(root), "--diff", "HEAD~1..HEAD", "--json", "pr.json")
    assert "history: read 1 commit(s) of the HEAD~1..HEAD range" in result.stderr
    history = json.loads((tmp_path / "pr.json").read_text())["history"]
    assert (history["mode"], history["commits_read"]) == ("range", 1)


def test_history_depth_zero_reads_nothing(cli: Any, tmp_path: Path) -> None:
    root, _ = _cli_repo(tmp_path / "r", commits=2)
    result = cli("scan", "--root", str(root), "--history-depth", "0", "--json", "o.json")
    assert "history: not read (--history-depth 0)" in result.stderr
    assert json.loads((tmp_path / "o.json").read_text())["history"]["commits_read"] == 0
    bad = cli("scan", "--root", str(root), "--history-depth", "-1")
    assert bad.exit_code == 2 and "--history-depth" in bad.stderr


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("script", "args", "figures"),
    [
        (
            "history.py",
            ["--commits", "12", "--candidates", "3", "--repeat", "1"],
            ["same tree without history  median", "history part ratio", "peak memory"],
        ),
        ("pr.py", ["--commits", "12", "--files", "5", "--repeat", "1"], ["ratio", "median"]),
    ],
)
@pytest.mark.slow
def test_the_history_benchmarks_run_and_print_their_figures(
    script: str, args: list[str], figures: list[str]
) -> None:
    """A smoke run at tiny sizes: the script works end to end (its timings mean nothing)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    for figure in figures:
        assert figure in done.stdout
    assert "PASS" in done.stdout or "FAIL" in done.stdout


def test_nothing_to_look_for_reads_no_history(repo: Path, story: dict[str, str]) -> None:
    index = HistoryIndex.build(repo, {})
    assert index.stats.commits_read == 0
    assert index.stats.describe() == "history: not read (no candidate values)"


def test_where_the_scan_found_no_repository_the_log_is_not_run(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scan that heard git say "not a git repository" hands that on: the history reads
    as git's failure would have made it, without running git again; inside a work tree
    the probe says so, and the log runs."""
    from thresher.git import history
    from thresher.git.scope import list_tree

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("x\n")
    assert list_tree(plain).repository is False
    assert list_tree(repo).repository is True
    values = {random_secret(20, seed=3): ["a.txt"]}
    ran = HistoryIndex.build(plain, values)

    def refused(*_: Any, **__: Any) -> Any:
        raise AssertionError("git log was run")

    monkeypatch.setattr(history, "_read_log", refused)
    skipped = HistoryIndex.build(plain, values, repository=False)
    assert skipped.stats == ran.stats and skipped.stats.error == "not a git repository"
    value = next(iter(values))
    assert skipped.of(value) == ran.of(value)
