"""A value GitHub found in an issue or a comment is scored as text, not as a file: no
file kind, path words or test scope read from its address, and its text is asked for
by that address."""

from __future__ import annotations

from pathlib import Path

from tests.tokens import github_token
from thresher.findings import (
    AlertState,
    Finding,
    FindingLocation,
    GitHubAlertSource,
    GitHubLocationType,
    Location,
    TextLocation,
)
from thresher.scoring.context import build_contexts, primary_location
from thresher.scoring.features import features

# An address full of words the path features would read: test, docs, config, .env.
URL = "https://github.com/octo/test-docs/issues/3#issuecomment-7.env"


def _finding(*locations: FindingLocation) -> Finding:
    return Finding(
        id="s-1",
        rule_id="github_personal_access_token",
        locations=locations,
        fingerprint="sha256:" + "cd" * 32,
        redacted="ghp_…(40 chars)",
        source=GitHubAlertSource(
            repo="octo/test-docs",
            number=3,
            url="https://api.github.com/repos/octo/test-docs/secret-scanning/alerts/3",
            state=AlertState.OPEN,
        ),
    )


def test_a_text_finding_is_scored_as_text_from_the_text_at_its_address(tmp_path: Path) -> None:
    token = github_token(seed=71)
    text = TextLocation(type=GitHubLocationType.ISSUE_COMMENT, url=URL)
    finding = _finding(text)
    asked: list[tuple[str, int]] = []

    def line_of(path: str, number: int) -> str:
        asked.append((path, number))
        return f"our deploy token is {token}"

    def test_block_of(path: str, number: int) -> bool:
        raise AssertionError("text has no enclosing test function to look for")

    contexts = build_contexts(
        [finding], {"s-1": token}.get, (), line_of, root=tmp_path, test_block_of=test_block_of
    )
    ctx = contexts["s-1"]
    assert asked == [(URL, 1)]
    assert ctx.outside_tree and ctx.line == f"our deploy token is {token}"
    vector = features(ctx)
    assert vector["file_text"] == 1.0
    path_derived = [
        name
        for name in vector
        if name.startswith(("file_", "path_", "ext_", "all_locations", "some_locations"))
        and name not in {"file_text", "file_candidates_log2"}
    ]
    assert path_derived == []
    assert "depth" not in vector
    assert vector["credential_words_near"] == 1.0  # the text itself is still read


def test_a_file_location_speaks_for_a_finding_before_text_unless_it_is_test_code() -> None:
    text = TextLocation(type=GitHubLocationType.PULL_REQUEST_BODY, url=URL)
    assert primary_location(_finding(Location(path="app/settings.py", line=4), text)) == (
        "app/settings.py",
        4,
    )
    # Copies in test code and in an issue: the issue is where it is riskiest.
    assert primary_location(_finding(Location(path="tests/test_app.py", line=2), text)) == (URL, 1)


def test_a_file_finding_keeps_its_path_features() -> None:
    token = github_token(seed=72)
    finding = _finding(Location(path="config/prod.env", line=1))
    contexts = build_contexts([finding], {"s-1": token}.get, (), lambda p, n: f"TOKEN={token}")
    vector = features(contexts["s-1"])
    assert not contexts["s-1"].outside_tree
    assert "file_text" not in vector
    assert vector["ext_env"] == 1.0
