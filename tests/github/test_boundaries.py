"""What the GitHub layer promises at its edges: PyGithub is imported only when used,
no log level shows a secret, and a GHES API root (``/api/v3``) works end to end."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from tests.fakes.github import GitHubFake, captured_text
from tests.fakes.github_world import GitHubWorld, Loc
from tests.github.conftest import Sleeps
from tests.tokens import github_token
from thresher.errors import UsageError
from thresher.findings.model import AlertResolution
from thresher.github.client import GitHubClient
from thresher.github.models import AlertFilters, CommitLocation

PROBE = """
import sys
import thresher.github, thresher.github.client, thresher.github.models
import thresher.github.errors, thresher.github.retry, thresher.github.auth
import thresher.github.parse, thresher.github.session
print(",".join(sorted(m for m in ("github", "jwt", "requests", "urllib3") if m in sys.modules)))
"""


def test_importing_the_layer_does_not_import_pygithub() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == ""


def test_debug_logging_never_shows_a_secret(
    world: GitHubWorld, client: GitHubClient, caplog: pytest.LogCaptureFixture
) -> None:
    secret = github_token(seed=123)
    world.add_repo("octo/app").add_alert(secret=secret)
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="github")  # PyGithub pins its logger to INFO
    alerts = list(client.repo_alerts("octo/app", AlertFilters()))
    assert alerts[0].secret == secret
    logging.getLogger("thresher.test").debug("listed %s", alerts)
    assert "GET" in caplog.text or "listed" in caplog.text  # debug logging was on
    assert secret not in caplog.text


def test_github_enterprise_api_root(token: str, sleeps: Sleeps) -> None:
    world = GitHubWorld()
    world.add_token(token)
    repo = world.add_repo("corp/service")
    commit = "3" * 40
    sha = repo.add_file(commit, "app.env", b"API_KEY=changeme\n")
    secret = github_token(seed=9)
    for _ in range(3):
        repo.add_alert(secret=secret, locations=[Loc.commit("app.env", commit, sha)])
    with GitHubFake(world, path_prefix="/api/v3") as server:
        client = GitHubClient.from_environ(
            {"GITHUB_TOKEN": token}, api_url=server.api_base + "/", sleep=sleeps, per_page=2
        )
        alerts = list(client.org_alerts("corp", AlertFilters()))
        assert len(alerts) == 3
        (location,) = client.locations(alerts[0])
        assert isinstance(location, CommitLocation)
        assert client.file_at(alerts[0].repo, location.path, location.commit_sha).startswith(b"API")
        client.resolve(alerts[0], AlertResolution.FALSE_POSITIVE, "placeholder value")
        client.close()
        assert all(r.route.startswith("/api/v3/") for r in server.requests)
        assert secret not in captured_text(server)
        assert not server.errors


@pytest.mark.parametrize("bad", ["api.github.com", "ftp://x", "https://", "https://h/?q=1"])
def test_a_bad_api_url_names_the_flag(bad: str, token: str) -> None:
    with pytest.raises(UsageError, match="--api-url"):
        GitHubClient.from_environ({"GITHUB_TOKEN": token}, api_url=bad)
