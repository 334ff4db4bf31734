"""Tool work overlaps across sessions and findings; the event loop never waits on a tool.

Overlap is proven with rendezvous, not timing: a git tool that waits for a partner
call only returns normally when another session's git tool is running at the same
time. Were tools still run on the event loop, the first call would hold the loop and
the partner could never start: the wait would run out and the tool would fail.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.heuristic.test_heuristic import repo_with
from tests.llm.harness import REPORT, make_finding
from tests.tokens import github_token
from thresher.agents.budget import UsageLimits
from thresher.agents.loop import AgentSession
from thresher.agents.sessions import SessionFactory
from thresher.agents.tooling import ToolOutput
from thresher.agents.toolspecs import GitLogArgs
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, Settings
from thresher.findings import Finding
from thresher.llm.errors import BudgetExceeded
from thresher.llm.messages import ModelResponse
from thresher.llm.testing import FunctionModel, RecordedRequest, ScriptedModel, tool_response
from thresher.redaction.redactor import Redactor, redact_value
from thresher.scoring.policy import Escalate
from thresher.tribunal.decisions import DecidedBy
from thresher.tribunal.tribunal import Tribunal, TribunalOptions

WAIT_S = 15.0  # generous: only a broken build ever waits this long
ROOT = Path(__file__).resolve().parents[2]


class RendezvousWorkspace(Workspace):
    """A real workspace whose first ``git_log`` per finding waits until ``parties``
    findings are inside ``git_log`` at the same time (or ``WAIT_S`` runs out)."""

    def __init__(self, root: Path, parties: int, **kwargs: Any) -> None:
        super().__init__(root, **kwargs)
        self.barrier = threading.Barrier(parties, timeout=WAIT_S)
        self.met: dict[str, bool] = {}
        self.threads: set[str] = set()
        self._lock = threading.Lock()

    def git_log(self, args: GitLogArgs) -> ToolOutput:
        if threading.current_thread() is threading.main_thread():
            return super().git_log(args)  # the offline panel, before any LLM session
        key = args.finding_id or ""
        with self._lock:
            first = key not in self.met
            self.met.setdefault(key, False)
            self.threads.add(threading.current_thread().name)
        if first:
            self.barrier.wait()  # raises BrokenBarrierError (a tool error) when alone
            self.met[key] = True
        return super().git_log(args)


class BlockingWorkspace(Workspace):
    """``git_log`` blocks until the test releases it."""

    def __init__(self, root: Path, **kwargs: Any) -> None:
        super().__init__(root, **kwargs)
        self.entered = threading.Event()
        self.release = threading.Event()

    def git_log(self, args: GitLogArgs) -> ToolOutput:
        self.entered.set()
        self.release.wait(WAIT_S)
        return super().git_log(args)


def _session(workspace: Workspace, finding: Finding, secret: str) -> AgentSession[Any]:
    factory = SessionFactory(settings=Settings(), redactor=Redactor([secret]), workspace=workspace)
    probe = factory.build(AgentName.ANALYSIS, ScriptedModel([]), finding, secret)
    skills = [("skill", {"name": s}) for s in probe.info.required_skills]
    model = ScriptedModel(
        [
            tool_response(*skills, ("git_log", {"finding_id": finding.id})),
            tool_response(("submit_report", REPORT)),
        ]
    )
    return factory.build(AgentName.ANALYSIS, model, finding, secret)


def test_two_sessions_run_their_git_tools_at_the_same_time(tmp_path: Path) -> None:
    finding, secret = make_finding()
    root = repo_with(tmp_path, "config/settings.py", secret)
    workspace = RendezvousWorkspace(root, 2, value_for=lambda _: secret)
    other = finding.model_copy(update={"id": "f-gh-2"})
    sessions = [_session(workspace, finding, secret), _session(workspace, other, secret)]

    async def both() -> list[Any]:
        return list(await asyncio.gather(*(s.run() for s in sessions)))

    outcomes = asyncio.run(both())
    assert workspace.met == {"f-gh-1": True, "f-gh-2": True}
    for outcome in outcomes:
        git = [e for e in outcome.ledger.entries if e.tool == "git_log"]
        assert git and not git[0].is_error, git
        assert secret not in git[0].result  # redaction still applies to threaded output
    assert "MainThread" not in workspace.threads
    # Finished sessions leave no tool thread behind: a scan after the run may still fork.
    assert not [t for t in threading.enumerate() if t.name.startswith("thresher-tool")]


def test_a_cancelled_session_does_not_wait_for_its_blocked_tool(tmp_path: Path) -> None:
    finding, secret = make_finding()
    root = repo_with(tmp_path, "config/settings.py", secret)
    workspace = BlockingWorkspace(root, value_for=lambda _: secret)
    session = _session(workspace, finding, secret)

    async def cancel_while_blocked() -> None:
        task = asyncio.ensure_future(session.run())
        # The loop keeps running while git_log blocks its thread: this wait can end.
        while not workspace.entered.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(asyncio.wait_for(cancel_while_blocked(), WAIT_S))
        # Cancelled while the tool was still blocked: the run did not wait for it.
        assert not workspace.release.is_set()
    finally:
        workspace.release.set()


class CountingWorkspace(Workspace):
    def __init__(self, root: Path, **kwargs: Any) -> None:
        super().__init__(root, **kwargs)
        self.calls = 0

    def git_log(self, args: GitLogArgs) -> ToolOutput:
        self.calls += 1
        return super().git_log(args)


def test_the_tool_call_budget_holds_for_threaded_tools(tmp_path: Path) -> None:
    """Checked and charged on the loop before a tool goes to its thread: the call
    over the limit never runs."""
    finding, secret = make_finding()
    root = repo_with(tmp_path, "config/settings.py", secret)
    workspace = CountingWorkspace(root, value_for=lambda _: secret)
    factory = SessionFactory(
        settings=Settings(),
        redactor=Redactor([secret]),
        workspace=workspace,
        session_limits=UsageLimits(max_tool_calls=2),
    )
    model = ScriptedModel([tool_response(*[("git_log", {"finding_id": finding.id})] * 3)])
    session = factory.build(AgentName.ANALYSIS, model, finding, secret)
    with pytest.raises(BudgetExceeded, match="tool-call"):
        asyncio.run(session.run())
    assert workspace.calls == 2


class FakeLLM(FunctionModel):
    """A function-driven model that counts as a remote LLM (offline = False)."""

    provider = "fake-llm"

    @property
    def offline(self) -> bool:
        return False


def _agent(request: RecordedRequest) -> ModelResponse:
    """Turn 1: the required skills and ``git_log`` on the finding; turn 2: submit."""
    info = request.settings.session
    assert info is not None
    if len(request.messages) == 2:
        offered = {t.name for t in request.tools}
        calls: list[tuple[str, dict[str, Any]]] = [
            ("skill", {"name": s}) for s in info.required_skills
        ]
        if "git_log" in offered:
            calls.append(("git_log", {"finding_id": info.finding_id}))
        calls.append(("get_finding", {"finding_id": info.finding_id}))
        return tool_response(*calls)
    if info.submit_tool == "submit_report":
        return tool_response(("submit_report", REPORT))
    if info.submit_tool == "submit_challenge":
        return tool_response(("submit_challenge", {"outcome": "CONFIRMED", "reasoning": "ok"}))
    judged = {
        "winner_index": 0,
        "rationale": "report 0 holds",
        "final_verdict": REPORT["verdict"],
        "final_classification": REPORT["classification"],
    }
    return tool_response(("submit_judgement", judged))


def test_findings_are_decided_side_by_side(tmp_path: Path) -> None:
    """Two findings at --concurrency 2: their LLM sessions' git tools meet in time."""
    value = github_token()
    root = repo_with(tmp_path, "app/settings.py", value)
    findings = [
        Finding.model_validate(
            {
                "id": f"f-{i}",
                "rule_id": "GitHub Token",
                "fingerprint": f"sha256:{i}",
                "redacted": redact_value(value),
                "locations": [{"path": "app/settings.py", "line": 12}],
            }
        )
        for i in (1, 2)
    ]
    workspace = RendezvousWorkspace(root, 2, value_for=lambda _: value)
    factory = SessionFactory(settings=Settings(), redactor=Redactor([value]), workspace=workspace)
    model = FakeLLM(_agent)
    tribunal = Tribunal(
        factory,
        dict.fromkeys(AgentName, model),
        TribunalOptions(escalate=Escalate.ALL, concurrency=2),
    )
    decisions = asyncio.run(tribunal.decide_all(findings, lambda _: value))
    assert [d.decided_by for d in decisions] == [DecidedBy.TRIBUNAL, DecidedBy.TRIBUNAL]
    assert all(not d.errors for d in decisions), [d.errors for d in decisions]
    assert workspace.met == {"f-1": True, "f-2": True}


@pytest.mark.slow
def test_the_tribunal_benchmark_runs_and_prints_its_figures() -> None:
    """A smoke run at tiny sizes: the figures are printed, not judged (timing is the
    benchmark's business, not the suite's)."""
    command = [sys.executable, "benchmarks/tribunal.py", "--quick", "--runs", "1"]
    done = subprocess.run(
        [*command, "--latency", "0.01"], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "efficiency" in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert [row[0] for row in rows[:2]] == ["1", "8"]
    assert all(row[5].endswith("%") for row in rows[:2])
    assert "decisions/s:" in done.stdout
