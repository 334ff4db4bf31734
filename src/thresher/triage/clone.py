"""``--clone``: a partial clone of a repository, for the history of its alerts' values.

Without it, triage reads only the file GitHub names, at the alert's commit. With it,
each repository with alerts to decide is cloned once per run, bare and without blobs
over 1 MB (``--filter=blob:limit=1m``: the history of text, not of binaries), and one
streaming history read (``thresher.git.history``) answers when each value was added and
whether it was removed, as it does for ``thresher scan``. ``git log -p`` stops at the
first blob a partial clone does not hold, so the paths of the left-out blobs are
listed first (``git rev-list --missing=print``, then ``git log --raw``) and the
history read leaves those paths out: a value in a file over 1 MB has no history.

The token authenticates git the way actions/checkout does, as an ``http.extraheader``,
but set through git's environment configuration (``GIT_CONFIG_COUNT``/``KEY``/
``VALUE``), scoped to the clone URL's own origin, never in the URL (git would keep it
in the clone's config and print it in errors) nor in an argument (any process on the
machine can read another's argv). The clone's own config never holds it, redirects
are not followed (the header would go with them), only the URL's own protocol is
allowed, and the clone is deleted with the run's evidence.
"""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from thresher.errors import ThresherError
from thresher.git.history import (
    DEFAULT_HISTORY_DEPTH,
    GIT_ARGV,
    HistoryIndex,
    HistoryMode,
    HistoryStats,
    git_env,
)
from thresher.git.stream import GitStream
from thresher.github.errors import GitHubError, GitHubRateLimited
from thresher.triage.gather import Gathered
from thresher.triage.report import RepoHistory
from thresher.tribunal.decisions import HistorySummary

CLONE_TIMEOUT_S = 600.0
LIST_TIMEOUT_S = 300.0
BLOB_LIMIT = "1m"
SCHEMES = frozenset({"https", "http", "file"})
MAX_OMITTED_PATHS = 5_000  # each one is an argument of the history read
# Inherited settings a user may need to reach their GitHub (a private CA); every other
# GIT_* variable could redirect or trace git, and is dropped.
_KEPT_GIT_VARS = frozenset({"GIT_SSL_CAINFO", "GIT_SSL_CAPATH"})


class CloneError(ThresherError):
    """git could not clone the repository; triage goes on without its history."""


def check_clone_url(url: str) -> str:
    """``url`` when git may clone it: an https, http or file URL with no credentials."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or any(c in url for c in "\x00\r\n"):
        raise CloneError(f"refusing to clone {_host(url)}: not an https, http or file URL")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise CloneError(f"refusing to clone a URL that carries credentials ({_host(url)})")
    if parts.scheme != "file" and not parts.hostname:
        raise CloneError(f"refusing to clone {_host(url)}: the URL names no host")
    return url


def auth_env(url: str, token: str | None, environ: Mapping[str, str]) -> dict[str, str]:
    """git's environment for cloning ``url``: the token as an extra header for the URL's
    origin only, prompts and credential helpers off, only the URL's protocol allowed."""
    parts = urlsplit(url)
    env = {
        key: value
        for key, value in environ.items()
        if not key.startswith("GIT_") or key in _KEPT_GIT_VARS
    }
    config = [("credential.helper", ""), ("http.followRedirects", "false")]
    if token and parts.scheme in {"https", "http"}:
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        origin = f"{parts.scheme}://{parts.netloc}/"
        config.append((f"http.{origin}.extraheader", f"AUTHORIZATION: basic {basic}"))
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for number, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{number}"] = key
        env[f"GIT_CONFIG_VALUE_{number}"] = value
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_ALLOW_PROTOCOL": parts.scheme,
            "GIT_ASKPASS": "",
            "SSH_ASKPASS": "",
            "LC_ALL": "C",
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
    check_clone_url(url)
    env = auth_env(url, token, os.environ if environ is None else environ)
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
        done = _run(argv, env, timeout)
    except subprocess.TimeoutExpired:
        raise CloneError(f"cloning {_host(url)} took longer than {timeout:g} s") from None
    except OSError as exc:
        raise CloneError(f"cannot run git: {exc.strerror or exc}") from None
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        message = _scrub(lines[-1] if lines else f"exit status {done.returncode}", token)
        raise CloneError(
            f"git could not clone {_host(url)}: {message}",
            hint="the token needs `contents: read` on the repository for --clone",
        )
    return dest


def _run(
    argv: list[str], env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """``argv`` in its own process group, all of it killed at ``timeout``: git clone
    runs helpers (``git-remote-https``, ``index-pack``) that must not outlive it."""
    with subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def omitted_paths(
    clone: Path, *, depth: int = DEFAULT_HISTORY_DEPTH, timeout: float = LIST_TIMEOUT_S
) -> tuple[str, ...]:
    """The paths, in the newest ``depth`` commits, of blobs the partial clone left out.

    Nothing is fetched: lazy fetching is off (``git_env``) and ``--missing=print``
    only names what is missing. Both listings are streamed, never held whole."""
    missing: set[bytes] = set()
    at_start = True
    for chunk in _stream(clone, timeout, "rev-list", "--objects", "--all", "--missing=print"):
        if at_start and chunk[:1] == b"?":
            missing.add(chunk[1:].strip())
        at_start = chunk.endswith(b"\n")
    if not missing:
        return ()
    paths: dict[str, None] = {}
    fields: list[bytes] = []
    rest = b""
    log = ("log", "--all", "--raw", "--no-abbrev", "--no-renames", "-z", "--format=")
    for chunk in _stream(clone, timeout, *log, f"--max-count={max(depth, 1) + 1}"):
        *done, rest = (rest + chunk).split(b"\x00")
        fields.extend(done)
        # ":100644 100644 <old> <new> M" then the path (-z: each NUL-terminated).
        while len(fields) >= 2:
            header, name = fields[0], fields[1]
            if not header.strip().startswith(b":"):
                del fields[0]  # the empty line between commits
                continue
            del fields[:2]
            if set(header.split(b" ")[2:4]) & missing:
                paths[name.decode("utf-8", "surrogateescape")] = None
    if len(paths) > MAX_OMITTED_PATHS:
        raise CloneError(
            f"{len(paths)} paths hold files over 1 MB in the history read: too many to "
            f"leave out of it (at most {MAX_OMITTED_PATHS})"
        )
    return tuple(paths)


def _stream(clone: Path, timeout: float, *args: str) -> Iterator[bytes]:
    stream = GitStream([*GIT_ARGV, *args], cwd=clone, env=git_env(clone), timeout=timeout)
    try:
        yield from stream.lines()
    except OSError as exc:
        raise CloneError(f"cannot run git: {exc.strerror or exc}") from None
    if stream.timed_out:
        raise CloneError(f"git {args[0]} took longer than {timeout:g} s in the clone")
    if stream.code:
        first = stream.message.splitlines()[0] if stream.message else f"exit {stream.code}"
        raise CloneError(f"git {args[0]} failed in the clone: {first}")


def _scrub(message: str, token: str | None) -> str:
    if not token:
        return message
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return message.replace(basic, "[token]").replace(token, "[token]")


def _host(url: str) -> str:
    """The URL without credentials and without anything after the host: enough to name
    it in a message."""
    scheme, _, rest = url.partition("://")
    if not rest:
        return "a URL without a scheme"
    return f"{scheme}://{rest.split('/', 1)[0].rsplit('@', 1)[-1]}"


def joined_errors(*errors: str | None) -> str | None:
    """Several errors of one alert in one line (None when there is none)."""
    kept = [e for e in errors if e]
    return "; ".join(kept) or None


class Clones:
    """The run's clones: one per repository, made the first time its alerts need a
    history, under ``parent`` (the run's private evidence directory, deleted with it).
    A repository that cannot be cloned is not tried again in the run."""

    def __init__(
        self,
        parent: Path,
        *,
        url_of: Callable[[str], str],
        token: Callable[[], str | None],
        environ: Mapping[str, str],
        depth: int = DEFAULT_HISTORY_DEPTH,
        timeout: float = CLONE_TIMEOUT_S,
    ) -> None:
        self.parent, self.depth, self.timeout = parent, depth, timeout
        self._url_of, self._token, self._environ = url_of, token, environ
        self._made: dict[str, tuple[Path, tuple[str, ...]] | CloneError] = {}
        self.summaries: dict[str, RepoHistory] = {}  # what the report says per repository

    def for_batch(self, repo: str) -> BatchHistory:
        return BatchHistory(self, repo)

    def history(self, repo: str, values: Mapping[str, Sequence[str]]) -> HistoryIndex:
        """``values``' history in ``repo``'s clone (made now if need be), or CloneError."""
        made = self._made.get(repo)
        if made is None:
            try:
                made = self._clone(repo)
            except CloneError as exc:
                made = exc
            self._made[repo] = made
        if isinstance(made, CloneError):
            self.summaries[repo] = RepoHistory(repo=repo, error=str(made))
            raise made
        clone, omitted = made
        index = HistoryIndex.build(clone, values, depth=self.depth, exclude=omitted)
        self.summaries[repo] = RepoHistory(
            repo=repo,
            history=HistorySummary.of(index.stats),
            omitted_paths=len(omitted),
            error=index.stats.error,
        )
        return index

    def _clone(self, repo: str) -> tuple[Path, tuple[str, ...]]:
        try:
            url, token = self._url_of(repo), self._token()
        except GitHubRateLimited:
            raise
        except GitHubError as exc:
            raise CloneError(f"no clone URL for {repo}: {exc}") from None
        owner, _, name = repo.partition("/")
        dest = self.parent / owner / f"{name}.git"
        dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial_clone(url, dest, token, self._environ, timeout=self.timeout)
        return dest, omitted_paths(dest, depth=self.depth)


class BatchHistory:
    """What one batch of a repository's alerts asks of the clones (``AlertDecider.decide``
    calls it with the values it must decide), and the error it met, for those alerts."""

    def __init__(self, clones: Clones, repo: str) -> None:
        self._clones, self.repo = clones, repo
        self.error: str | None = None
        self.values: frozenset[str] = frozenset()

    def __call__(self, values: Mapping[str, Sequence[str]]) -> HistoryIndex:
        self.values = frozenset(values)
        try:
            index = self._clones.history(self.repo, values)
        except CloneError as exc:
            self.error = f"decided without history: {exc}"
            return HistoryIndex(HistoryStats(HistoryMode.OFF, 0, error=str(exc)))
        if index.stats.error:
            self.error = f"decided without history: {index.stats.error}"
        return index

    def mark(self, item: Gathered) -> Gathered:
        """``item`` with the error it met, if it was decided here without its history
        (an alert whose decision was stored earlier did not need it)."""
        if self.error is None or item.candidate is None or item.candidate.value not in self.values:
            return item
        return replace(item, error=joined_errors(item.error, self.error))
