"""``--clone``: a partial clone of a repository, for the history of its alerts' values.

Without it, triage reads only the file GitHub names, at the alert's commit. With it,
each repository with alerts is cloned once per run, bare and without blobs over
1 MB (``--filter=blob:limit=1m``: the history of text, not of binaries), and the
run's one streaming history read (``thresher.history``) answers when each value was
added and whether it was removed, as it does for ``thresher scan``.

The token authenticates git the way actions/checkout does, as an ``http.extraheader``,
but set through git's environment configuration (``GIT_CONFIG_COUNT``/``KEY``/
``VALUE``), never in the URL (git would keep it in the clone's config and print it in
errors) nor in an argument (any process on the machine can read another's argv). The
clone's own config never holds it either, and it is deleted with the run's evidence.
"""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from thresher.errors import ThresherError

CLONE_TIMEOUT_S = 600.0
BLOB_LIMIT = "1m"


class CloneError(ThresherError):
    """git could not clone the repository; triage goes on without its history."""


def auth_env(token: str, environ: Mapping[str, str]) -> dict[str, str]:
    """git's environment: the token as an extra header, prompts and helpers off."""
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    env = {
        key: value
        for key, value in environ.items()
        if not key.startswith(("GIT_CONFIG_", "GIT_DIR", "GIT_WORK_TREE"))
    }
    env.update(
        {
            "GIT_CONFIG_COUNT": "2",
            "GIT_CONFIG_KEY_0": "http.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
            "GIT_CONFIG_KEY_1": "credential.helper",
            "GIT_CONFIG_VALUE_1": "",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_ASKPASS": "",
            "SSH_ASKPASS": "",
        }
    )
    return env


def partial_clone(
    url: str,
    dest: Path,
    token: str | None,
    environ: Mapping[str, str] | None = None,
    *,
    timeout: float = CLONE_TIMEOUT_S,
) -> Path:
    """Clone ``url`` into ``dest`` (bare, blobs over 1 MB left out); returns ``dest``.

    ``url`` must not carry credentials: a URL with a user or password is refused, so
    a token can never end up in the clone's config or in git's messages.
    """
    if "@" in url.split("://", 1)[-1].split("/", 1)[0]:
        raise CloneError(f"refusing to clone a URL that carries credentials ({_host(url)})")
    base = dict(environ if environ is not None else os.environ)
    env = auth_env(token, base) if token else {**base, "GIT_TERMINAL_PROMPT": "0"}
    argv = [
        "git",
        "clone",
        "--bare",
        "--quiet",
        f"--filter=blob:limit={BLOB_LIMIT}",
        "--no-tags",
        "--",
        url,
        str(dest),
    ]
    try:
        done = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise CloneError(f"cloning {_host(url)} took longer than {timeout:g} s") from None
    except OSError as exc:
        raise CloneError(f"cannot run git: {exc.strerror or exc}") from exc
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no message"
        if token:
            message = message.replace(token, "[token]")
        raise CloneError(f"git could not clone {_host(url)}: {message}")
    return dest


def _host(url: str) -> str:
    """The URL without anything after the host: enough to name it in a message."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0].rsplit('@', 1)[-1]}" if rest else url
