"""git's smart HTTP protocol for :class:`tests.fakes.github.GitHubFake`, as github.com
serves it: ``/{owner}/{name}.git/info/refs`` and ``/git-upload-pack``, answered by the
real ``git http-backend`` (CGI) over the repository's local bare ``git_dir``.

Like GitHub, it wants HTTP Basic with the token as the password (``x-access-token:TOKEN``,
the header ``actions/checkout`` and ``thresher triage --clone`` send) and answers 401
with a ``WWW-Authenticate`` challenge otherwise.
"""

from __future__ import annotations

import base64
import binascii
import re
import subprocess
from collections.abc import Collection
from pathlib import Path

from tests.fakes.base import CapturedRequest, Reply

_NAME = r"[A-Za-z0-9._-]+"
GIT_ROUTE = re.compile(rf"/(?P<owner>{_NAME})/(?P<name>{_NAME})\.git(?P<rest>/.*)")
_SERVICES = {"/info/refs", "/git-upload-pack"}


def basic_token(request: CapturedRequest) -> str | None:
    """The password of an HTTP Basic ``Authorization`` header, if there is one."""
    scheme, _, encoded = (request.header("authorization") or "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        _, _, password = base64.b64decode(encoded.strip(), validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return password or None


def check_git(request: CapturedRequest, tokens: Collection[str]) -> Reply | None:
    """401 (with GitHub's Basic challenge) unless the request carries a known token."""
    if basic_token(request) in tokens:
        return None
    return Reply.raw(
        401,
        b"Authentication failed\n",
        headers={"www-authenticate": 'Basic realm="GitHub"'},
    )


def serve_git(request: CapturedRequest, git_dir: Path | None, rest: str) -> Reply:
    """One request of the smart HTTP protocol, answered by ``git http-backend``."""
    if git_dir is None or rest not in _SERVICES:
        return Reply.raw(404, b"Repository not found.\n")
    query = request.path.partition("?")[2]
    env = {
        "PATH": "/usr/bin:/bin",
        "GIT_PROJECT_ROOT": str(git_dir.parent),
        "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": f"/{git_dir.name}{rest}",
        "REQUEST_METHOD": request.method,
        "QUERY_STRING": query,
        "CONTENT_TYPE": request.header("content-type") or "",
        "CONTENT_LENGTH": str(len(request.body)),
        "REMOTE_ADDR": "127.0.0.1",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(git_dir.parent),
    }
    if encoding := request.header("content-encoding"):
        env["HTTP_CONTENT_ENCODING"] = encoding
    if protocol := request.header("git-protocol"):
        env["GIT_PROTOCOL"] = protocol
    done = subprocess.run(
        ["git", "http-backend"], input=request.body, env=env, capture_output=True, check=False
    )
    head, _, body = done.stdout.partition(b"\r\n\r\n")
    if not _:
        head, _, body = done.stdout.partition(b"\n\n")
    status, headers = 200, {}
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.split()[0])
        elif name:
            headers[name.strip().lower()] = value.strip()
    content_type = headers.pop("content-type", "application/octet-stream")
    return Reply.raw(status, body, content_type=content_type, headers=headers)
