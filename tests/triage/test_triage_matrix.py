"""``thresher triage`` as a GitHub Actions matrix and as a GitHub App, through the CLI and
PyGithub against the loopback fake: ``--shard K/N`` runs split an organisation into
disjoint parts that together cover it, ``thresher report merge`` makes one report of them,
and ``--app-id/--app-key`` authenticates with a key generated at test time."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld
from tests.triage.orgworld import OrgPlan, populate
from thresher.triage.shard import shard_of

Cli = Callable[..., Result]
TOKEN = "ghs_" + "M" * 36
APP_ID = 5150
INSTALLATION = 91


@pytest.fixture
def world() -> GitHubWorld:
    world = GitHubWorld()
    world.add_token(TOKEN)
    return world


@pytest.fixture
def plan(world: GitHubWorld) -> OrgPlan:
    return populate(world, repos=6, per_repo=4)


@pytest.fixture
def server(world: GitHubWorld, plan: OrgPlan) -> Iterator[GitHubFake]:
    with GitHubFake(world) as fake:
        yield fake
    assert not fake.errors, fake.errors


def _alerts(path: Path) -> list[str]:
    return [f"{a['repo']}#{a['number']}" for a in json.loads(path.read_text())["alerts"]]


def _files(tmp_path: Path) -> str:
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file()
    )


@pytest.mark.slow
def test_shards_split_the_organisation_and_merge_into_one_report(
    cli: Cli,
    server: GitHubFake,
    plan: OrgPlan,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    owners = {repo: shard_of(repo, 2) for repo in plan.repos}
    assert set(owners.values()) == {1, 2}, "the fixture must give both shards a repository"
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    for k in (1, 2):
        result = cli(
            "triage",
            "--org",
            plan.org,
            "--api-url",
            server.base_url,
            "--shard",
            f"{k}/2",
            "--state-db",
            f"shard-{k}.db",  # each runner of a matrix has its own state
            "--json",
            f"shard-{k}.json",
        )
        assert result.exit_code == 0, result.output
    one, two = _alerts(tmp_path / "shard-1.json"), _alerts(tmp_path / "shard-2.json")
    assert not set(one) & set(two)
    assert Counter(one + two) == Counter(plan.alerts)
    for k, alerts in ((1, one), (2, two)):
        assert {owners[a.partition("#")[0]] for a in alerts} == {k}
        assert json.loads((tmp_path / f"shard-{k}.json").read_text())["shard"] == f"{k}/2"

    merged = cli(
        "report",
        "merge",
        "shard-1.json",
        "shard-2.json",
        "--json",
        "merged.json",
        "--markdown",
        "merged.md",
    )
    assert merged.exit_code == 0, merged.output
    report = json.loads((tmp_path / "merged.json").read_text())
    assert Counter(_alerts(tmp_path / "merged.json")) == Counter(plan.alerts)
    assert report["shards"] == ["1/2", "2/2"]
    assert report["summary"]["alerts"] == len(plan.alerts)
    assert report["dry_run"] is True and report["stopped"] is None

    markdown = (tmp_path / "merged.md").read_text()
    assert markdown.startswith("## thresher triage (dry run: nothing was changed)\n")
    assert "shards 1/2, 2/2" in markdown
    assert "Incomplete" not in markdown and "Stopped early" not in markdown
    assert f"| Alerts | {len(plan.alerts)} |" in markdown
    resolvable = [a for a in report["alerts"] if a["action"]["kind"] == "resolve"]
    assert resolvable, "the vendored fixtures at least are resolvable"
    assert f"### Would be resolved with --apply ({len(resolvable)})" in markdown
    for alert in resolvable:  # each one linked once, to its alert page
        link = f"]({alert['html_url']})"
        assert markdown.count(link) == 1
    for line in markdown.splitlines():  # every table row is well-formed
        if line.startswith("|"):
            assert line.endswith("|"), line
    rows = [line for line in markdown.splitlines() if re.match(r"^\| \[", line)]
    assert len(rows) == len(resolvable)
    assert all(line.count(" | ") == 5 for line in rows)
    for value in plan.values:
        assert value not in _files(tmp_path)

    # A shard missing from the merge is said, not hidden.
    partial = cli("report", "merge", "shard-1.json", "--markdown", "partial.md")
    assert partial.exit_code == 0, partial.output
    assert "no report for shard(s) 2/2" in (tmp_path / "partial.md").read_text()


def _app_key(tmp_path: Path, world: GitHubWorld, owner: str) -> Path:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = tmp_path / "app.pem"
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    world.add_app(APP_ID, public, {owner: INSTALLATION})
    return path


@pytest.mark.slow
def test_a_github_app_triages_an_organisation_through_the_cli(
    cli: Cli,
    server: GitHubFake,
    world: GitHubWorld,
    plan: OrgPlan,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    key = _app_key(tmp_path, world, plan.org)
    result = cli(
        "triage",
        "--org",
        plan.org,
        "--api-url",
        server.base_url,
        "--app-id",
        str(APP_ID),
        "--app-key",
        str(key),
        "--json",
        "out.json",
    )
    assert result.exit_code == 0, result.output
    assert Counter(_alerts(tmp_path / "out.json")) == Counter(plan.alerts)
    routes = [(r.method, server.path(r)) for r in server.requests]
    assert routes[:2] == [
        ("GET", f"/orgs/{plan.org}/installation"),
        ("POST", f"/app/installations/{INSTALLATION}/access_tokens"),
    ]
    issued = [t for t, login in world.tokens.items() if login == f"app-{APP_ID}[bot]"]
    assert len(issued) == 1
    for request in server.requests[2:]:  # every API call with the installation token
        assert request.header("authorization") == f"token {issued[0]}"
    key_text = key.read_text()
    body = key_text.splitlines()[1]  # a line of the private key itself
    leaked = _files(tmp_path).replace(key_text, "") + result.output
    assert issued[0] not in leaked and body not in leaked
    for value in plan.values:
        assert value not in leaked


def test_an_app_without_an_installation_on_the_org_exits_2(
    cli: Cli,
    server: GitHubFake,
    world: GitHubWorld,
    plan: OrgPlan,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    key = _app_key(tmp_path, world, "someone-else")
    result = cli(
        "triage",
        "--org",
        plan.org,
        "--api-url",
        server.base_url,
        "--app-id",
        str(APP_ID),
        "--app-key",
        str(key),
    )
    assert result.exit_code == 2, result.output
    assert "install" in result.output.lower()
    assert "Traceback" not in result.output
