"""``thresher triage --clone``: history from a partial clone, the token kept out of argv.

The repository ``octo/app`` is a local bare repository served to git over ``file://``
(with ``uploadpack.allowFilter``, so the clone is a real partial one); the fake GitHub
API names it as the repository's ``clone_url``. Its history: a token committed in
``config/settings.py`` with a file over 1 MB beside it, then the token taken out again.
GitHub's alert names the first commit, as it does for a value that is no longer there.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.fakes.github import GitHubFake, captured_text
from tests.fakes.github_git import basic_token
from tests.fakes.github_world import GitHubWorld, Loc
from tests.gitrepo import git
from tests.tokens import github_token
from thresher.config.settings import Settings
from thresher.git.history import HistoryIndex
from thresher.triage.clone import CloneError, auth_env, omitted_paths, partial_clone
from thresher.triage.runner import TriageRequest, run_triage

VALUE = github_token(seed=81)
PATH = "config/settings.py"
ADDED = f'import os\n\nAPI_TOKEN = "{VALUE}"\nDEBUG = False\n'
REMOVED = 'import os\n\nAPI_TOKEN = os.environ["API_TOKEN"]\nDEBUG = False\n'

Cli = Callable[..., Result]


def _basic(token: str) -> str:
    return base64.b64encode(f"x-access-token:{token}".encode()).decode()


@pytest.fixture
def remote(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The bare repository git clones, and the commit that added the value. It lives
    outside the test's working directory: it holds the raw value, the run must not."""
    base = tmp_path_factory.mktemp("remote")
    work = base / "work"
    work.mkdir()
    git(work, "init", "-q")
    (work / "config").mkdir()
    (work / PATH).write_text(ADDED)
    # Over the clone's 1 MB blob limit: left out of the partial clone, and out of the
    # history read (git log -p would stop at it otherwise).
    (work / "assets").mkdir()
    (work / "assets" / "big.txt").write_text(base64.b64encode(os.urandom(900_000)).decode())
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "Add the settings")
    added = git(work, "rev-parse", "HEAD").strip()
    (work / PATH).write_text(REMOVED)
    git(work, "commit", "-q", "-am", "Read the token from the environment")
    bare = base / "app.git"
    git(base, "clone", "-q", "--bare", str(work), str(bare))
    git(bare, "config", "uploadpack.allowFilter", "true")
    shutil.rmtree(work)
    return bare, added


@pytest.fixture
def world(token: str, remote: tuple[Path, str]) -> GitHubWorld:
    bare, added = remote
    world = GitHubWorld()
    world.add_token(token)
    repo = world.add_repo("octo/app")
    repo.clone_url = bare.as_uri()
    sha = repo.add_file(added, PATH, ADDED.encode())
    repo.add_alert(secret=VALUE, locations=[Loc.commit(PATH, added, sha, line=3)])
    return world


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system temporary directory, for this test only: the run's evidence (and its
    clones) go there, and must be gone when the run ends."""
    path = tmp_path / "tmp"
    path.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(path))
    return path


@pytest.fixture
def shim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``git`` first on PATH that logs its arguments and the NAMES of its environment
    variables (one JSON line per call), then runs the real git."""
    real = shutil.which("git")
    assert real is not None
    bin_dir, log = tmp_path / "bin", tmp_path / "git-calls.jsonl"
    bin_dir.mkdir()
    script = bin_dir / "git"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"with open({str(log)!r}, 'a') as out:\n"
        "    out.write(json.dumps({'argv': sys.argv[1:], 'env': sorted(os.environ)}) + '\\n')\n"
        f"os.execv({real!r}, ['git', *sys.argv[1:]])\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def _calls(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture
def triage_args() -> tuple[str, ...]:
    return ("--repo", "octo/app")


def _report(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def _artifacts(tmp_path: Path) -> str:
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file()
    )


def _evidence_text(report: dict[str, Any]) -> str:
    """What the decision says, as one text: claims, rationale, ledger."""
    (alert,) = report["alerts"]
    return json.dumps(alert["decision"])


# -- the token stays out of argv and out of the clone ----------------------------------------


def test_the_token_reaches_git_only_through_its_environment_never_an_argument_or_the_config(
    triage: Cli, shim: Path, token: str, temp: Path, tmp_path: Path, server: GitHubFake
) -> None:
    result = triage("--clone", "--json", "out.json")
    assert result.exit_code == 0, result.output
    calls = _calls(shim)
    clones = [c for c in calls if "clone" in c["argv"]]
    assert len(clones) == 1  # one repository, cloned once
    argv = clones[0]["argv"]
    assert "--bare" in argv and "--filter=blob:limit=1m" in argv
    assert {"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"} <= set(clones[0]["env"])
    for call in calls:
        text = "\0".join(call["argv"])
        assert token not in text and _basic(token) not in text
    # The clone lived in the run's private evidence directory, deleted with it.
    assert not any(temp.iterdir())
    everything = _artifacts(tmp_path) + result.output + captured_text(server)
    assert VALUE not in everything
    assert _basic(token) not in everything


def test_a_partial_clone_keeps_the_token_out_of_its_files_and_its_messages(
    remote: tuple[Path, str], token: str, tmp_path: Path
) -> None:
    bare, _ = remote
    dest = partial_clone(bare.as_uri(), tmp_path / "clone.git", token, dict(os.environ))
    config = (dest / "config").read_text()
    assert "promisor = true" in config  # a partial clone indeed
    for path in dest.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert token.encode() not in data and _basic(token).encode() not in data
    with pytest.raises(CloneError) as failed:
        partial_clone(bare.as_uri() + "-gone", tmp_path / "other.git", token, dict(os.environ))
    assert token not in str(failed.value) and _basic(token) not in str(failed.value)


def test_the_header_goes_only_to_the_clone_urls_origin_and_no_inherited_git_setting_stays() -> None:
    token = "ghs_" + "H" * 36
    environ = {"PATH": "/usr/bin", "GIT_DIR": "/elsewhere", "GIT_SSL_CAINFO": "/ca.pem"}
    env = auth_env("https://ghe.example/octo/app.git", token, environ)
    config = {
        env[f"GIT_CONFIG_KEY_{n}"]: env[f"GIT_CONFIG_VALUE_{n}"]
        for n in range(int(env["GIT_CONFIG_COUNT"]))
    }
    assert (
        config["http.https://ghe.example/.extraheader"] == f"AUTHORIZATION: basic {_basic(token)}"
    )
    assert config["credential.helper"] == "" and config["http.followRedirects"] == "false"
    assert env["GIT_ALLOW_PROTOCOL"] == "https" and env["GIT_TERMINAL_PROMPT"] == "0"
    assert "GIT_DIR" not in env and env["GIT_SSL_CAINFO"] == "/ca.pem"
    assert all(token not in value for value in env.values())
    # No header for a file URL: the token is never handed to anything but http(s).
    local = auth_env("file:///srv/app.git", token, environ)
    assert all(_basic(token) not in value for value in local.values())


# -- history is real with --clone, absent without ---------------------------------------------


def test_with_clone_the_decision_knows_the_value_was_removed_and_without_it_does_not(
    triage: Cli, tmp_path: Path, remote: tuple[Path, str], temp: Path
) -> None:
    _, added = remote
    plain = triage("--json", "plain.json")
    assert plain.exit_code == 0, plain.output
    without = _report(tmp_path / "plain.json")
    assert without["histories"] == []
    assert "removed in" not in _evidence_text(without)

    (tmp_path / "state.db").unlink()  # decide again, not from the stored decision
    cloned = triage("--clone", "--json", "cloned.json")
    assert cloned.exit_code == 0, cloned.output
    report = _report(tmp_path / "cloned.json")
    (history,) = report["histories"]
    assert history["repo"] == "octo/app" and history["error"] is None
    assert history["history"]["commits_read"] == 2 and history["omitted_paths"] == 1
    evidence = _evidence_text(report)
    assert "git history of the value" in evidence
    assert "removed in" in evidence and f"added in {added[:8]}" in evidence
    assert report["alerts"][0]["error"] is None


def test_the_history_read_bounds_itself_at_history_depth(
    triage: Cli, tmp_path: Path, temp: Path
) -> None:
    result = triage("--clone", "--history-depth", "1", "--json", "out.json")
    assert result.exit_code == 0, result.output
    (history,) = _report(tmp_path / "out.json")["histories"]
    assert history["history"]["commits_read"] == 1
    assert history["history"]["stopped_at_depth"] is True
    assert "history of octo/app: read 1 commit(s); stopped at --history-depth 1" in result.output


def test_history_depth_needs_clone_and_zero_makes_no_clone(
    triage: Cli, shim: Path, tmp_path: Path, temp: Path
) -> None:
    refused = triage("--history-depth", "5")
    assert refused.exit_code == 2
    assert "--history-depth needs --clone" in refused.output
    none = triage("--clone", "--history-depth", "0", "--json", "out.json")
    assert none.exit_code == 0, none.output
    assert not [c for c in _calls(shim) if "clone" in c["argv"]]
    assert _report(tmp_path / "out.json")["histories"] == []


def test_paths_of_blobs_left_out_are_listed_and_kept_out_of_the_history_read(
    remote: tuple[Path, str], tmp_path: Path
) -> None:
    bare, added = remote
    dest = partial_clone(bare.as_uri(), tmp_path / "clone.git", None, dict(os.environ))
    omitted = omitted_paths(dest)
    assert omitted == ("assets/big.txt",)
    whole = HistoryIndex.build(dest, {VALUE: (PATH,)}, exclude=omitted)
    assert whole.stats.error is None
    touches = whole.of(VALUE).touches
    assert [t.change.value for t in touches] == ["removed", "added"]
    assert touches[1].commit == added
    # Without leaving them out, git log -p stops at the first blob the clone lacks.
    assert HistoryIndex.build(dest, {VALUE: (PATH,)}).stats.error


# -- refusals and failures --------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://x-access-token:ghs_abc@github.com/octo/app.git",
        "https://someone@github.com/octo/app.git",
        "ssh://github.com/octo/app.git",
        "ext::sh -c touch% /tmp/pwned",
        "-uhttps://github.com/octo/app.git",
    ],
)
def test_a_url_carrying_credentials_or_another_protocol_is_refused_before_git_runs(
    url: str, shim: Path, tmp_path: Path
) -> None:
    with pytest.raises(CloneError, match="refusing"):
        partial_clone(url, tmp_path / "clone.git", "ghs_" + "R" * 36, dict(os.environ))
    assert _calls(shim) == []
    assert not (tmp_path / "clone.git").exists()


def test_a_clone_url_with_credentials_from_the_api_is_an_error_on_the_alert(
    triage: Cli, world: GitHubWorld, server: GitHubFake, tmp_path: Path, shim: Path, temp: Path
) -> None:
    repo = world.repos["octo/app"]
    repo.clone_url = f"http://x-access-token:leak@127.0.0.1:{server.base_url.rsplit(':', 1)[1]}/a"
    result = triage("--clone", "--json", "out.json")
    assert result.exit_code == 3, result.output
    report = _report(tmp_path / "out.json")
    (alert,) = report["alerts"]
    assert alert["decision"] is not None  # decided, without history
    assert "credentials" in alert["error"]
    assert not [c for c in _calls(shim) if "clone" in c["argv"]]
    assert "leak" not in _artifacts(tmp_path)


def test_a_clone_url_on_another_host_is_refused_since_the_token_would_go_there(
    triage: Cli, world: GitHubWorld, tmp_path: Path, temp: Path
) -> None:
    world.repos["octo/app"].clone_url = "https://elsewhere.example/octo/app.git"
    result = triage("--clone", "--json", "out.json")
    assert result.exit_code == 3, result.output
    (alert,) = _report(tmp_path / "out.json")["alerts"]
    assert "not the host of --api-url" in alert["error"]


def test_a_failed_clone_is_an_error_on_its_alerts_and_the_run_completes_with_exit_3(
    triage: Cli, world: GitHubWorld, server: GitHubFake, tmp_path: Path, temp: Path, token: str
) -> None:
    world.repos["octo/app"].clone_url = (tmp_path / "no-such-repo.git").as_uri()
    result = triage("--clone", "--json", "out.json")
    assert result.exit_code == 3, result.output
    report = _report(tmp_path / "out.json")
    (alert,) = report["alerts"]
    assert alert["decision"] is not None
    assert alert["error"].startswith("decided without history: git could not clone")
    (history,) = report["histories"]
    assert history["history"] is None and "could not clone" in history["error"]
    assert "history of octo/app: not read (git could not clone" in result.output
    assert "removed in" not in _evidence_text(report)
    assert not any(temp.iterdir())
    everything = _artifacts(tmp_path) + result.output + captured_text(server)
    assert VALUE not in everything and _basic(token) not in everything

    # The decision was stored: a re-run reuses it and does not clone again for it.
    again = triage("--clone", "--state", "all", "--json", "again.json")
    assert again.exit_code == 0, again.output


# -- over git's smart HTTP, as from github.com -------------------------------------------------


def test_over_http_git_authenticates_with_the_token_as_a_header_it_never_sees_in_argv(
    triage: Cli,
    world: GitHubWorld,
    server: GitHubFake,
    remote: tuple[Path, str],
    shim: Path,
    token: str,
    tmp_path: Path,
    temp: Path,
) -> None:
    bare, added = remote
    repo = world.repos["octo/app"]
    repo.git_dir, repo.clone_url = bare, f"{server.base_url}/octo/app.git"
    result = triage("--clone", "--json", "out.json")
    assert result.exit_code == 0, result.output
    fetched = [r for r in server.requests if r.route.startswith("/octo/app.git/")]
    assert {r.route for r in fetched} >= {
        "/octo/app.git/info/refs",
        "/octo/app.git/git-upload-pack",
    }
    assert all(basic_token(r) == token for r in fetched)
    report = _report(tmp_path / "out.json")
    assert report["histories"][0]["history"]["commits_read"] == 2
    assert f"added in {added[:8]}" in _evidence_text(report)
    for call in _calls(shim):
        assert token not in "\0".join(call["argv"]) and _basic(token) not in "\0".join(call["argv"])
    everything = _artifacts(tmp_path) + result.output
    assert token not in everything and _basic(token) not in everything and VALUE not in everything


def test_over_http_a_token_git_refuses_is_an_error_on_the_alerts_not_a_prompt_or_a_crash(
    triage: Cli,
    world: GitHubWorld,
    server: GitHubFake,
    remote: tuple[Path, str],
    token: str,
    tmp_path: Path,
    temp: Path,
) -> None:
    repo = world.repos["octo/app"]
    repo.git_dir, repo.clone_url = remote[0], f"{server.base_url}/octo/app.git"
    world.add_token(token, contents=False)  # lists alerts, may not read code
    result = triage("--clone", "--json", "out.json")
    assert result.exit_code == 3, result.output
    (alert,) = _report(tmp_path / "out.json")["alerts"]
    assert alert["decision"] is not None
    assert "could not clone" in alert["error"] and token not in alert["error"]
    assert not any(temp.iterdir())


def test_a_clone_that_hangs_is_stopped_with_its_helpers_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir, pid_file = tmp_path / "bin", tmp_path / "helper.pid"
    bin_dir.mkdir()
    script = bin_dir / "git"
    script.write_text(  # a git whose transport helper never answers
        f"#!{sys.executable}\n"
        "import subprocess, time\n"
        "helper = subprocess.Popen(['sleep', '120'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(helper.pid))\n"
        "time.sleep(120)\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(CloneError, match="took longer than 1 s"):
        partial_clone("https://ghe.example/o/a.git", tmp_path / "a.git", None, timeout=1)
    helper = int(pid_file.read_text())
    for _ in range(100):  # the whole process group was killed: gone within seconds
        if not _alive(helper):
            break
        time.sleep(0.1)
    else:
        pytest.fail("git's helper outlived the clone's timeout")


def _alive(pid: int) -> bool:
    """Running (a killed process nobody has reaped yet is a zombie: not running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return True  # no /proc: signal 0 reached it
    return state != "Z"


def test_a_repository_is_cloned_once_per_run_however_many_batches_its_alerts_make(
    world: GitHubWorld,
    server: GitHubFake,
    remote: tuple[Path, str],
    shim: Path,
    token: str,
    tmp_path: Path,
    temp: Path,
) -> None:
    _, added = remote
    repo = world.repos["octo/app"]
    other = github_token(seed=82)
    sha = repo.add_file(added, "docs/example.md", f"token: {other}\n".encode())
    repo.add_alert(secret=other, locations=[Loc.commit("docs/example.md", added, sha, line=1)])
    request = TriageRequest(
        repos=("octo/app",),
        api_url=server.base_url,
        state_path=tmp_path / "state.db",
        runs_dir=tmp_path / "runs",
        batch=1,  # one alert per batch: two batches of one repository
        clone=True,
    )
    outcome = run_triage(request, Settings(), environ={"GITHUB_TOKEN": token, **os.environ})
    assert outcome.exit_code == 0, outcome.report.model_dump_json()
    calls = [c["argv"] for c in _calls(shim)]
    assert sum("clone" in argv for argv in calls) == 1
    assert sum("-p" in argv and "log" in argv for argv in calls) == 2  # one read per batch
    (history,) = outcome.report.histories
    assert history.repo == "octo/app" and history.error is None
    assert not any(temp.iterdir())


def test_a_left_out_path_is_taken_literally_never_as_a_glob_or_magic(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    for name in ("*.txt", "a.txt", ":(top)b.txt"):
        (tmp_path / name).write_text(f"key = {VALUE}\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "add")
    index = HistoryIndex.build(tmp_path, {VALUE: ()}, exclude=("*.txt", ":(top)b.txt"))
    assert index.stats.error is None
    assert [t.path for t in index.of(VALUE).touches] == ["a.txt"]
