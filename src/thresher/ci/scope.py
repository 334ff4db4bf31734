"""What an event asks ``thresher ci`` to scan, resolved against the clone's history.

- A pull request: the lines it adds, from the merge base of its base and head, as
  ``git diff base...head`` and GitHub's "Files changed" tab show them. Not from the
  base branch's tip: a base branch that moved on would otherwise count its own new
  lines as the pull request's.
- A push: ``before..after``. A new branch (all-zero ``before``), or a forced push whose
  old tip is gone from the clone, is scanned from where it leaves the default branch:
  those are the commits the push brings, and the default branch had its own scans. If
  the default branch is not in the clone, or the push *is* the default branch, the whole
  tree is scanned instead: fail closed, never scan nothing. A deleted branch has nothing.
- ``workflow_dispatch`` and ``schedule``: the whole tree.

``actions/checkout`` fetches one commit by default; a range needs both ends and their
merge base, so a missing one is a :class:`MissingHistoryError` whose hint names
``fetch-depth: 0``, never a silently empty scan.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from thresher.ci.event import CiEvent, EventName, Push
from thresher.errors import UsageError
from thresher.git.scope import git, in_work_tree

FETCH_DEPTH_HINT = (
    "check out the full history: `uses: actions/checkout@<sha>` with `fetch-depth: 0`, "
    "so the base, the head and their merge base are all in the clone"
)


class MissingHistoryError(UsageError):
    """A commit the scan range needs is not in the clone (usually a shallow checkout)."""


class ScopeKind(StrEnum):
    RANGE = "range"  # the lines head adds over base
    TREE = "tree"  # every file of the working tree
    NOTHING = "nothing"  # e.g. a deleted branch


@dataclass(frozen=True)
class Scope:
    kind: ScopeKind
    description: str
    base: str | None = None
    head: str | None = None
    # A pull request's configuration is read here: its base commit (the base branch as
    # the event saw it), which the pull request's author cannot have written.
    config_commit: str | None = None

    @property
    def diff(self) -> str | None:
        """The ``--diff`` range for ``run_scan`` (None for a whole-tree scan)."""
        match self.kind:
            case ScopeKind.RANGE:
                return f"{self.base}..{self.head}"
            case ScopeKind.TREE | ScopeKind.NOTHING:
                return None


def resolve_scope(event: CiEvent, root: Path) -> Scope:
    match event.name:
        case EventName.PULL_REQUEST | EventName.PULL_REQUEST_TARGET:
            pr = event.pull_request
            assert pr is not None  # read_event sets it for these events
            _require_git(root)
            _require(root, pr.base_sha, "the pull request's base commit (pull_request.base.sha)")
            _require(root, pr.head_sha, "the pull request's head commit (pull_request.head.sha)")
            base = merge_base(root, pr.base_sha, pr.head_sha)
            if base is None:
                raise MissingHistoryError(
                    f"no merge base of {pr.base_sha[:12]} and {pr.head_sha[:12]} in the clone "
                    f"at {root}{_shallow_note(root)}",
                    hint=FETCH_DEPTH_HINT,
                )
            return Scope(
                ScopeKind.RANGE,
                f"the lines pull request #{pr.number} adds ({base[:12]}..{pr.head_sha[:12]}, "
                "from the merge base)",
                base,
                pr.head_sha,
                config_commit=pr.base_sha,
            )
        case EventName.PUSH:
            assert event.push is not None
            return _push_scope(event.push, root)
        case EventName.WORKFLOW_DISPATCH | EventName.SCHEDULE:
            return Scope(ScopeKind.TREE, f"the whole tree ({event.name.value})")


def _push_scope(push: Push, root: Path) -> Scope:
    if push.deleted:
        return Scope(ScopeKind.NOTHING, f"the push deleted {push.ref}: nothing to scan")
    _require_git(root)
    _require(root, push.after, "the pushed commit (after)")
    if not push.created and has_commit(root, push.before):
        return Scope(
            ScopeKind.RANGE,
            f"the lines the push adds ({push.before[:12]}..{push.after[:12]})",
            push.before,
            push.after,
        )
    if not push.created and not push.forced:
        _require(root, push.before, "the previous tip of the branch (before)")
    why = "a new branch" if push.created else "a forced push whose old tip is not in the clone"
    default = push.default_branch
    if default is None or push.ref == f"refs/heads/{default}":
        return Scope(ScopeKind.TREE, f"the whole tree ({why} of the default branch)")
    tip = _branch_tip(root, default)
    if tip is None:
        return Scope(
            ScopeKind.TREE,
            f"the whole tree ({why}; the default branch {default} is not in the clone, "
            "fetch-depth: 0 would let thresher scan only the new commits)",
        )
    base = merge_base(root, tip, push.after)
    if base is None:
        return Scope(ScopeKind.TREE, f"the whole tree ({why} sharing no history with {default})")
    if base == push.after:
        return Scope(ScopeKind.NOTHING, f"{why} with no commits beyond {default}: nothing to scan")
    return Scope(
        ScopeKind.RANGE,
        f"the lines {why} adds beyond {default} ({base[:12]}..{push.after[:12]})",
        base,
        push.after,
    )


def has_commit(root: Path, sha: str) -> bool:
    return git(root, "cat-file", "-e", f"{sha}^{{commit}}").returncode == 0


def merge_base(root: Path, left: str, right: str) -> str | None:
    proc = git(root, "merge-base", "--", left, right)
    text = proc.stdout.decode("ascii", "replace").strip()
    return text if proc.returncode == 0 and text else None


def _branch_tip(root: Path, branch: str) -> str | None:
    for ref in (f"refs/remotes/origin/{branch}", f"refs/heads/{branch}"):
        proc = git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        if proc.returncode == 0:
            return proc.stdout.decode("ascii", "replace").strip()
    return None


def _require_git(root: Path) -> None:
    if not in_work_tree(root, need_git=True):
        raise UsageError(
            f"GITHUB_WORKSPACE={root} is not a git checkout",
            hint="run actions/checkout (with fetch-depth: 0) before thresher",
        )


def _require(root: Path, sha: str, what: str) -> None:
    if not has_commit(root, sha):
        raise MissingHistoryError(
            f"{what} {sha[:12]} is not in the clone at {root}{_shallow_note(root)}",
            hint=FETCH_DEPTH_HINT,
        )


def _shallow_note(root: Path) -> str:
    proc = git(root, "rev-parse", "--is-shallow-repository")
    return " (it is a shallow clone)" if proc.stdout.strip() == b"true" else ""
