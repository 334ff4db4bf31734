"""The sticky pull-request comment, through ``GitHubClient`` against the fake GitHub API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.ci.conftest import PR_NUMBER, REPO, Tokens
from tests.fakes.github import GitHubFake, captured_text
from tests.fakes.github_world import GitHubWorld
from tests.reports.builders import Sample, decision_for, finding_for, run_report
from tests.tokens import github_token

from thresher.ci.comment import (
    MAX_COMMENT_CHARS,
    CommentAction,
    comment_body,
    find_sticky,
    post_sticky,
)
from thresher.findings.results import Classification
from thresher.github.client import GitHubClient
from thresher.github.errors import GitHubValidationError
from thresher.github.models import IssueComment
from thresher.github.retry import RetryPolicy
from thresher.reports.markdown import STICKY_MARKER

HEAD = "ab" * 20


def client_for(github: GitHubFake, token: str, *, per_page: int = 100) -> GitHubClient:
    return GitHubClient.from_environ(
        {"GITHUB_TOKEN": token},
        api_url=github.base_url,
        policy=RetryPolicy(write_interval_s=0),
        per_page=per_page,
    )


@pytest.fixture
def client(github: GitHubFake, tokens: Tokens) -> Iterator[GitHubClient]:
    with client_for(github, tokens.write) as made:
        yield made


def bodies(world: GitHubWorld) -> list[str]:
    return [c.body for c in world.repos[REPO].comments_on(PR_NUMBER)]


def test_created_once_then_updated_in_place_then_all_clear(
    client: GitHubClient, world: GitHubWorld, github: GitHubFake
) -> None:
    sample = Sample()
    created = post_sticky(client, REPO, PR_NUMBER, sample.report, head_sha=HEAD)
    assert created.action is CommentAction.CREATED and created.url is not None
    updated = post_sticky(client, REPO, PR_NUMBER, sample.report, head_sha="cd" * 20)
    assert updated.action is CommentAction.UPDATED and updated.url == created.url
    [body] = bodies(world)
    assert body.startswith(STICKY_MARKER) and "cdcdcdcdcdcd" in body
    clean = run_report([])
    cleared = post_sticky(client, REPO, PR_NUMBER, clean, head_sha="ef" * 20)
    assert cleared.action is CommentAction.UPDATED
    [body] = bodies(world)
    assert "**All clear** as of `efefefefefef`" in body
    for raw in sample.raws:
        assert raw not in captured_text(github)


def test_no_comment_is_created_when_nothing_needs_action(
    client: GitHubClient, world: GitHubWorld
) -> None:
    test_only = run_report(
        [decision_for(finding_for(github_token(seed=3)), classification=Classification.TEST)]
    )
    result = post_sticky(client, REPO, PR_NUMBER, test_only, head_sha=HEAD)
    assert result.action is CommentAction.NOT_NEEDED
    assert bodies(world) == []


def test_the_marker_is_found_on_a_later_page_and_a_bot_comment_wins(
    github: GitHubFake, world: GitHubWorld, tokens: Tokens
) -> None:
    repo = world.repos[REPO]
    for i in range(5):
        repo.add_comment(PR_NUMBER, f"review note {i}", login="alice")
    # Anyone can paste the marker; the bot's own comment is the one to update.
    repo.add_comment(PR_NUMBER, f"{STICKY_MARKER}\nquoting the bot", login="mallory")
    ours = repo.add_comment(PR_NUMBER, f"{STICKY_MARKER}\nold", login="github-actions[bot]")
    with client_for(github, tokens.write, per_page=2) as paged:
        result = post_sticky(paged, REPO, PR_NUMBER, Sample().report, head_sha=HEAD)
    assert result.action is CommentAction.UPDATED
    assert ours.body.startswith(STICKY_MARKER) and "old" not in ours.body
    assert "quoting the bot" in repo.comments_on(PR_NUMBER)[5].body
    assert len(github.requests_to(r"/issues/\d+/comments$", "GET")) == 4  # 7 items, 2 a page


def test_a_read_only_token_skips_the_comment_with_a_reason(
    github: GitHubFake, world: GitHubWorld, tokens: Tokens
) -> None:
    with client_for(github, tokens.read_only) as read_only:
        result = post_sticky(read_only, REPO, PR_NUMBER, Sample().report, head_sha=HEAD)
    assert result.action is CommentAction.SKIPPED and result.url is None
    assert result.note is not None and "pull-requests: write" in result.note
    assert "403" in result.note
    assert bodies(world) == []


def test_the_comment_stays_under_githubs_limit_with_a_note() -> None:
    many = [
        decision_for(
            finding_for(
                github_token(seed=i),
                rule_id="custom_rule_" * 20,  # every "_" is escaped: the cells grow
                locations=((f"services/{'deep_dir/' * 30}settings_{i}.py", i + 1),),
            ),
            key_finding="A_live_format_token_is_hard_coded. " * 20,
            classification=Classification.REAL if i % 2 else Classification.TEST,
        )
        for i in range(400)
    ]
    body = comment_body(run_report(many), head_sha=HEAD)
    assert len(body) <= MAX_COMMENT_CHARS
    assert body.startswith(STICKY_MARKER)
    assert "65,536-character comment limit" in body
    small = comment_body(Sample().report, head_sha=HEAD)
    assert "comment limit" not in small


def test_the_client_refuses_an_oversized_body_before_sending(
    client: GitHubClient, github: GitHubFake
) -> None:
    with pytest.raises(GitHubValidationError, match="65536"):
        client.create_issue_comment(REPO, PR_NUMBER, "x" * (MAX_COMMENT_CHARS + 1))
    assert github.requests_to(r"/comments$", "POST") == []


def test_find_sticky_wants_the_marker_at_the_start() -> None:
    quoted = IssueComment(id=1, body=f"> {STICKY_MARKER}", author="a", author_type="User")
    human = IssueComment(id=2, body=STICKY_MARKER, author="a", author_type="User")
    bot = IssueComment(id=3, body=STICKY_MARKER, author="b[bot]", author_type="Bot")
    assert find_sticky([quoted, human, bot]) == [bot, human]
