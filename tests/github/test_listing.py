"""Listing alerts, repositories and locations through the client, against the fake
GitHub API, across pages linked by ``Link`` headers."""

from __future__ import annotations

from datetime import timedelta

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import ALL_TEXT_KINDS, EPOCH, GitHubWorld, Loc
from tests.github.conftest import ClientFactory
from tests.tokens import github_token
from thresher.findings.model import AlertState, AlertValidity, GitHubLocationType
from thresher.github.client import GitHubClient
from thresher.github.models import AlertFilters, CommitLocation, TextLocation, WikiCommitLocation


def _populate(world: GitHubWorld, repo_name: str, count: int, seed: int = 0) -> list[str]:
    repo = world.add_repo(repo_name)
    secrets = [github_token(seed=seed + i) for i in range(count)]
    for secret in secrets:
        repo.add_alert(secret=secret)
    return secrets


def test_repo_alerts_follow_link_headers_across_pages(
    world: GitHubWorld, server: GitHubFake, make_client: ClientFactory
) -> None:
    secrets = _populate(world, "octo/app", 5)
    client = make_client(per_page=2)
    alerts = list(client.repo_alerts("octo/app", AlertFilters()))
    assert sorted(a.number for a in alerts) == [1, 2, 3, 4, 5]
    assert {a.secret for a in alerts} == set(secrets)
    assert all(a.repo == "octo/app" for a in alerts)
    pages = server.requests_to(r"/secret-scanning/alerts$")
    assert len(pages) == 3
    assert pages[0].query["per_page"] == ["2"] and pages[0].query["state"] == ["open"]
    assert [p.query.get("page") for p in pages[1:]] == [["2"], ["3"]]


def test_org_alerts_span_repositories_and_name_each_repository(
    world: GitHubWorld, server: GitHubFake, make_client: ClientFactory
) -> None:
    _populate(world, "octo/app", 3)
    _populate(world, "octo/api", 2, seed=10)
    _populate(world, "other/lib", 2, seed=20)
    client = make_client(per_page=2)
    alerts = list(client.org_alerts("octo", AlertFilters()))
    assert sorted(a.key for a in alerts) == [
        "octo/api#1",
        "octo/api#2",
        "octo/app#1",
        "octo/app#2",
        "octo/app#3",
    ]
    assert len(server.requests_to(r"^/orgs/octo/secret-scanning/alerts$")) == 3


def test_filters_are_sent_to_github_and_applied(
    world: GitHubWorld, server: GitHubFake, client: GitHubClient
) -> None:
    repo = world.add_repo("octo/app")
    repo.add_alert(secret=github_token(seed=1), validity="active")
    repo.add_alert(secret=github_token(seed=2), validity="inactive")
    repo.add_alert(secret="AKIA" + "Q" * 16, secret_type="aws_access_key_id", validity="active")
    repo.add_alert(secret=github_token(seed=3), state="resolved", resolution="revoked")
    filters = AlertFilters(
        secret_types=("github_personal_access_token",), validities=(AlertValidity.ACTIVE,)
    )
    assert [a.number for a in client.repo_alerts("octo/app", filters)] == [1]
    query = server.last_request.query
    assert query["secret_type"] == ["github_personal_access_token"]
    assert query["validity"] == ["active"]
    resolved = list(client.repo_alerts("octo/app", AlertFilters(state=AlertState.RESOLVED)))
    assert [a.number for a in resolved] == [4]
    assert resolved[0].resolved_by == "octocat"
    assert len(list(client.repo_alerts("octo/app", AlertFilters(state=None)))) == 4


def test_since_lists_newest_first_and_stops_paging_early(
    world: GitHubWorld, server: GitHubFake, make_client: ClientFactory
) -> None:
    repo = world.add_repo("octo/app")
    for day in range(10):
        moment = EPOCH + timedelta(days=day)
        repo.add_alert(secret=github_token(seed=day), created_at=moment, updated_at=moment)
    client = make_client(per_page=2)
    since = EPOCH + timedelta(days=7)
    alerts = list(client.repo_alerts("octo/app", AlertFilters(since=since)))
    assert [a.number for a in alerts] == [10, 9, 8]
    pages = server.requests_to(r"/secret-scanning/alerts$")
    assert pages[0].query["sort"] == ["updated"] and pages[0].query["direction"] == ["desc"]
    assert len(pages) == 2  # page 2 held day 7 and day 6: nothing older was fetched


def test_org_repositories_are_paged_and_sorted(
    world: GitHubWorld, server: GitHubFake, make_client: ClientFactory
) -> None:
    for name in ("zeta", "alpha", "mid", "beta", "omega"):
        world.add_repo(f"octo/{name}")
    world.add_repo("elsewhere/thing")
    client = make_client(per_page=2)
    assert client.org_repositories("octo") == [
        "octo/alpha",
        "octo/beta",
        "octo/mid",
        "octo/omega",
        "octo/zeta",
    ]
    assert len(server.requests_to(r"^/orgs/octo/repos$")) == 3


def test_locations_of_every_type_are_parsed_across_pages(
    world: GitHubWorld, server: GitHubFake, make_client: ClientFactory
) -> None:
    repo = world.add_repo("octo/app")
    commit, blob = "c" * 40, "b" * 40
    locations = [
        Loc.commit("/src/settings.py", commit, blob, line=12, columns=(9, 49)),
        Loc.wiki("Home.md", "d" * 40, "e" * 40, line=3),
        *(Loc.text(kind, number=7, item_id=70 + i) for i, kind in enumerate(ALL_TEXT_KINDS)),
    ]
    alert = repo.add_alert(secret=github_token(seed=5), locations=locations)
    client = make_client(per_page=4)
    found = client.locations(client.alert("octo/app", alert.number))
    assert len(found) == 13
    assert len(server.requests_to(r"/locations$")) == 4
    first = found[0]
    assert isinstance(first, CommitLocation)
    assert (first.path, first.start_line, first.start_column, first.end_column) == (
        "src/settings.py",
        12,
        9,
        49,
    )
    assert first.html_url == f"https://github.com/octo/app/blob/{commit}/src/settings.py#L12"
    assert first.blob_sha == blob and first.commit_sha == commit
    wiki = found[1]
    assert isinstance(wiki, WikiCommitLocation)
    assert wiki.page_url == f"https://github.com/octo/app/wiki/Home/{'d' * 40}"
    texts = found[2:]
    assert all(isinstance(t, TextLocation) for t in texts)
    by_kind = {t.type: t for t in texts if isinstance(t, TextLocation)}
    assert set(by_kind) == {GitHubLocationType(kind) for kind in ALL_TEXT_KINDS}
    issue_title = by_kind[GitHubLocationType.ISSUE_TITLE]
    assert issue_title.api_url == f"{server.base_url}/repos/octo/app/issues/7"
    assert issue_title.html_url == "https://github.com/octo/app/issues/7"
    review = by_kind[GitHubLocationType.PULL_REQUEST_REVIEW]
    assert review.html_url == "https://github.com/octo/app/pull/7#pullrequestreview-79"
    discussion = by_kind[GitHubLocationType.DISCUSSION_COMMENT]
    assert discussion.api_url is None
    assert discussion.html_url == discussion.url
    assert discussion.url.startswith("https://github.com/octo/app/discussions/7#discussioncomment-")


def test_plain_pygithub_reads_the_fake(world: GitHubWorld, server: GitHubFake, token: str) -> None:
    """The fake speaks what PyGithub itself sends and parses, pagination included."""
    from github import Auth, Github

    secrets = _populate(world, "octo/app", 3)
    gh = Github(
        base_url=server.base_url,
        auth=Auth.Token(token),
        per_page=2,
        retry=None,
        seconds_between_requests=None,
    )
    try:
        repo = gh.get_repo("octo/app")
        assert repo.full_name == "octo/app"
        listed = list(repo.get_secret_scanning_alerts(state="open"))
        assert [a.number for a in listed] == [3, 2, 1]
        assert {a.secret for a in listed} == set(secrets)
        one = repo.get_secret_scanning_alert(2)
        assert one.state == "open" and one.secret_type == "github_personal_access_token"
        org_alerts = list(gh.get_organization("octo").get_secret_scanning_alerts())
        assert [a.repository.full_name for a in org_alerts] == ["octo/app"] * 3
        assert [r.full_name for r in gh.get_organization("octo").get_repos()] == ["octo/app"]
    finally:
        gh.close()
    assert len(server.requests_to(r"^/repos/octo/app/secret-scanning/alerts$")) == 2
