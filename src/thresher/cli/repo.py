"""Which of the scanned repository's configuration a run may read (see ``thresher.config.trust``).

The CLI decides it, not ``config``: it needs git to read the base commit, and
``config`` sits below the scanner.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from thresher.config.trust import REPO_CONFIG_NAMES, RepoConfig, RepoMode, is_pull_request


def repo_config_for(
    *,
    diff: str | None,
    cwd: Path,
    trusted: bool,
    environ: Mapping[str, str] | None = None,
) -> RepoConfig:
    """Working tree for a local run; the base commit of ``--diff`` in a pull-request job.

    A pull-request job with no ``--diff`` has no base to read, so the repository's
    configuration is not read at all (the notice says so).
    """
    env = os.environ if environ is None else environ
    if not is_pull_request(env, diff=diff):
        return RepoConfig(trusted=trusted)
    if diff is None:
        return RepoConfig(
            mode=RepoMode.NONE,
            trusted=trusted,
            reason="a pull-request job without --diff BASE..HEAD has no base commit",
        )
    base = _base_commit(cwd, diff)
    if base is None:
        return RepoConfig(
            mode=RepoMode.NONE, trusted=trusted, reason=f"cannot resolve the base of {diff}"
        )
    return RepoConfig(
        mode=RepoMode.BASE_COMMIT, commit=base, files=_files_at(cwd, base), trusted=trusted
    )


def repo_config_at(commit: str, cwd: Path, *, trusted: bool) -> RepoConfig:
    """The repository's configuration as ``commit`` has it (a pull request's base)."""
    return RepoConfig(
        mode=RepoMode.BASE_COMMIT, commit=commit, files=_files_at(cwd, commit), trusted=trusted
    )


def _base_commit(cwd: Path, spec: str) -> str | None:
    from thresher.findings.options import ScanError
    from thresher.git.scope import git

    symmetric = "..." in spec
    left, _, right = spec.partition("..." if symmetric else "..")
    left, right = left or "HEAD", (right or "HEAD").lstrip(".")
    try:
        if symmetric:
            proc = git(cwd, "merge-base", "--", left, right)
        else:
            proc = git(cwd, "rev-parse", "--verify", "--end-of-options", f"{left}^{{commit}}")
    except ScanError:
        return None
    commit = proc.stdout.decode("ascii", "replace").strip()
    return commit if proc.returncode == 0 and commit else None


def _files_at(cwd: Path, commit: str) -> dict[str, bytes]:
    """Each config file name as it is at ``commit``, for the directory ``cwd`` is in."""
    from thresher.git.scope import git

    files: dict[str, bytes] = {}
    for name in REPO_CONFIG_NAMES:
        proc = git(cwd, "show", f"{commit}:./{name}")
        if proc.returncode == 0:
            files[name] = proc.stdout
    return files


def baseline_at_base(
    baseline: Path, root: Path, *, diff: str | None, environ: Mapping[str, str] | None = None
) -> tuple[bytes | None, str | None]:
    """In a pull-request job, a baseline inside the checkout is read from the base commit.

    A baseline lists what the scan skips: a pull request that adds a secret could
    otherwise add the secret to the baseline too. Returns ``(content, notice)``;
    ``(None, None)`` when the file on disk may be used as it is, ``(None, notice)``
    when the base commit has no such file (the pull request added it: not used).
    """
    env = os.environ if environ is None else environ
    full = (Path.cwd() / baseline).resolve()
    if not is_pull_request(env, diff=diff) or diff is None or not full.is_relative_to(root):
        return None, None
    from thresher.findings.options import ScanError
    from thresher.git.scope import git

    base = _base_commit(root, diff)
    relative = full.relative_to(root).as_posix()
    if base is None:
        return None, f"pull request: cannot resolve the base of {diff}; --baseline not used"
    try:
        proc = git(root, "show", f"{base}:{relative}")
    except ScanError as exc:
        return None, f"pull request: --baseline not used ({exc})"
    if proc.returncode != 0:
        return None, (
            f"pull request: {relative} does not exist at the base commit {base[:12]}; "
            "a baseline the pull request adds is not used"
        )
    return proc.stdout, f"pull request: --baseline read from the base commit {base[:12]}"
