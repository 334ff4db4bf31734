"""``thresher scan`` offline, as a new user runs it: decisions, files, exit codes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from tests.scan.test_scan_e2e import make_demo

Cli = Callable[..., Result]


@pytest.fixture
def demo(tmp_path: Path) -> tuple[Path, list[str]]:
    return make_demo(tmp_path)


def test_offline_scan_of_the_demo(cli: Cli, tmp_path: Path, demo) -> None:  # type: ignore[no-untyped-def]
    root, secrets = demo
    result = cli(
        "--no-color",
        "scan",
        "--root",
        str(root),
        "--json",
        "out/r.json",
        "--sarif",
        "out/r.sarif",
        "--markdown",
        "out/r.md",
    )
    assert result.exit_code == 1, result.stderr
    assert "thresher decisions" in result.stderr
    assert "decided without a model call" in result.stderr
    report = json.loads((tmp_path / "out/r.json").read_text())
    by_path = {d["finding"]["locations"][0]["path"]: d for d in report["decisions"]}
    assert by_path["app/deploy_settings.py"]["classification"] == "real"
    assert by_path["app/notify.py"]["verdict"] == "TRUE_POSITIVE"
    assert by_path["tests/fixtures/test_github_client.py"]["classification"] == "test"
    assert by_path["docs/aws-setup.md"]["classification"] == "not_secret"
    assert by_path["config/settings.example.env"]["classification"] == "not_secret"
    # Every decision records its offline assessment and what the escalation policy says.
    assert all(d["assessment"] and d["escalation"] for d in report["decisions"])
    # The git commit SHA in source is no credential: the screen drops it as a commit id.
    assert "release/version.py" not in by_path
    assert "1 commit id" in result.stderr
    # What the policy would escalate, it escalates for a reason it names; hard evidence
    # and the checksum-valid tokens called real are never among it.
    would = {path for path, d in by_path.items() if d["escalation"]["would_escalate"]}
    assert not would & {"docs/aws-setup.md", "tests/fixtures/test_github_client.py"}
    for path in would:
        assert "uncertainty band" in by_path[path]["escalation"]["reason"]
    # Hard evidence settles a finding whatever the scorer says.
    assert by_path["docs/aws-setup.md"]["escalation"]["reason"] == (
        "hard evidence (documentation-value)"
    )
    assert by_path["tests/fixtures/test_github_client.py"]["escalation"]["reason"] == (
        "hard evidence (checksum-invalid)"
    )
    # No model is configured: nothing was escalated, nothing was sent.
    assert not any(d["escalated"] for d in report["decisions"])
    assert report["summary"]["decided_without_model"] == report["summary"]["findings"]
    assert report["usage"]["requests"] == 0
    for path in (tmp_path / "out").iterdir():
        for secret in secrets:
            assert secret not in path.read_text()


def test_offline_scan_does_not_call_a_commit_sha_real(cli: Cli, tmp_path: Path, demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    assert cli("-q", "scan", "--root", str(root), "--json", "r.json").exit_code == 1
    report = json.loads((tmp_path / "r.json").read_text())
    by_path = {d["finding"]["locations"][0]["path"]: d for d in report["decisions"]}
    # Not even a finding: the screen drops hex under a commit/sha key as a commit id.
    assert "release/version.py" not in by_path


def test_escalate_band_sets_what_would_be_escalated(cli: Cli, tmp_path: Path, demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    result = cli(
        "-q", "scan", "--root", str(root), "--escalate-band", "0.3,0.6", "--json", "r.json"
    )
    assert result.exit_code == 1, result.stderr
    decisions = json.loads((tmp_path / "r.json").read_text())["decisions"]
    for decision in decisions:
        escalation, p_real = decision["escalation"], decision["assessment"]["p_real"]
        if escalation["reason"].startswith("hard evidence"):
            assert not escalation["would_escalate"]
        elif "checksum-valid" not in escalation["reason"]:
            assert escalation["would_escalate"] == (0.3 < p_real < 0.6), decision["finding"]
            assert "0.3" in escalation["reason"] or "0.6" in escalation["reason"]


@pytest.mark.parametrize(
    ("fail_on", "code"), [("real", 1), ("uncertain", 1), ("any", 1), ("never", 0)]
)
def test_fail_on(cli: Cli, demo, fail_on: str, code: int) -> None:  # type: ignore[no-untyped-def]
    assert cli("-q", "scan", "--root", str(demo[0]), "--fail-on", fail_on).exit_code == code


def test_clean_tree_exits_zero(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "clean").mkdir()
    (tmp_path / "clean/app.py").write_text("print('hello')\n")
    result = cli("scan", "--root", str(tmp_path / "clean"), "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"]["findings"] == 0


def test_format_prints_to_stdout(cli: Cli, demo) -> None:  # type: ignore[no-untyped-def]
    result = cli("-q", "scan", "--root", str(demo[0]), "--format", "sarif")
    assert json.loads(result.stdout)["version"] == "2.1.0"
    assert result.stderr == ""


def test_dry_run_states_what_would_be_sent(
    cli: Cli,
    tmp_path: Path,
    demo,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "thresher.toml").write_text(
        '[agents.analysis]\nmodel = "openai:gpt-4.1"\n[agents.judge]\nmodel = "gemini:x"\n'
    )
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = cli(
        "scan",
        "--root",
        str(demo[0]),
        "--dry-run",
        "--escalate",
        "all",
        "--analyses",
        "2",
        "--verify",
        "live",
    )
    assert result.exit_code == 1, result.stderr
    # Two analyses of three requests each (skills and the finding, evidence, submission).
    analysis = re.search(
        r"dry run: analysis -> openai:gpt-4.1: would triage 8 finding\(s\) with ~48 "
        r"request\(s\) \(per escalated finding ~6 request\(s\), ~([\d,]+) input tokens\)",
        result.stderr,
    )
    assert analysis is not None, result.stderr
    assert 10_000 < int(analysis.group(1).replace(",", "")) < 150_000
    assert "dry run: challenger -> heuristic:default: would triage 0" in result.stderr
    assert "dry run: judge -> gemini:x: would triage 8 finding(s) with ~16" in result.stderr
    assert "nothing was sent" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--diff", "a..b", "--staged"], "--diff and --staged cannot be combined"),
        (["--root", "nowhere"], "--root nowhere is not a directory"),
        (["missing.txt"], "no such file or directory: missing.txt"),
        (["--analyses", "9"], "Invalid value for '--analyses'"),
        (["--escalate", "sometimes"], "Invalid value for '--escalate'"),
    ],
)
def test_bad_input_names_the_flag(cli: Cli, args: list[str], message: str) -> None:
    result = cli("scan", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_diff_range_is_a_usage_error(cli: Cli, demo) -> None:  # type: ignore[no-untyped-def]
    result = cli("scan", "--root", str(demo[0]), "--diff", "nope..HEAD")
    assert result.exit_code == 2
    assert "--diff" in result.stderr


def test_schema_report(cli: Cli) -> None:
    result = cli("schema", "report")
    schema = json.loads(result.stdout)
    assert schema["properties"]["schema_version"]
    assert "decisions" in schema["properties"]


@pytest.mark.parametrize("word", ["assistant", "tool_call"])
def test_a_value_equal_to_a_message_literal_does_not_crash_the_scan(
    cli: Cli, tmp_path: Path, word: str
) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo/app.py").write_text(f'password = "{word}"\n')
    result = cli("-q", "scan", "--root", "repo", "--format", "json")
    # Real or not is the scorer's call (an identifier-shaped value may well be neither);
    # what matters here is a decision, not a crash.
    assert result.exit_code in (0, 1), result.stderr
    assert "internal error" not in result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["findings"] == 1 and report["summary"]["errors"] == 0


def test_an_unwritable_run_directory_is_a_named_error(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / ".thresher").write_text("a file where the run directory would go")
    (tmp_path / "repo").mkdir()
    result = cli("-q", "scan", "--root", "repo")
    assert result.exit_code == 3
    assert "cannot create the run directory" in result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize("flag", ["--json", "--sarif", "--markdown"])
def test_an_output_path_that_cannot_be_written_fails_before_the_scan(
    cli: Cli, tmp_path: Path, flag: str
) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "outdir").mkdir()
    (tmp_path / "afile").write_text("")
    for target, message in (
        ("outdir", f"{flag} outdir is a directory"),
        ("afile/r.out", f"{flag} afile/r.out: afile is not a directory"),
    ):
        result = cli("scan", "--root", "repo", flag, target)
        assert result.exit_code == 2, result.stderr
        assert message in result.stderr
        assert "scanned" not in result.stderr  # refused before any work
    assert not (tmp_path / ".thresher").exists()


@pytest.mark.slow
def test_a_large_run_prints_what_needs_action_first_and_names_the_reports(
    cli: Cli, tmp_path: Path
) -> None:
    """Thousands of rows took seconds to render and scrolled the true positives away:
    the table shows them first, cuts the rest, and says where every decision is."""
    import hashlib

    from tests.tokens import github_token
    from thresher.cli.scan_cmd import TABLE_ROWS

    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "deploy.env").write_text(f"GITHUB_TOKEN={github_token(seed=3)}\n")
    fixtures = "".join(
        f'CHECKSUM_{i} = "{hashlib.sha1(str(i).encode()).hexdigest()}"\n'
        for i in range(TABLE_ROWS + 10)
    )
    (root / "tests/test_fixtures.py").write_text(fixtures)
    result = cli("--no-color", "scan", "--root", str(root), "--json", "out/r.json")
    assert result.exit_code == 1, result.stderr
    report = json.loads((tmp_path / "out/r.json").read_text())
    decisions = report["decisions"]
    assert len(decisions) > TABLE_ROWS
    table = result.stderr.partition("thresher decisions")[2]
    rows = [line for line in table.splitlines() if "_POSITIVE" in line or "INCONCLUSIVE" in line]
    assert len(rows) == TABLE_ROWS
    assert rows[0].strip("│ ").startswith("TRUE_POSITIVE")  # what needs action comes first
    hidden = len(decisions) - TABLE_ROWS
    note = " ".join(result.stderr.split())  # the console folds long lines
    assert f"{hidden} more decision(s) not shown" in note
    assert "out/r.json" in note and "report.json" in note and "-v prints all rows" in note

    everything = cli("--no-color", "-v", "scan", "--root", str(root))
    table = everything.stderr.partition("thresher decisions")[2]
    rows = [line for line in table.splitlines() if "_POSITIVE" in line or "INCONCLUSIVE" in line]
    assert len(rows) == len(decisions)
    assert "not shown" not in everything.stderr


def test_a_run_that_fails_after_its_scan_started_stops_the_scan(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The secret scan starts on the other cores before the run is set up: a run whose
    set-up then fails stops it, and leaves no worker process behind."""
    import multiprocessing

    from thresher.sources import running

    monkeypatch.setattr(running, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(running, "_MIN_BATCH_BYTES", 1)
    repo = tmp_path / "repo"
    repo.mkdir()
    for index in range(8):
        (repo / f"m{index}.py").write_text(f'password = "pw-{index}-Zq9xR4"\n' * 50)
    started: list[object] = []
    real = running.start_run

    def watched(*args: object, **kwargs: object) -> running.Running:
        run = real(*args, **kwargs)  # type: ignore[arg-type]
        started.append(run)
        return run

    monkeypatch.setattr("thresher.sources.detect_secrets.start_run", watched)
    from thresher.scan.files import RunDirError
    from thresher.scan.setup import RunSetup

    def fails(*args: object, **kwargs: object) -> RunSetup:
        raise RunDirError("cannot create the run directory: the disk is full")

    # The run is set up after its scan started (a full disk, a model spec refused).
    monkeypatch.setattr(RunSetup, "start", fails)
    result = cli("-q", "scan", "--root", "repo", "--escalate", "never")
    assert result.exit_code == 3, result.stderr
    assert "the disk is full" in result.stderr
    assert [type(run).__name__ for run in started] == ["_Shared"]  # workers had started
    assert multiprocessing.active_children() == []
