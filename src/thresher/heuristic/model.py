"""``heuristic:default``: an offline model that plays analysis, challenger and judge
through the very same loop, skills and tools as an LLM.

It reads only what the conversation holds (tool results' structured data and the
session info), so it is deterministic: the same finding and workspace give the
same calls and the same result. Turn 1 loads the required skills and the
finding; turn 2 gathers evidence (file context, history, validators); turn 3
submits from the deterministic rules. It is the default when no provider is
configured, the free first pass, and the baseline an LLM must beat.

Because it is deterministic, the tribunal's first pass does not replay it through
three sessions: ``thresher.tribunal.offline`` makes the same calls directly and
hands the evidence to the same submission functions below. The model still plays
any agent a configuration puts on ``heuristic:default`` in the LLM tribunal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from thresher.heuristic.dependency_rules import (
    dependency_challenge,
    dependency_report,
    gather_dependency_evidence,
)
from thresher.heuristic.secret_rules import Evidence, conclude

__all__ = [
    "HeuristicModel",
    "dependency_challenge",
    "dependency_report",
    "gather_dependency_evidence",
    "gather_evidence",
    "heuristic_challenge",
    "heuristic_judgement",
    "heuristic_report",
]
from thresher.findings.results import (
    ChallengeOutcome,
    Classification,
    label_for,
    verdict_for,
)
from thresher.llm.errors import ModelConfigError
from thresher.llm.messages import (
    AssistantMessage,
    Message,
    ModelResponse,
    ModelSettings,
    SessionInfo,
    StopReason,
    ToolCallPart,
    ToolDefinition,
    ToolResultPart,
    ToolResultsMessage,
    Usage,
)
from thresher.llm.model import Model

_CONSERVATIVE = {"TRUE_POSITIVE": 0, "INCONCLUSIVE": 1, "FALSE_POSITIVE": 2}


class HeuristicModel(Model):
    provider = "heuristic"

    def __init__(self, model_name: str = "default") -> None:
        if model_name != "default":
            raise ModelConfigError(
                f"unknown heuristic model '{model_name}'", hint="use heuristic:default"
            )
        self.model_name = model_name

    @property
    def offline(self) -> bool:
        return True

    async def request(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        if settings.session is None:
            raise ModelConfigError("the heuristic model runs only inside a thresher session")
        state = _State(messages, {t.name for t in tools}, settings.session)
        calls = state.next_calls()
        if calls:
            return _respond(calls, state.turn)
        return _respond([state.submission()], state.turn)


def _respond(calls: list[tuple[str, dict[str, Any]]], turn: int) -> ModelResponse:
    parts = tuple(
        ToolCallPart(id=f"heuristic_{turn}_{index}", name=name, arguments=args)
        for index, (name, args) in enumerate(calls)
    )
    return ModelResponse(
        parts=parts,
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(),  # offline: no provider request, no tokens
        model="heuristic:default",
    )


class _State:
    """What has been asked and answered so far in this conversation."""

    def __init__(self, messages: Sequence[Message], offered: set[str], info: SessionInfo) -> None:
        self.offered = offered
        self.info = info
        calls: dict[str, ToolCallPart] = {}
        self.results: list[tuple[ToolCallPart, ToolResultPart]] = []
        self.turn = 1
        for message in messages:
            if isinstance(message, AssistantMessage):
                self.turn += 1
                calls.update({c.id: c for c in message.tool_calls})
            elif isinstance(message, ToolResultsMessage):
                self.results += [
                    (calls[r.call_id], r) for r in message.results if r.call_id in calls
                ]

    def ok(self, tool: str) -> list[tuple[ToolCallPart, ToolResultPart]]:
        return [(c, r) for c, r in self.results if c.name == tool and not r.is_error]

    def asked(self, tool: str) -> bool:
        return any(c.name == tool for c, _ in self.results)

    def next_calls(self) -> list[tuple[str, dict[str, Any]]]:
        calls: list[tuple[str, dict[str, Any]]] = []
        loaded = {str(c.arguments.get("name")) for c, _ in self.ok("skill")}
        wanted = list(self.info.required_skills)
        for _, result in self.results:
            wanted += [s for s in result.data.get("skipped_required", []) if s not in wanted]
        if "skill" in self.offered:
            tried = {str(c.arguments.get("name")) for c, _ in self.results if c.name == "skill"}
            calls += [("skill", {"name": s}) for s in wanted if s not in loaded | tried]
        finding_id = self.info.finding_id
        if "get_finding" in self.offered and not self.asked("get_finding"):
            return [*calls, ("get_finding", {"finding_id": finding_id})]
        if self.info.agent == "judge":
            return calls
        if self.info.kind == "dependency":
            return calls + self._dependency_calls()
        location = self._location()
        # A wiki page's path names a page of the wiki, not a file of the workspace.
        readable = location is not None and location.get("kind", "file") != "wiki"
        if location and readable and "read_file" in self.offered and not self.asked("read_file"):
            line = int(location.get("line", 1))
            calls.append(
                (
                    "read_file",
                    {
                        "path": location["path"],
                        "start_line": max(1, line - 10),
                        "end_line": line + 10,
                    },
                )
            )
        if "git_log" in self.offered and not self.asked("git_log"):
            calls.append(("git_log", {"finding_id": finding_id, "max_count": 10}))
        if "validate_secret" in self.offered and not self.asked("validate_secret"):
            calls.append(("validate_secret", {"finding_id": finding_id}))
        return calls

    def _dependency_calls(self) -> list[tuple[str, dict[str, Any]]]:
        """The advisory (by the finding's rule id) and the imports of its package."""
        calls: list[tuple[str, dict[str, Any]]] = []
        found = next((r.data for _, r in self.ok("get_finding")), {})
        source = found.get("source") or {}
        rule = found.get("rule_id")
        if rule and "get_vulnerability" in self.offered and not self.asked("get_vulnerability"):
            calls.append(("get_vulnerability", {"id": str(rule)}))
        package = source.get("package")
        if package and "find_imports" in self.offered and not self.asked("find_imports"):
            calls.append(("find_imports", {"package": str(package)}))
        return calls

    def _location(self) -> dict[str, Any] | None:
        for _, result in self.ok("get_finding"):
            locations = result.data.get("locations") or []
            if locations:
                first: dict[str, Any] = locations[0]
                return first
        return None

    def evidence(self) -> Evidence:
        return gather_evidence(
            (c.name, r.ledger_id, r.data) for c, r in self.results if not r.is_error
        )

    def submission(self) -> tuple[str, dict[str, Any]]:
        if self.info.kind == "dependency":
            return self._dependency_submission()
        match self.info.agent:
            case "analysis":
                return self.info.submit_tool, heuristic_report(self.evidence())
            case "challenger":
                report = self.info.context.get("report") or {}
                reproduced = bool(self.ok("validate_secret"))
                return self.info.submit_tool, heuristic_challenge(
                    self.evidence(), report, reproduced=reproduced
                )
            case "judge":
                entries = list(self.info.context.get("reports") or [])
                return self.info.submit_tool, heuristic_judgement(entries)
            case other:
                raise ModelConfigError(f"the heuristic model cannot play '{other}'")

    def _dependency_submission(self) -> tuple[str, dict[str, Any]]:
        evidence = gather_dependency_evidence(
            (c.name, r.ledger_id, r.data) for c, r in self.results if not r.is_error
        )
        match self.info.agent:
            case "analysis":
                return self.info.submit_tool, dependency_report(evidence)
            case "challenger":
                report = self.info.context.get("report") or {}
                return self.info.submit_tool, dependency_challenge(evidence, report)
            case "judge":
                entries = list(self.info.context.get("reports") or [])
                return self.info.submit_tool, heuristic_judgement(entries, safe="affected")
            case other:
                raise ModelConfigError(f"the heuristic model cannot play '{other}'")


def gather_evidence(results: Iterable[tuple[str, str | None, dict[str, Any]]]) -> Evidence:
    """The rules' evidence from a session's successful tool results, in call order:
    (tool name, ledger id, structured data as the session saw it, i.e. redacted)."""
    evidence = Evidence()
    done = list(results)
    found = [(lid, data) for tool, lid, data in done if tool == "get_finding"]
    location = next(
        (dict(data["locations"][0]) for _, data in found if data.get("locations")), None
    )
    for ledger_id, data in found:
        evidence.path, evidence.path_id = (location or {}).get("path"), ledger_id
        evidence.paths = tuple(str(loc.get("path")) for loc in data.get("locations") or [])
        profile = data.get("value")
        evidence.profile = profile if isinstance(profile, dict) else {}
        assessment = data.get("assessment")
        evidence.assessment = assessment if isinstance(assessment, dict) else {}
        call = data.get("offline_call")
        evidence.offline_call = call if isinstance(call, dict) else {}
    for tool, ledger_id, data in done:
        if tool == "read_file":
            evidence.context_id = ledger_id
        elif tool == "validate_secret":
            evidence.validations = list(data.get("results", []))
            evidence.validation_id = ledger_id
        elif tool == "git_log":
            evidence.history = list(data.get("commits", []))
            evidence.history_id = ledger_id
    return evidence


# The three submissions, as functions of the evidence alone: the sessions above and the
# tribunal's offline path (``thresher.tribunal.offline``) share them, so both give the
# same report for the same evidence.


def heuristic_report(evidence: Evidence) -> dict[str, Any]:
    """The analysis report the rules draw from ``evidence``."""
    conclusion = conclude(evidence)
    score = conclusion.factors.mean()
    remediation = (
        [
            "Revoke or rotate the credential at its provider now.",
            "Remove it from the code and load it from a secret manager.",
            "Purge it from git history if the repository is shared.",
        ]
        if conclusion.classification is Classification.REAL
        else [
            "No rotation needed; allowlist the line for the scanner "
            "(for detect-secrets: `# pragma: allowlist secret`)."
        ]
    )
    return {
        "classification": conclusion.classification.value,
        "verdict": verdict_for(conclusion.classification).value,
        "confidence_factors": conclusion.factors.model_dump(),
        "confidence_score": score,
        "confidence_label": label_for(score).value,
        "risk_level": conclusion.risk.value,
        "key_finding": conclusion.key_finding,
        "evidence": [e.model_dump(mode="json") for e in conclusion.evidence],
        "remediation": remediation,
    }


def heuristic_challenge(
    evidence: Evidence, report: dict[str, Any], *, reproduced: bool
) -> dict[str, Any]:
    """The challenge of ``report`` by the rules on the challenger's own ``evidence``;
    ``reproduced``: the challenger's validator call succeeded."""
    mine = conclude(evidence)
    theirs = report.get("classification")
    agree = theirs == mine.classification.value
    cited = [e.ledger_ids for e in mine.evidence]
    return {
        "outcome": (ChallengeOutcome.CONFIRMED if agree else ChallengeOutcome.REFUTED).value,
        "reasoning": (
            f"Reproduced the evidence: it supports '{theirs}'."
            if agree
            else f"Reproduced evidence points to '{mine.classification.value}', "
            f"not '{theirs}': {mine.key_finding}"
        ),
        "evidence_gaps": [],
        "verification_reproduced": reproduced,
        "verification_result": "; ".join(
            f"{v.get('validator')}: {v.get('status')}" for v in evidence.validations
        )
        or "no validator applied",
        "contradicting_evidence": []
        if agree
        else [{"claim": mine.key_finding, "ledger_ids": list(cited[0]) if cited else []}],
    }


def heuristic_judgement(entries: list[dict[str, Any]], *, safe: str = "real") -> dict[str, Any]:
    """The judgement over the panel's entries (as the judge session receives them);
    ``safe``: the classification of an undecided finding of this kind."""

    def eligible(entry: dict[str, Any]) -> bool:
        challenge = entry.get("challenge") or {}
        return bool(entry.get("checks_passed", True)) and challenge.get("outcome") != "REFUTED"

    scores = []
    for index, entry in enumerate(entries):
        report = entry.get("report") or {}
        base = float(report.get("confidence_score", 0))
        score = round(base if eligible(entry) else min(base, 4.0), 1)
        scores.append(
            {
                "index": index,
                "score": score,
                "rationale": "eligible: checks passed and not refuted"
                if eligible(entry)
                else "not eligible: failed checks or refuted",
            }
        )
    candidates = [i for i, e in enumerate(entries) if eligible(e)]
    if not candidates:
        first = (entries[0].get("report") or {}) if entries else {}
        return {
            "winner_index": -1,
            "scores": scores,
            "rationale": "No report passed its checks unrefuted.",
            "final_verdict": "INCONCLUSIVE",
            "final_classification": first.get("classification", safe),
        }
    winner = min(
        candidates,
        key=lambda i: (
            -float(entries[i]["report"].get("confidence_score", 0)),
            _CONSERVATIVE.get(str(entries[i]["report"].get("verdict")), 1),
            i,
        ),
    )
    report = entries[winner]["report"]
    return {
        "winner_index": winner,
        "scores": scores,
        "rationale": f"Report {winner} has the highest confidence among reports that "
        "passed their checks and survived their challenge.",
        "final_verdict": report["verdict"],
        "final_classification": report["classification"],
    }
