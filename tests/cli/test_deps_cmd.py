"""``thresher deps`` end to end: lockfiles -> the loopback fake OSV (or an offline export)
-> the tribunal -> SARIF, OpenVEX, JSON and Markdown, as a user runs it. No network."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import Result

from tests.cli.deps_project import (
    JINJA_ID,
    LODASH_ID,
    SARIF_SCHEMA,
    VEX_SCHEMA,
    commit_all,
    lodash_line,
    make_project,
    osv_world,
    package_lock,
)
from tests.deps.osv.advisories import JINJA2, LODASH, write_export
from tests.fakes.osv import OsvFake

Cli = Callable[..., Result]
OUTPUTS = ("--json", "out/r.json", "--sarif", "out/r.sarif", "--markdown", "out/r.md")


@pytest.fixture
def osv() -> Iterator[OsvFake]:
    with OsvFake(osv_world()) as fake:
        yield fake


def _valid(document: Any, schema_path: Path) -> None:
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(
        schema, format_checker=jsonschema.FormatChecker()
    )
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def _read(tmp_path: Path, name: str) -> Any:
    return json.loads((tmp_path / "out" / name).read_text(encoding="utf-8"))


def test_deps_against_the_osv_api_reports_every_vulnerable_dependency(
    cli: Cli, tmp_path: Path, osv: OsvFake
) -> None:
    root = make_project(tmp_path / "proj")
    result = cli(
        "--no-color", "deps", "--root", str(root), "--osv-url", osv.base_url,
        *OUTPUTS, "--vex", "out/r.vex",
    )  # fmt: skip
    # jinja2 is imported, so still open (INCONCLUSIVE); nothing is affected: exit 0.
    assert result.exit_code == 0, result.stderr
    assert "read 2 lockfile(s), 3 dependencies: 2 vulnerable" in result.stderr
    assert osv.count(r"^/v1/querybatch$") == 1
    assert (tmp_path / ".thresher" / "osv-cache.db").is_file()

    report = _read(tmp_path, "r.json")
    by_id = {d["finding"]["rule_id"]: d for d in report["decisions"]}
    assert set(by_id) == {JINJA_ID, LODASH_ID}
    jinja, lodash = by_id[JINJA_ID], by_id[LODASH_ID]
    assert jinja["finding"]["kind"] == "dependency"
    assert jinja["finding"]["redacted"] == "jinja2@2.11.2"  # not the synthetic value key
    assert "thresher-osv" not in json.dumps(report)
    assert [(loc["path"], loc["line"]) for loc in jinja["finding"]["locations"]] == [
        ("requirements.txt", 1)
    ]
    assert (jinja["classification"], jinja["verdict"]) == ("affected", "INCONCLUSIVE")
    assert (lodash["classification"], lodash["verdict"]) == ("not_affected", "FALSE_POSITIVE")
    assert lodash["justification"] == "component_not_present"
    assert lodash["finding"]["locations"][0]["line"] == lodash_line(root)
    deps = report["dependencies"]
    assert deps["lockfiles"] == ["requirements.txt", "web/package-lock.json"]
    assert deps["dependencies"] == 3
    assert {a["id"] for a in deps["advisories"]} == {JINJA_ID, LODASH_ID}

    sarif = _read(tmp_path, "r.sarif")
    if SARIF_SCHEMA.is_file():
        _valid(sarif, SARIF_SCHEMA)
    run = sarif["runs"][0]
    # FALSE_POSITIVE is not uploaded: one result, one rule, named by its OSV id.
    [rule] = run["tool"]["driver"]["rules"]
    assert rule["id"] == JINJA_ID
    assert rule["shortDescription"]["text"] == JINJA2["summary"]
    assert rule["properties"]["security-severity"] == "5.3"  # CVSS:3.1 .../A:L
    assert "2.11.3" in rule["help"]["text"] and "2.11.3" in rule["help"]["markdown"]
    assert "CVE-2020-28493" in rule["help"]["text"]
    [sarif_result] = run["results"]
    assert sarif_result["ruleId"] == JINJA_ID and sarif_result["level"] == "warning"
    place = sarif_result["locations"][0]["physicalLocation"]
    assert place["artifactLocation"]["uri"] == "requirements.txt"
    assert place["region"]["startLine"] == 1

    vex = _read(tmp_path, "r.vex")
    _valid(vex, VEX_SCHEMA)
    assert vex["@context"] == "https://openvex.dev/ns/v0.2.0"
    statements = {s["vulnerability"]["name"]: s for s in vex["statements"]}
    assert statements[JINJA_ID]["status"] == "under_investigation"
    assert statements[JINJA_ID]["products"] == [{"@id": "pkg:pypi/jinja2@2.11.2"}]
    assert statements[JINJA_ID]["vulnerability"]["aliases"] == ["CVE-2020-28493", "PYSEC-2021-66"]
    assert statements[LODASH_ID]["status"] == "not_affected"
    assert statements[LODASH_ID]["justification"] == "component_not_present"
    assert statements[LODASH_ID]["products"] == [{"@id": "pkg:npm/lodash@4.17.20"}]

    markdown = (tmp_path / "out" / "r.md").read_text()
    assert "### Vulnerable dependencies" in markdown
    assert (
        "| Package | Version | Vulnerability | Severity | Fixed in | Verdict | Justification |"
        in (markdown)
    )
    row = next(line for line in markdown.splitlines() if line.startswith("| lodash |"))
    assert "4.17.21" in row and "component\\_not\\_present" in row and "CVE-2021-23337" in row


def test_fail_on_uncertain_fails_on_an_open_dependency(
    cli: Cli, tmp_path: Path, osv: OsvFake
) -> None:
    root = make_project(tmp_path / "proj")
    result = cli("deps", "--root", str(root), "--osv-url", osv.base_url, "--fail-on", "uncertain")
    assert result.exit_code == 1, result.stderr


def test_deps_against_an_offline_database_sends_nothing(cli: Cli, tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    exports = tmp_path / "osv"
    write_export(exports, "PyPI", [JINJA2])
    write_export(exports, "npm", [LODASH])
    result = cli(
        "deps", "--root", str(root), "--osv-offline", str(exports), "--osv-url", "http://192.0.2.1",
        *OUTPUTS, "--vex", "out/r.vex",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / ".thresher" / "osv-offline-index.db").is_file()
    report = _read(tmp_path, "r.json")
    assert report["dependencies"]["osv"] == f"offline {exports.resolve()}"
    found = {(d["finding"]["rule_id"], d["classification"]) for d in report["decisions"]}
    assert found == {(JINJA_ID, "affected"), (LODASH_ID, "not_affected")}
    _valid(_read(tmp_path, "r.vex"), VEX_SCHEMA)


def test_a_malformed_lockfile_is_reported_and_the_others_are_triaged(
    cli: Cli, tmp_path: Path, osv: OsvFake
) -> None:
    root = make_project(tmp_path / "proj", commit=False)
    (root / "broken").mkdir()
    (root / "broken" / "package-lock.json").write_text('{"lockfileVersion": 3, "packages": [}')
    result = cli("deps", "--root", str(root), "--osv-url", osv.base_url, *OUTPUTS)
    # Part of the project was not checked: never exit 0.
    assert result.exit_code == 3, result.stderr
    assert "lockfile not read: broken/package-lock.json" in result.stderr
    report = _read(tmp_path, "r.json")
    assert {d["finding"]["rule_id"] for d in report["decisions"]} == {JINJA_ID, LODASH_ID}
    [problem] = report["dependencies"]["errors"]
    assert problem["path"] == "broken/package-lock.json"
    assert [e["stage"] for e in report["errors"]] == ["lockfile"]
    sarif = _read(tmp_path, "r.sarif")
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False
    assert "broken/package-lock.json" in (tmp_path / "out" / "r.md").read_text()


def test_diff_triages_only_dependencies_the_range_adds_or_changes(
    cli: Cli, tmp_path: Path, osv: OsvFake
) -> None:
    root = make_project(tmp_path / "proj", lodash="4.17.19")
    # The range bumps lodash to a vulnerable version and re-indents requirements.txt's
    # neighbour; jinja2 2.11.2 was vulnerable before the range and is not its doing.
    (root / "web" / "package-lock.json").write_text(package_lock("4.17.20"))
    (root / "requirements.txt").write_text("jinja2==2.11.2\nrequests==2.32.3\n\n")
    commit_all(root, "bump lodash")
    result = cli(
        "deps", "--root", str(root), "--osv-url", osv.base_url, "--diff", "HEAD~1..HEAD",
        "--json", "out/r.json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    report = _read(tmp_path, "r.json")
    assert [d["finding"]["rule_id"] for d in report["decisions"]] == [LODASH_ID]
    assert report["dependencies"]["diff"] == "HEAD~1..HEAD"
    assert report["dependencies"]["dependencies"] == 1
    # The whole tree, without --diff, still has both.
    whole = cli("deps", "--root", str(root), "--osv-url", osv.base_url, "--json", "out/w.json")
    assert whole.exit_code == 0, whole.stderr
    assert len(_read(tmp_path, "w.json")["decisions"]) == 2


def test_diff_that_is_not_a_range_is_a_usage_error(cli: Cli, tmp_path: Path, osv: OsvFake) -> None:
    root = make_project(tmp_path / "proj")
    result = cli("deps", "--root", str(root), "--osv-url", osv.base_url, "--diff", "HEAD")
    assert result.exit_code == 2
    assert "--diff 'HEAD' is not a range" in result.stderr


IGNORE_LODASH = f'[[IgnoredVulns]]\nid = "{LODASH_ID}"\nreason = "build tooling only"\n'


def test_osv_scanner_ignores_are_honoured_locally(cli: Cli, tmp_path: Path, osv: OsvFake) -> None:
    root = make_project(tmp_path / "proj", commit=False)
    (root / "osv-scanner.toml").write_text(IGNORE_LODASH)
    result = cli("deps", "--root", str(root), "--osv-url", osv.base_url, "--json", "out/r.json")
    assert result.exit_code == 0, result.stderr
    report = _read(tmp_path, "r.json")
    assert [d["finding"]["rule_id"] for d in report["decisions"]] == [JINJA_ID]
    [ignored] = report["dependencies"]["ignored"]
    assert (ignored["vulnerability"], ignored["reason"]) == (LODASH_ID, "build tooling only")


def test_a_pull_request_cannot_ignore_what_it_introduces(
    cli: Cli, tmp_path: Path, osv: OsvFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    root = make_project(tmp_path / "proj", lodash="4.17.19")
    (root / "web" / "package-lock.json").write_text(package_lock("4.17.20"))
    (root / "osv-scanner.toml").write_text(IGNORE_LODASH)  # added by the pull request
    commit_all(root, "bump lodash and ignore it")
    result = cli(
        "deps", "--root", str(root), "--osv-url", osv.base_url, "--diff", "HEAD~1..HEAD",
        "--json", "out/r.json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "does not exist at the base commit" in result.stderr
    report = _read(tmp_path, "r.json")
    assert [d["finding"]["rule_id"] for d in report["decisions"]] == [LODASH_ID]
    assert report["dependencies"]["ignored"] == []


def test_an_ignore_at_the_base_is_honoured_in_a_pull_request(
    cli: Cli, tmp_path: Path, osv: OsvFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    root = make_project(tmp_path / "proj", lodash="4.17.19")
    (root / "osv-scanner.toml").write_text(IGNORE_LODASH)
    commit_all(root, "ignore lodash's advisory")
    (root / "web" / "package-lock.json").write_text(package_lock("4.17.20"))
    (root / "osv-scanner.toml").write_text("")  # the pull request cannot lift it either
    commit_all(root, "bump lodash")
    result = cli(
        "deps", "--root", str(root), "--osv-url", osv.base_url, "--diff", "HEAD~1..HEAD",
        "--json", "out/r.json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "osv-scanner.toml read from osv-scanner.toml at" in result.stderr
    report = _read(tmp_path, "r.json")
    assert report["decisions"] == []
    assert [i["vulnerability"] for i in report["dependencies"]["ignored"]] == [LODASH_ID]


def test_no_dependency_decision_writes_no_vex(cli: Cli, tmp_path: Path, osv: OsvFake) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "requirements.txt").write_text("requests==2.32.3\n")
    result = cli("deps", "--root", str(root), "--osv-url", osv.base_url, "--vex", "out/r.vex")
    assert result.exit_code == 0, result.stderr
    assert "OpenVEX needs at least one statement" in result.stderr
    assert not (tmp_path / "out" / "r.vex").exists()


def test_scan_deps_decides_secrets_and_dependencies_in_one_run(
    cli: Cli, tmp_path: Path, osv: OsvFake
) -> None:
    from tests.tokens import github_token

    root = make_project(tmp_path / "proj", commit=False)
    token = github_token(seed=41)
    (root / "deploy.py").write_text(f'GITHUB_TOKEN = "{token}"\n')
    result = cli(
        "scan", "--deps", "--root", str(root), "--osv-url", osv.base_url,
        *OUTPUTS, "--vex", "out/r.vex",
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr  # the live-looking token is real
    report = _read(tmp_path, "r.json")
    kinds = {(d["finding"]["kind"], d["finding"]["rule_id"]) for d in report["decisions"]}
    assert ("dependency", JINJA_ID) in kinds and ("dependency", LODASH_ID) in kinds
    assert any(kind == "secret" for kind, _ in kinds)
    assert token not in json.dumps(report)
    sarif = _read(tmp_path, "r.sarif")
    if SARIF_SCHEMA.is_file():
        _valid(sarif, SARIF_SCHEMA)
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert JINJA_ID in rules and any(r.startswith("thresher/") for r in rules)
    vex = _read(tmp_path, "r.vex")
    _valid(vex, VEX_SCHEMA)
    assert {s["vulnerability"]["name"] for s in vex["statements"]} == {JINJA_ID, LODASH_ID}
    markdown = (tmp_path / "out" / "r.md").read_text()
    assert "### Vulnerable dependencies" in markdown


def test_scan_without_deps_reads_no_lockfile(cli: Cli, tmp_path: Path, osv: OsvFake) -> None:
    root = make_project(tmp_path / "proj", commit=False)
    result = cli("scan", "--root", str(root), "--osv-url", osv.base_url, "--json", "out/r.json")
    assert result.exit_code == 0, result.stderr
    report = _read(tmp_path, "r.json")
    assert report["dependencies"] is None and report["decisions"] == []
    assert osv.requests == []


def test_osv_refusing_the_query_is_a_clear_error_not_a_clean_run(
    cli: Cli, tmp_path: Path, osv: OsvFake
) -> None:
    from tests.fakes.base import Reply

    root = make_project(tmp_path / "proj", commit=False)
    osv.fault(r"^/v1/querybatch$", Reply.json_(403, {"code": 7, "message": "denied"}))
    result = cli("deps", "--root", str(root), "--osv-url", osv.base_url)
    assert result.exit_code == 3
    assert "thresher: error:" in result.stderr and "querybatch" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_dry_run_sends_nothing_to_osv(cli: Cli, tmp_path: Path, osv: OsvFake) -> None:
    root = make_project(tmp_path / "proj", commit=False)
    for command in ("deps", "scan"):
        args = [command] + (["--deps"] if command == "scan" else [])
        result = cli(*args, "--root", str(root), "--osv-url", osv.base_url, "--dry-run")
        assert result.exit_code == 2
        assert "--osv-offline" in result.stderr
    assert osv.requests == []
    exports = tmp_path / "osv"
    write_export(exports, "PyPI", [JINJA2])
    write_export(exports, "npm", [LODASH])
    offline = cli("deps", "--root", str(root), "--osv-offline", str(exports), "--dry-run")
    assert offline.exit_code == 0, offline.stderr


def test_scan_deps_and_staged_cannot_be_combined(cli: Cli, tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    result = cli("scan", "--deps", "--staged", "--root", str(root))
    assert result.exit_code == 2
    assert "--deps and --staged cannot be combined" in result.stderr
