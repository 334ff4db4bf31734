"""The workspace tools stay inside an untrusted checkout and never leak a finding's value."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from thresher.agents.tooling import ToolError
from thresher.agents.toolspecs import GitLogArgs, GitShowArgs, GrepArgs, ListDirArgs, ReadFileArgs
from thresher.agents.workspace import Workspace

SECRET = "AKIAQWERTYUIOPASDFGH"


def git(repo: Path, *args: str) -> str:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    done = subprocess.run(
        ["git", *identity, *args], cwd=repo, check=True, capture_output=True, text=True
    )
    return done.stdout


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def repo(ws: Path) -> Path:
    git(ws, "init", "-q")
    return ws


# -- read_file -------------------------------------------------------------


def test_read_file_numbers_lines_and_defaults_to_the_first_200(ws: Path) -> None:
    (ws / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 301)))
    out = Workspace(ws).read_file(ReadFileArgs(path="big.txt"))
    assert "   1| line 1\n" in out.text
    assert " 200| line 200" in out.text
    assert "201| line 201" not in out.text
    assert "start_line=201" in out.text
    assert out.data["start_line"] == 1
    assert out.data["end_line"] == 200
    assert len(out.data["lines"]) == 200


def test_read_file_line_range(ws: Path) -> None:
    (ws / "a.py").write_text("one\ntwo\r\nthree\nfour\n")
    out = Workspace(ws).read_file(ReadFileArgs(path="a.py", start_line=2, end_line=3))
    assert out.text.splitlines()[1:] == [
        "   2| two",
        "   3| three",
        "[1 more lines; continue with start_line=4]",
    ]
    assert out.data["lines"] == ["two", "three"]
    assert (out.data["start_line"], out.data["end_line"]) == (2, 3)


def test_read_file_end_past_eof_is_clamped(ws: Path) -> None:
    (ws / "a.txt").write_text("x\ny\n")
    out = Workspace(ws).read_file(ReadFileArgs(path="a.txt", start_line=2, end_line=50))
    assert out.data["lines"] == ["y"]
    assert out.data["end_line"] == 2


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [(5, 3, "end_line 3 is before start_line 5"), (9, None, "past the end")],
)
def test_read_file_rejects_bad_ranges(ws: Path, start: int, end: int | None, message: str) -> None:
    (ws / "a.txt").write_text("x\ny\n")
    with pytest.raises(ToolError, match=message):
        Workspace(ws).read_file(ReadFileArgs(path="a.txt", start_line=start, end_line=end))


def test_read_file_output_is_capped_with_a_note(ws: Path) -> None:
    (ws / "a.txt").write_text("".join(f"{n:03d} " + "x" * 30 + "\n" for n in range(50)))
    out = Workspace(ws, max_output_chars=200).read_file(ReadFileArgs(path="a.txt"))
    assert out.text.endswith("[output cut at 200 characters; request a smaller line range]")
    assert out.data["truncated"] is True
    assert 0 < out.data["end_line"] < 50
    # The data holds exactly the lines the model was shown.
    assert all(line in out.text for line in out.data["lines"])
    assert f"{out.data['end_line'] + 1:03d} " not in out.text


def test_read_file_one_huge_line_is_cut(ws: Path) -> None:
    (ws / "min.js").write_text("y" * 5000)
    out = Workspace(ws, max_output_chars=100).read_file(ReadFileArgs(path="min.js"))
    assert "[output cut at 100 characters" in out.text
    assert len(out.text) < 300


def test_read_file_refuses_binary(ws: Path) -> None:
    (ws / "blob.bin").write_bytes(b"PK\x03\x04\x00\x00" + b"x" * 100)
    with pytest.raises(ToolError, match="binary"):
        Workspace(ws).read_file(ReadFileArgs(path="blob.bin"))


def test_read_file_refuses_huge_files(ws: Path) -> None:
    with (ws / "huge.txt").open("wb") as handle:
        handle.truncate(5 * 1024 * 1024 + 1)
    with pytest.raises(ToolError, match="over the 5242880 byte limit"):
        Workspace(ws).read_file(ReadFileArgs(path="huge.txt"))


def test_read_file_decodes_invalid_utf8_with_replacement(ws: Path) -> None:
    (ws / "latin.txt").write_bytes(b"caf\xe9\n")
    out = Workspace(ws).read_file(ReadFileArgs(path="latin.txt"))
    assert out.data["lines"] == ["caf\ufffd"]


def test_read_file_does_not_hang_on_a_fifo(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    with pytest.raises(ToolError, match="not a regular file"):
        Workspace(ws).read_file(ReadFileArgs(path="pipe"))


def test_read_file_through_an_inside_symlink_is_allowed(ws: Path) -> None:
    (ws / "real.txt").write_text("hello\n")
    (ws / "alias.txt").symlink_to("real.txt")
    assert Workspace(ws).read_file(ReadFileArgs(path="alias.txt")).data["lines"] == ["hello"]


def test_read_file_empty_file_and_directory_are_explained(ws: Path) -> None:
    (ws / "empty.txt").write_text("")
    tools = Workspace(ws)
    with pytest.raises(ToolError, match=r"empty\.txt is empty"):
        tools.read_file(ReadFileArgs(path="empty.txt"))
    with pytest.raises(ToolError, match="is a directory; use list_dir"):
        tools.read_file(ReadFileArgs(path="."))


# -- containment -----------------------------------------------------------


@pytest.fixture
def escape_links(tmp_path: Path, ws: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOPSECRET host file\n")
    (ws / "link_file").symlink_to(outside / "secret.txt")
    (ws / "link_dir").symlink_to(outside)
    (ws / "inside.txt").write_text("harmless\n")
    return outside


def _calls(outside: Path) -> list[tuple[str, Any]]:
    absolute = str(outside / "secret.txt")
    return [
        ("read_file", ReadFileArgs(path="../outside/secret.txt")),
        ("read_file", ReadFileArgs(path="sub/../../outside/secret.txt")),
        ("read_file", ReadFileArgs(path=absolute)),
        ("read_file", ReadFileArgs(path="link_file")),
        ("read_file", ReadFileArgs(path="link_dir/secret.txt")),
        ("list_dir", ListDirArgs(path="..")),
        ("list_dir", ListDirArgs(path=str(outside))),
        ("list_dir", ListDirArgs(path="link_dir")),
        ("grep", GrepArgs(pattern="TOPSECRET", path="../outside")),
        ("grep", GrepArgs(pattern="TOPSECRET", path=absolute)),
        ("grep", GrepArgs(pattern="TOPSECRET", path="link_dir")),
        ("grep", GrepArgs(pattern="TOPSECRET", path="link_file")),
    ]


@pytest.mark.parametrize("index", range(12))
def test_paths_outside_the_workspace_are_refused(ws: Path, escape_links: Path, index: int) -> None:
    name, args = _calls(escape_links)[index]
    with pytest.raises(ToolError) as caught:
        getattr(Workspace(ws), name)(args)
    message = str(caught.value)
    assert "TOPSECRET" not in message
    assert "outside the workspace" in message or "relative to the workspace" in message


def test_links_are_refused_after_their_directory_was_read(ws: Path, escape_links: Path) -> None:
    """Directories are resolved once a run: a link beside a file already read, or under
    a directory link, is still resolved whole and refused."""
    tools = Workspace(ws)
    (ws / "conf").mkdir()
    (ws / "conf" / "app.yml").write_text("a: 1\n")
    (ws / "conf" / "out.yml").symlink_to(escape_links / "secret.txt")
    assert tools.read_file(ReadFileArgs(path="inside.txt")).data["lines"] == ["harmless"]
    assert tools.read_file(ReadFileArgs(path="conf/app.yml")).data["lines"] == ["a: 1"]
    for path in ("link_file", "conf/out.yml", "link_dir/secret.txt", "link_dir/secret.txt"):
        with pytest.raises(ToolError, match="outside the workspace"):
            tools.read_file(ReadFileArgs(path=path))


def test_each_path_resolves_as_the_whole_path_would(ws: Path, escape_links: Path) -> None:
    """Directories are resolved from their parent's resolution, once each: every path,
    asked in any order, resolves as ``(root / path).resolve()`` does, through links to
    directories inside and outside, dangling links and names that do not exist."""
    (ws / "a" / "b" / "c").mkdir(parents=True)
    (ws / "a" / "b" / "c" / "f.txt").write_text("x\n")
    (ws / "a" / "up").symlink_to(ws / "a" / "b")  # a directory link inside
    (ws / "a" / "b" / "out").symlink_to(escape_links)  # a directory link outside
    (ws / "a" / "b" / "gone").symlink_to(ws / "nowhere")  # dangling
    (ws / "a" / "b" / "c" / "loop").symlink_to(ws / "a" / "b" / "c" / "loop")
    paths = [
        "a/b/c/f.txt", "a/up/c/f.txt", "a/up/out/secret.txt", "a/b/out/secret.txt",
        "a/b/gone/x", "a/missing/c/f.txt", "a/up/c", "a/b/c/loop/x", "inside.txt",
        "link_dir/secret.txt", "a/up/up/c",
    ]  # fmt: skip
    for order in (paths, list(reversed(paths))):
        tools = Workspace(ws)
        for path in order:
            try:
                expected: object = (ws.resolve() / path).resolve()
            except (OSError, RuntimeError) as exc:
                expected = type(exc)
            try:
                got: object = tools._resolved(path)
            except (OSError, RuntimeError) as exc:
                got = type(exc)
            assert got == expected, path


def test_walks_do_not_follow_symlinks_out(ws: Path, escape_links: Path) -> None:
    tools = Workspace(ws)
    assert tools.grep(GrepArgs(pattern="TOPSECRET")).data["matches"] == []
    listing = tools.list_dir(ListDirArgs())
    assert "link_dir -> (symlink)" in listing.text
    assert "secret.txt" not in listing.text


# -- list_dir --------------------------------------------------------------


def test_list_dir_sorted_with_markers_and_no_git(repo: Path) -> None:
    (repo / "zeta.txt").write_text("z")
    (repo / "alpha").mkdir()
    (repo / "beta.txt").write_text("b")
    (repo / "link").symlink_to("beta.txt")
    out = Workspace(repo).list_dir(ListDirArgs())
    assert out.text.splitlines() == ["./", "alpha/", "beta.txt", "link -> (symlink)", "zeta.txt"]
    assert [e["name"] for e in out.data["entries"]] == ["alpha", "beta.txt", "link", "zeta.txt"]
    assert out.data["entries"][0]["type"] == "dir"


def test_list_dir_caps_entries(ws: Path) -> None:
    for n in range(501):
        (ws / f"f{n:04d}").write_text("")
    out = Workspace(ws).list_dir(ListDirArgs())
    assert len(out.data["entries"]) == 500
    assert "[showing 500 of 501 entries]" in out.text
    assert "f0500" not in out.text


def test_list_dir_escapes_names_that_could_forge_lines(ws: Path) -> None:
    (ws / "evil\nnot-a-file").write_text("")
    out = Workspace(ws).list_dir(ListDirArgs())
    assert "not-a-file" not in out.text.splitlines()


def test_list_dir_of_a_file_is_an_error(ws: Path) -> None:
    (ws / "a.txt").write_text("")
    with pytest.raises(ToolError, match="not a directory"):
        Workspace(ws).list_dir(ListDirArgs(path="a.txt"))


# -- grep ------------------------------------------------------------------


def test_grep_finds_matches_with_paths_and_lines(repo: Path) -> None:
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("import os\nKEY = os.environ['API_KEY']\n")
    (repo / "b.txt").write_text("nothing\n")
    out = Workspace(repo).grep(GrepArgs(pattern=r"API_\w+"))
    assert out.text == "src/app.py:2: KEY = os.environ['API_KEY']"
    assert out.data == {
        "matches": [{"path": "src/app.py", "line": 2, "text": "KEY = os.environ['API_KEY']"}],
        "truncated": False,
    }


def test_grep_single_file(ws: Path) -> None:
    (ws / "a.txt").write_text("foo\nbar\nfoo\n")
    out = Workspace(ws).grep(GrepArgs(pattern="foo", path="a.txt"))
    assert [m["line"] for m in out.data["matches"]] == [1, 3]


def test_grep_skips_git_binaries_and_large_files(repo: Path) -> None:
    (repo / "blob.bin").write_bytes(b"needle\x00")
    (repo / "large.txt").write_text("needle\n" + "x" * (1024 * 1024))
    (repo / "ok.txt").write_text("needle\n")
    out = Workspace(repo).grep(GrepArgs(pattern="needle|repositoryformatversion"))
    assert [m["path"] for m in out.data["matches"]] == ["ok.txt"]
    assert "[skipped 2 binary, oversized or unreadable files]" in out.text


def test_grep_bad_regex_names_the_error(ws: Path) -> None:
    with pytest.raises(ToolError, match=r"invalid regex '\(unclosed': missing \)"):
        Workspace(ws).grep(GrepArgs(pattern="(unclosed"))


def test_grep_stops_at_max_matches_with_a_note(ws: Path) -> None:
    (ws / "a.txt").write_text("hit\n" * 10)
    out = Workspace(ws).grep(GrepArgs(pattern="hit", max_matches=3))
    assert len(out.data["matches"]) == 3
    assert out.data["truncated"] is True
    assert "[stopped at max_matches=3" in out.text


def test_grep_long_lines_match_on_their_head_and_text_is_cut(ws: Path) -> None:
    (ws / "min.js").write_text("a" * 1990 + "HEAD" + "b" * 2000 + "TAIL\n")
    tools = Workspace(ws)
    (match,) = tools.grep(GrepArgs(pattern="HEAD")).data["matches"]
    assert len(match["text"]) == 300
    assert tools.grep(GrepArgs(pattern="TAIL")).data["matches"] == []


# -- git -------------------------------------------------------------------


def test_git_log_by_path(repo: Path) -> None:
    (repo / "a.txt").write_text("1\n")
    first = commit_all(repo, "add a")
    (repo / "b.txt").write_text("1\n")
    commit_all(repo, "add b")
    (repo / "a.txt").write_text("2\n")
    third = commit_all(repo, "change a")
    out = Workspace(repo).git_log(GitLogArgs(path="a.txt"))
    commits = out.data["commits"]
    assert [c["commit"] for c in commits] == [third, first]
    assert [c["subject"] for c in commits] == ["change a", "add a"]
    assert commits[0]["author"] == "t"
    assert commits[0]["date"][:4].isdigit() and "T" in commits[0]["date"]
    assert commits[0]["change"] is None
    assert out.text.splitlines()[0].startswith(f"{third[:12]} ")
    assert out.text.splitlines()[0].endswith(" t: change a")


def test_git_log_by_path_refuses_escapes(repo: Path) -> None:
    with pytest.raises(ToolError, match=r"'\.\.'"):
        Workspace(repo).git_log(GitLogArgs(path="../x"))


@pytest.fixture
def secret_history(repo: Path) -> dict[str, str]:
    (repo / "README.md").write_text("hello\n")
    base = commit_all(repo, "initial")
    (repo / "config.py").write_text(f'DEBUG = True\nAWS_KEY = "{SECRET}"\n')
    added = commit_all(repo, f"add config with {SECRET}")
    (repo / "README.md").write_text("hello again\n")
    commit_all(repo, "docs")
    (repo / "config.py").write_text('DEBUG = True\nAWS_KEY = os.environ["AWS_KEY"]\n')
    removed = commit_all(repo, "read the key from the environment")
    return {"base": base, "added": added, "removed": removed}


def _value_for(finding_id: str) -> str | None:
    return SECRET if finding_id == "F1" else None


def test_git_log_finding_finds_adding_and_removing_commits(
    repo: Path, secret_history: dict[str, str]
) -> None:
    out = Workspace(repo, value_for=_value_for).git_log(GitLogArgs(finding_id="F1"))
    found = [(c["commit"], c["change"], c["path"]) for c in out.data["commits"]]
    assert found == [
        (secret_history["removed"], "removed", "config.py"),
        (secret_history["added"], "added", "config.py"),
    ]
    assert out.text.splitlines()[0].startswith(secret_history["removed"][:12])
    assert " removed in config.py: read the key from the environment" in out.text
    assert " added in config.py: add config with [finding value]" in out.text
    assert SECRET not in out.text
    assert SECRET not in json.dumps(out.data)


def test_git_log_finding_stops_at_max_count(repo: Path, secret_history: dict[str, str]) -> None:
    tools = Workspace(repo, value_for=_value_for)
    out = tools.git_log(GitLogArgs(finding_id="F1", max_count=1))
    assert [c["commit"] for c in out.data["commits"]] == [secret_history["removed"]]
    assert "older history not searched" in out.text
    assert out.data["truncated"] is True


def test_git_log_finding_does_not_report_an_edit_that_keeps_the_value(repo: Path) -> None:
    (repo / "a.env").write_text(f"KEY={SECRET}\n")
    added = commit_all(repo, "add")
    (repo / "a.env").write_text(f"KEY={SECRET}  # rotated soon\n")
    commit_all(repo, "comment")
    out = Workspace(repo, value_for=_value_for).git_log(GitLogArgs(finding_id="F1"))
    assert [(c["commit"], c["change"]) for c in out.data["commits"]] == [(added, "added")]


def test_git_log_finding_tracks_removed_lines_that_look_like_headers(repo: Path) -> None:
    (repo / "notes.md").write_text(f"-- {SECRET}\n")
    added = commit_all(repo, "add")
    (repo / "notes.md").write_text("gone\n")
    removed = commit_all(repo, "remove")
    out = Workspace(repo, value_for=_value_for).git_log(GitLogArgs(finding_id="F1"))
    assert [(c["commit"], c["change"], c["path"]) for c in out.data["commits"]] == [
        (removed, "removed", "notes.md"),
        (added, "added", "notes.md"),
    ]


def test_git_log_unknown_finding(repo: Path) -> None:
    with pytest.raises(ToolError, match="unknown finding id 'F9'"):
        Workspace(repo, value_for=_value_for).git_log(GitLogArgs(finding_id="F9"))


def test_git_log_finding_never_puts_the_value_in_argv(
    repo: Path, secret_history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[list[str], dict[str, str]]] = []
    real_popen, real_run = subprocess.Popen, subprocess.run

    def popen(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        calls.append((list(argv), dict(kwargs.get("env") or {})))
        return real_popen(argv, *args, **kwargs)

    def run(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        calls.append((list(argv), dict(kwargs.get("env") or {})))
        return real_run(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen)
    monkeypatch.setattr(subprocess, "run", run)
    out = Workspace(repo, value_for=_value_for).git_log(GitLogArgs(finding_id="F1"))
    assert len(out.data["commits"]) == 2
    assert calls
    for argv, env in calls:
        assert argv[0] == "git"
        assert not any(SECRET in arg for arg in argv)
        assert not any(SECRET in value for value in env.values())


def test_git_tools_outside_a_repository(ws: Path) -> None:
    (ws / "a.txt").write_text("x\n")
    tools = Workspace(ws, value_for=_value_for)
    for call in (
        lambda: tools.git_log(GitLogArgs()),
        lambda: tools.git_log(GitLogArgs(finding_id="F1")),
        lambda: tools.git_show(GitShowArgs(rev="HEAD")),
    ):
        with pytest.raises(ToolError, match="not a git repository"):
            call()


def test_git_does_not_climb_into_an_enclosing_repository(repo: Path) -> None:
    (repo / "vendored").mkdir()
    (repo / "vendored" / "a.txt").write_text("x\n")
    commit_all(repo, "outer")
    with pytest.raises(ToolError, match="not a git repository"):
        Workspace(repo / "vendored").git_log(GitLogArgs())


def test_inherited_git_environment_cannot_redirect_git(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    (other / "o.txt").write_text("o\n")
    commit_all(other, "from the other repository")
    (repo / "a.txt").write_text("a\n")
    commit_all(repo, "from the workspace")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    out = Workspace(repo).git_log(GitLogArgs())
    assert [c["subject"] for c in out.data["commits"]] == ["from the workspace"]


def test_git_missing_is_a_tool_error(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "no-such-bin"))
    with pytest.raises(ToolError, match="git is not available"):
        Workspace(repo).git_log(GitLogArgs())


@pytest.mark.parametrize(
    "rev", ["--output=/tmp/x", "-p", "HEAD\n", "HEAD --output=x", "HEAD:a.txt", "", "x" * 201]
)
def test_git_show_refuses_option_injection(repo: Path, tmp_path: Path, rev: str) -> None:
    (repo / "a.txt").write_text("x\n")
    commit_all(repo, "one")
    target = tmp_path / "injected"
    with pytest.raises(ToolError, match="invalid rev"):
        Workspace(repo).git_show(GitShowArgs(rev=rev.replace("/tmp/x", str(target))))
    assert not target.exists()


def test_git_show_commit_and_file_at_revision(repo: Path) -> None:
    (repo / "a.txt").write_text("old\n")
    first = commit_all(repo, "first version")
    (repo / "a.txt").write_text("new\n")
    commit_all(repo, "second version")
    tools = Workspace(repo)
    assert tools.git_show(GitShowArgs(rev=first, path="a.txt")).text == "old\n"
    assert tools.git_show(GitShowArgs(rev="HEAD~1", path="./a.txt")).text == "old\n"
    shown = tools.git_show(GitShowArgs(rev="HEAD")).text
    assert "second version" in shown
    assert "-old" in shown and "+new" in shown
    assert "a.txt | 2 +-" in shown


def test_git_show_path_escape_refused(repo: Path) -> None:
    with pytest.raises(ToolError, match=r"'\.\.'"):
        Workspace(repo).git_show(GitShowArgs(rev="HEAD", path="../a.txt"))


def test_git_show_output_is_capped(repo: Path) -> None:
    (repo / "big.txt").write_text("line\n" * 2000)
    commit_all(repo, "big")
    out = Workspace(repo, max_output_chars=300).git_show(GitShowArgs(rev="HEAD"))
    assert "[output cut at 300 characters" in out.text
    assert out.data["truncated"] is True
    assert len(out.text) < 400


def test_hostile_repository_config_runs_nothing(
    repo: Path, tmp_path: Path, secret_history: dict[str, str]
) -> None:
    marker = tmp_path / "pwned"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat \"$1\" 2>/dev/null\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    for key, value in [
        ("core.fsmonitor", str(script)),
        ("diff.external", str(script)),
        ("diff.evil.textconv", str(script)),
        ("core.pager", str(script)),
        ("core.hooksPath", str(tmp_path)),
        ("log.showSignature", "true"),
        ("gpg.program", str(script)),
    ]:
        git(repo, "config", key, value)
    (repo / ".gitattributes").write_text("* diff=evil\n")
    # Control: plain git in this checkout does run the planted commands.
    git(repo, "status")
    assert marker.exists()
    marker.unlink()
    git(repo, "log", "-p")
    assert marker.exists()
    marker.unlink()

    tools = Workspace(repo, value_for=_value_for)
    tools.git_log(GitLogArgs())
    tools.git_log(GitLogArgs(path="config.py"))
    found = tools.git_log(GitLogArgs(finding_id="F1"))
    tools.git_show(GitShowArgs(rev="HEAD"))
    tools.git_show(GitShowArgs(rev=secret_history["added"], path="config.py"))
    assert not marker.exists()
    assert len(found.data["commits"]) == 2


def test_a_value_straddling_any_cut_is_redacted_whole(repo: Path) -> None:
    """Redaction runs on whole texts before read_file, grep and git_show cut them, so no
    part of a value on either side of a cut reaches the model."""
    from tests.tokens import github_token
    from thresher.redaction.redactor import Redactor

    token = github_token()
    line = "x" * 70 + f' TOKEN = "{token}"'  # the 100-character cut falls inside the token
    (repo / "cfg.py").write_text(line + "\n", encoding="utf-8")
    head = commit_all(repo, "add cfg")
    redactor = Redactor([token])
    ws = Workspace(repo, max_output_chars=100, redact=redactor.text)
    outputs = [
        ws.read_file(ReadFileArgs(path="cfg.py")),
        ws.grep(GrepArgs(pattern="TOKEN", path=".")),
        ws.git_show(GitShowArgs(rev=head, path="cfg.py")),
        ws.git_show(GitShowArgs(rev=head)),
    ]
    for out in outputs:
        dumped = out.text + json.dumps(out.data)
        assert token[:12] not in dumped and token[-12:] not in dumped
    # Redacting only after the cut, as before, leaves the first part of the value readable.
    late = Workspace(repo, max_output_chars=100).read_file(ReadFileArgs(path="cfg.py"))
    assert token[:12] in redactor.text(late.text)


def test_grep_runs_in_linear_time_on_a_catastrophic_pattern(ws: Path) -> None:
    """Python's re needs about 2**26 steps here; RE2 answers at once, so a model's pattern
    cannot stall the session."""
    (ws / "min.js").write_text("a" * 26 + "b\n", encoding="utf-8")
    out = Workspace(ws).grep(GrepArgs(pattern="^(a+)+$", path="."))
    assert out.data["matches"] == []


def test_grep_explains_patterns_the_linear_engine_refuses(ws: Path) -> None:
    (ws / "a.txt").write_text("abab\n", encoding="utf-8")
    with pytest.raises(ToolError, match=r"invalid regex .*RE2: linear time, no backreferences"):
        Workspace(ws).grep(GrepArgs(pattern=r"(ab)\1", path="."))


def test_git_internals_are_refused_even_through_a_link(repo: Path) -> None:
    """actions/checkout writes its token into .git/config as an http.extraheader."""
    (repo / "link").symlink_to(repo / ".git" / "config")
    ws = Workspace(repo)
    for call in (
        lambda: ws.read_file(ReadFileArgs(path=".git/config")),
        lambda: ws.read_file(ReadFileArgs(path="link")),
        lambda: ws.list_dir(ListDirArgs(path=".git")),
        lambda: ws.grep(GrepArgs(pattern="extraheader", path=".git")),
        lambda: ws.git_show(GitShowArgs(rev="HEAD", path=".git/config")),
        lambda: ws.git_log(GitLogArgs(path=".git/config")),
    ):
        with pytest.raises(ToolError, match=r"\.git/ internals are refused"):
            call()


# -- redaction by detection ------------------------------------------------


def detecting_workspace(root: Path, **kwargs: Any) -> Workspace:
    """A run's workspace: the redactor knows no candidate, only what detection finds."""
    from thresher.redaction.detector import Detector
    from thresher.redaction.redactor import Redactor
    from thresher.scan.assess import is_public_word

    redactor = Redactor(detector=Detector(is_public=is_public_word))
    return Workspace(root, redact=redactor.text, **kwargs)


def test_a_git_ignored_env_is_readable_but_its_secrets_are_redacted(repo: Path) -> None:
    """Ignored files are where secrets live, so a model may read them; it reads no value."""
    from tests.tokens import random_secret

    token, password = random_secret(40, seed=80), random_secret(18, seed=81) + "/+%!"
    (repo / ".gitignore").write_text(".env\n")
    (repo / ".env").write_text(f"DEBUG=true\nAPI_TOKEN={token}\nPASSWORD={password}\n")
    commit_all(repo, "ignore .env")
    ws = detecting_workspace(repo)
    outputs = [
        ws.read_file(ReadFileArgs(path=".env")),
        ws.grep(GrepArgs(pattern="TOKEN|PASSWORD", path=".")),
        ws.list_dir(ListDirArgs(path=".")),
    ]
    assert "DEBUG=true" in outputs[0].text and ".env" in outputs[2].text
    assert "API_TOKEN=[REDACTED:token:" in outputs[0].text
    assert "PASSWORD=[REDACTED:password:" in outputs[1].text
    for out in outputs:
        dumped = out.text + json.dumps(out.data)
        assert token[:6] not in dumped and password[:6] not in dumped
    # grep matches the redacted text: it cannot be asked, character by character, what
    # a redacted value starts with.
    probe = ws.grep(GrepArgs(pattern=f"API_TOKEN={token[:3]}", path="."))
    assert probe.data["matches"] == []


def _shown_after(dumped: str, context: str) -> list[str]:
    """What the output shows where the value would start, after each ``context``."""
    import re

    found = [m.end() for m in re.finditer(re.escape(context), dumped)]
    assert found, f"{context!r} is not in the output"
    return [re.match(r"[^\n\\\"]*", dumped[end:]).group(0) for end in found]  # type: ignore[union-attr]


def _assert_redacted_whole(out_text: str, out_data: dict[str, Any], context: str) -> None:
    for shown in _shown_after(out_text + "\n" + json.dumps(out_data), context):
        # Either the token, or (cut) the beginning of one: no character of the value.
        assert shown.startswith("[REDACTED:") or "[REDACTED:".startswith(shown), shown


def _value_index(repo: Path, args: tuple[str, ...], value: str) -> int:
    """Where ``value`` sits in the full, uncut output of a git command."""
    return git(repo, "-c", "core.quotePath=false", *args).index(value)


@pytest.mark.parametrize("kind", ["github-token", "password"])
def test_a_detected_value_straddling_any_cut_is_redacted_whole(repo: Path, kind: str) -> None:
    """A value the scanner never saw (so no candidate list knows it), placed across the
    300-character grep cut and the 20,000-character read_file, git_show and git_log cuts:
    not one character of it, past its public prefix, reaches the model."""
    from tests.tokens import github_token, random_secret

    value = github_token(seed=82) if kind == "github-token" else random_secret(30, seed=83)
    context = "TOKEN_A=" if kind == "github-token" else "PASSWORD="
    limit = 20_000
    # grep keeps 300 characters of a line; read_file cuts one huge line at 20,000.
    (repo / "grep.txt").write_text("g" * (300 - 10 - len(context)) + f" {context}{value}\n")
    (repo / "wide.txt").write_text("w" * (limit - 10 - len(context) - 6) + f" {context}{value}\n")
    # git_show of a path prints the blob: its cut falls inside the value too.
    (repo / "blob.txt").write_text("b" * (limit - 10 - len(context)) + f" {context}{value}\n")
    commit_all(repo, "files")
    # git_show of a commit: the patch header comes first. Measure it on a twin commit
    # (same names, message and line count), then pad.
    twin = repo.parent / "twin"
    twin.mkdir()
    git(twin, "init", "-q")
    (twin / "patch.txt").write_text(f"{context}{value}\n")
    shift = _value_index(twin, ("show", "--stat", "--patch", commit_all(twin, "patch")), value)
    (repo / "patch.txt").write_text("p" * (limit - 10 - shift) + f"{context}{value}\n")
    patch = commit_all(repo, "patch")
    assert _value_index(repo, ("show", "--stat", "--patch", patch), value) == limit - 10
    # git_log: a subject that long puts the value across the row text's cut.
    head = _value_index(repo, ("log", "-1", "--format=%H %aI %an: %s"), "patch")
    subject = "s" * (limit - 10 - len(context) - (head - 28)) + f"{context}{value}"
    git(repo, "commit", "-q", "--allow-empty", "-m", subject)

    ws = detecting_workspace(repo, max_output_chars=limit)
    outputs = [
        ws.grep(GrepArgs(pattern=context, path="grep.txt")),
        ws.read_file(ReadFileArgs(path="wide.txt")),
        ws.git_show(GitShowArgs(rev=patch, path="blob.txt")),
        ws.git_show(GitShowArgs(rev=patch)),
        ws.git_log(GitLogArgs(max_count=1)),
    ]
    assert len(outputs[0].data["matches"][0]["text"]) == 300  # every output was cut
    assert all(f"[output cut at {limit} characters" in o.text for o in outputs[1:])
    public = 4 if kind == "github-token" else 0
    for out in outputs:
        _assert_redacted_whole(out.text, out.data, context)
        dumped = out.text + json.dumps(out.data)
        for size in (4, 8):
            assert value[public : public + size] not in dumped
            assert value[-size:] not in dumped


@pytest.mark.parametrize("narrowed", [False, True])
def test_a_private_key_reaching_into_a_line_range_is_redacted(ws: Path, narrowed: bool) -> None:
    """read_file redacts the lines it shows with a margin: a key block that starts before
    the requested range is still recognised, and line numbers stay true. The offline
    panel's narrowed view keeps the whole margin when a key marker is within reach."""
    import random
    import string

    rng = random.Random(84)
    body = ["".join(rng.choice(string.ascii_letters + "+/") for _ in range(64)) for _ in range(8)]
    block = ["-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"]
    lines = [f"line {n}" for n in range(1, 301)] + block + ["after the key"]
    (ws / "key.txt").write_text("\n".join(lines) + "\n" + "filler\n" * 100_000)
    workspace = detecting_workspace(ws)
    if narrowed:
        workspace = workspace.narrowed()
    out = workspace.read_file(ReadFileArgs(path="key.txt", start_line=305, end_line=311))
    assert out.data["total_lines"] == len(lines) + 100_000
    assert [row.split("| ")[0].strip() for row in out.text.splitlines()[1:8]] == [
        str(n) for n in range(305, 312)
    ]
    dumped = out.text + json.dumps(out.data)
    assert not any(line[:8] in dumped for line in body)
    after = detecting_workspace(ws).read_file(ReadFileArgs(path="key.txt", start_line=311))
    assert after.data["lines"][0] == "after the key"


def test_a_narrowed_workspace_shows_the_range_as_the_wide_one_does(ws: Path) -> None:
    """Away from key blocks, the narrow margin redacts the lines shown exactly as the
    wide one does: a value lies on its own line."""
    from tests.tokens import github_token, random_secret

    token, password = github_token(seed=91), random_secret(24, seed=92)
    lines = [f"line {n}" for n in range(1, 500)]
    lines[249] = f'TOKEN = "{token}"'
    lines[251] = f"password = '{password}'"
    (ws / "cfg.py").write_text("\n".join(lines) + "\n")
    args = ReadFileArgs(path="cfg.py", start_line=245, end_line=255)
    wide = detecting_workspace(ws).read_file(args)
    narrow = detecting_workspace(ws).narrowed().read_file(args)
    assert narrow.text == wide.text
    assert narrow.data == wide.data
    assert token[4:12] not in narrow.text and password[:8] not in narrow.text


def test_git_log_finding_answers_from_the_run_history_without_git(
    repo: Path, secret_history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run reads the history once; every finding's git_log is then a lookup."""
    from thresher.git.history import HistoryIndex

    index = HistoryIndex.build(repo, {SECRET: ["config.py"]})
    old = Workspace(repo, value_for=_value_for).git_log(GitLogArgs(finding_id="F1"))

    def no_git(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("git ran for a finding the history index answers")

    monkeypatch.setattr(subprocess, "Popen", no_git)
    out = Workspace(repo, value_for=_value_for, history=index).git_log(GitLogArgs(finding_id="F1"))
    assert out.text == old.text
    assert out.data["commits"] == old.data["commits"]
    assert (out.data["scanned_commits"], out.data["truncated"]) == (4, False)
    assert out.data["summary"]["first_added"] == secret_history["added"]
    assert out.data["summary"]["removed"] == secret_history["removed"]
    assert SECRET not in out.text + json.dumps(out.data)
    with pytest.raises(ToolError, match="unknown finding id 'F9'"):
        Workspace(repo, value_for=_value_for, history=index).git_log(GitLogArgs(finding_id="F9"))
