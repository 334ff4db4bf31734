"""Evidence fetched lazily: a file at the alert's commit (inline, or through the blobs
API over 1 MB), a blob by sha, and the text of issues and pull requests."""

from __future__ import annotations

import pytest

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld, Loc
from tests.tokens import github_token
from thresher.findings.model import GitHubLocationType
from thresher.github.client import GitHubClient
from thresher.github.errors import GitHubError, GitHubNotFound, GitHubValidationError
from thresher.github.models import TextLocation

COMMIT = "1" * 40


def test_file_at_a_commit_is_read_through_the_contents_api(
    world: GitHubWorld, server: GitHubFake, client: GitHubClient
) -> None:
    repo = world.add_repo("octo/app")
    content = "TOKEN = 'placeholder'\n# é\n".encode()
    repo.add_file(COMMIT, "src/app settings.py", content)
    assert client.file_at("octo/app", "src/app settings.py", COMMIT) == content
    request = server.last_request
    assert request.route == "/repos/octo/app/contents/src/app%20settings.py"
    assert request.query["ref"] == [COMMIT]


def test_a_file_over_one_megabyte_comes_through_the_blobs_api(
    world: GitHubWorld, server: GitHubFake, client: GitHubClient
) -> None:
    repo = world.add_repo("octo/app")
    big = b"x = 1\n" * 200_000  # 1.2 MB
    sha = repo.add_file(COMMIT, "data/big.py", big)
    assert client.file_at("octo/app", "data/big.py", COMMIT) == big
    assert [r.route for r in server.requests] == [
        "/repos/octo/app/contents/data/big.py",
        f"/repos/octo/app/git/blobs/{sha}",
    ]


def test_file_limits_and_bad_paths_are_refused(
    world: GitHubWorld, server: GitHubFake, client: GitHubClient
) -> None:
    repo = world.add_repo("octo/app")
    repo.add_file(COMMIT, "data/big.bin", b"\0" * 5000)
    with pytest.raises(GitHubError, match="over the 1000-byte limit"):
        client.file_at("octo/app", "data/big.bin", COMMIT, max_bytes=1000)
    with pytest.raises(GitHubError, match="is a directory"):
        client.file_at("octo/app", "data", COMMIT)
    with pytest.raises(GitHubNotFound):
        client.file_at("octo/app", "missing.py", COMMIT)
    with pytest.raises(GitHubValidationError) as caught:
        client.file_at("octo/app", "../../orgs/octo", COMMIT)
    assert caught.value.field == "path"
    assert not server.requests_to(r"orgs")


def test_blob_by_sha(world: GitHubWorld, client: GitHubClient) -> None:
    repo = world.add_repo("octo/app")
    sha = repo.add_blob(b"\x00\xffbinary")
    assert client.blob("octo/app", sha) == b"\x00\xffbinary"
    with pytest.raises(GitHubValidationError):
        client.blob("octo/app", "not-a-sha")


def test_text_of_issues_and_pull_requests_by_location(
    world: GitHubWorld, server: GitHubFake, client: GitHubClient
) -> None:
    repo = world.add_repo("octo/app")
    repo.add_issue(7, title="Issue title", body="issue body text")
    repo.add_issue(8, title="PR title", body=None, pull=True)
    repo.add_issue_comment(71, "an issue comment")
    repo.add_issue_comment(72, "a comment on the pull request")
    repo.add_review(8, 73, "review summary")
    repo.add_review_comment(74, "inline review comment")
    specs = [
        Loc.text("issue_title", number=7),
        Loc.text("issue_body", number=7),
        Loc.text("issue_comment", item_id=71),
        Loc.text("pull_request_title", number=8),
        Loc.text("pull_request_body", number=8),
        Loc.text("pull_request_comment", item_id=72),
        Loc.text("pull_request_review", number=8, item_id=73),
        Loc.text("pull_request_review_comment", item_id=74),
        Loc.text("discussion_body", number=9, item_id=75),
    ]
    alert = repo.add_alert(secret=github_token(seed=8), locations=specs)
    texts = {
        loc.type: client.text_at(loc)
        for loc in client.locations(client.alert("octo/app", alert.number))
        if isinstance(loc, TextLocation)
    }
    assert texts == {
        GitHubLocationType.ISSUE_TITLE: "Issue title",
        GitHubLocationType.ISSUE_BODY: "issue body text",
        GitHubLocationType.ISSUE_COMMENT: "an issue comment",
        GitHubLocationType.PULL_REQUEST_TITLE: "PR title",
        GitHubLocationType.PULL_REQUEST_BODY: "",
        GitHubLocationType.PULL_REQUEST_COMMENT: "a comment on the pull request",
        GitHubLocationType.PULL_REQUEST_REVIEW: "review summary",
        GitHubLocationType.PULL_REQUEST_REVIEW_COMMENT: "inline review comment",
        GitHubLocationType.DISCUSSION_BODY: None,  # no REST API for discussions
    }


def test_a_url_outside_the_api_is_never_sent_the_token(
    world: GitHubWorld, server: GitHubFake, client: GitHubClient
) -> None:
    foreign = TextLocation(
        type=GitHubLocationType.ISSUE_BODY,
        url="https://evil.example/repos/octo/app/issues/1",
        api_url="https://evil.example/repos/octo/app/issues/1",
    )
    with pytest.raises(GitHubError, match=r"refusing to send credentials to 'evil\.example'"):
        client.text_at(foreign)
    assert server.requests == []
