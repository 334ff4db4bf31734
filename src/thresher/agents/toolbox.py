"""The tools one agent session may call, bound to its workspace, finding and skills.

Only tools the agent file allows are offered; each call's arguments are
validated against the tool's pydantic model first, and every failure comes
back as a ``ToolError`` for the loop to hand to the model.

Tools that touch the disk, run git or reach the network (``OFF_LOOP``) run on the
session's own worker thread, so ``--concurrency`` sessions overlap their tool work
and not only their provider requests; the in-memory tools (skills, the finding)
take microseconds and run on the event loop. ``validate_secret`` is async: live
validators run in the registry's own bounded pool.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from pydantic import BaseModel, ValidationError

from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.toolspecs import (
    FindingArgs,
    GitLogArgs,
    GitShowArgs,
    GrepArgs,
    ListDirArgs,
    NoArgs,
    ReadFileArgs,
    ToolName,
    text_problem,
    tool_spec,
)
from thresher.errors import SkillToolError
from thresher.findings import Finding
from thresher.findings.profile import profile_value
from thresher.llm.messages import ToolDefinition
from thresher.scoring.model import Assessment
from thresher.scoring.policy import OfflineCall
from thresher.skills.tools import MAX_NAMES, SkillSession
from thresher.validators import ValidatorRegistry

# A handler returns its output, or (``validate_secret``) an awaitable of it.
Handler = Callable[[dict[str, Any]], ToolOutput | Awaitable[ToolOutput]]

# Blocking tools: files, directory walks, regex over a tree, git subprocesses.
OFF_LOOP: frozenset[ToolName] = frozenset(
    {
        ToolName.READ_FILE,
        ToolName.LIST_DIR,
        ToolName.GREP,
        ToolName.GIT_LOG,
        ToolName.GIT_SHOW,
        ToolName.FIND_IMPORTS,
    }
)


def _arguments(model: type[BaseModel], arguments: dict[str, Any]) -> Any:
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
            for e in exc.errors()
        )
        raise ToolError(f"invalid arguments: {problems}") from None


def bind(model: type[BaseModel], function: Callable[[Any], ToolOutput]) -> Handler:
    """Validate raw arguments into ``model`` before calling ``function``."""

    def handler(arguments: dict[str, Any]) -> ToolOutput:
        return function(_arguments(model, arguments))

    return handler


def bind_async(model: type[BaseModel], function: Callable[[Any], Awaitable[ToolOutput]]) -> Handler:
    """``bind`` for a coroutine tool: arguments are checked before anything is awaited."""

    def handler(arguments: dict[str, Any]) -> Awaitable[ToolOutput]:
        return function(_arguments(model, arguments))

    return handler


class Toolbox:
    def __init__(
        self,
        allowed: Sequence[ToolName],
        handlers: Mapping[ToolName, Handler],
        skills: SkillSession,
    ) -> None:
        self.allowed = tuple(allowed)
        self.handlers = dict(handlers)
        self.skills = skills
        # Created on the first blocking call. One thread: a session calls its tools
        # one after another, and N concurrent sessions get N threads, however few
        # cores the default executor is sized for.
        self._worker: ThreadPoolExecutor | None = None
        self._running: Future[ToolOutput] | None = None

    def definitions(self) -> list[ToolDefinition]:
        specs = [tool_spec(name, self.skills.skills) for name in self.allowed]
        return [
            ToolDefinition(name=s.name.value, description=s.description, parameters=s.parameters)
            for s in specs
        ]

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutput:
        """Run one tool; blocking ones on this session's worker thread.

        Cancelled (the run deadline, a sibling session that exhausted the run budget),
        the await ends at once; a blocking tool already started finishes on its thread
        (git has its own timeout) and its output is dropped.
        """
        try:
            tool = ToolName(name)
        except ValueError:
            tool = None
        if tool is None or tool not in self.allowed:
            offered = ", ".join(t.value for t in self.allowed)
            raise ToolError(f"unknown tool '{name}'; available tools: {offered}")
        handler = self.handlers.get(tool)
        if handler is None:
            raise ToolError(f"tool '{name}' is not available in this run")
        try:
            if tool in OFF_LOOP:
                if self._worker is None:
                    self._worker = ThreadPoolExecutor(1, thread_name_prefix="thresher-tool")
                # The thread's own future: cancelling the await cancels a tool not
                # started yet, and ``close`` can tell one that is still running.
                self._running = self._worker.submit(_sync, handler, arguments)
                output = await asyncio.wrap_future(self._running)
            else:
                result = handler(arguments)
                output = result if isinstance(result, ToolOutput) else await result
        except SkillToolError as exc:
            raise ToolError(str(exc)) from None
        return output

    def close(self) -> None:
        """End the worker thread. An idle one is joined (it exits at once), so a scan
        started after the run may still fork; a tool still running after a cancellation
        is not waited for."""
        if self._worker is not None:
            idle = self._running is None or self._running.done()
            self._worker.shutdown(wait=idle, cancel_futures=True)
            self._worker = self._running = None


def _sync(handler: Handler, arguments: dict[str, Any]) -> ToolOutput:
    result = handler(arguments)
    if not isinstance(result, ToolOutput):
        raise TypeError("a blocking tool's handler must return its output, not an awaitable")
    return result


def skill_handlers(session: SkillSession) -> dict[ToolName, Handler]:
    def load(arguments: dict[str, Any]) -> ToolOutput:
        names = _skill_names(arguments)
        if len(names) == 1:
            return ToolOutput(session.activate(names[0]), {"skill": names[0]})
        return ToolOutput(session.activate_all(names), {"skills": names})

    def read(arguments: dict[str, Any]) -> ToolOutput:
        skill, path = arguments.get("skill"), arguments.get("path")
        if not isinstance(skill, str) or not isinstance(path, str):
            raise ToolError("invalid arguments: skill and path are required strings")
        _plain("skill", skill)
        _plain("path", path)
        return ToolOutput(session.read_file(skill, path), {"skill": skill, "path": path})

    return {ToolName.SKILL: load, ToolName.READ_SKILL_FILE: read}


def _skill_names(arguments: dict[str, Any]) -> list[str]:
    """``names`` (a list) or ``name`` (one), each a plain string; not both, not neither."""
    names, name = arguments.get("names"), arguments.get("name")
    if names is not None and name is not None:
        raise ToolError("invalid arguments: pass either names (a list) or name, not both")
    if names is None:
        if not isinstance(name, str):
            raise ToolError("invalid arguments: names: a list of skill names is required")
        names = [name]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ToolError("invalid arguments: names: a non-empty list of skill names is required")
    if len(names) > MAX_NAMES:
        raise ToolError(f"invalid arguments: names: at most {MAX_NAMES} skills per call")
    for item in names:
        _plain("names", item)
    return list(names)


def _plain(field: str, value: str) -> None:
    """The check ``bind`` models apply, for the skill tools' hand-read arguments."""
    problem = text_problem(value)
    if problem is not None:
        raise ToolError(f"invalid arguments: {field}: {problem}")


def finding_data(
    finding: Finding,
    value: str | None,
    line: str | None,
    *,
    offline: tuple[Assessment | None, OfflineCall | None] = (None, None),
    fields: frozenset[str] | None = None,
) -> dict[str, Any]:
    """What ``get_finding`` returns, as data (the offline panel reads only this, and of
    it only ``fields``: None is all of it)."""
    assessment, call = offline
    data = finding.model_dump(mode="json", include=set(fields) if fields is not None else None)
    data["secret_type"] = finding.effective_secret_type
    if value is not None:
        data["value"] = profile_value(value, line)
    if assessment is not None:
        data["assessment"] = assessment.model_dump(mode="json")
    if call is not None:
        data["offline_call"] = call.model_dump(mode="json")
    return data


def finding_handlers(
    finding: Finding,
    value: str | None,
    validators: ValidatorRegistry,
    line: str | None = None,
    *,
    offline: tuple[Assessment | None, OfflineCall | None] = (None, None),
) -> dict[ToolName, Handler]:
    """``get_finding`` describes the value (``profile_value``) without revealing it, and
    hands over the offline assessment: the calibrated scorer's probabilities, the
    features that moved them and the offline call, as evidence to confirm or refute."""

    def own(args: FindingArgs) -> None:
        if args.finding_id != finding.id:
            raise ToolError(
                f"unknown finding id '{args.finding_id}'; this session is about '{finding.id}'"
            )

    def get_finding(args: FindingArgs) -> ToolOutput:
        own(args)
        data = finding_data(finding, value, line, offline=offline)
        return ToolOutput(compact_json(data), data)

    def list_validators(_: NoArgs) -> ToolOutput:
        rows = [
            {
                "name": v.name,
                "description": v.description,
                "secret_types": sorted(t.value for t in v.secret_types) or ["any"],
                "applies": v.applies(finding),
            }
            for v in validators.validators
        ]
        return ToolOutput(compact_json(rows), {"validators": rows})

    async def validate(args: FindingArgs) -> ToolOutput:
        own(args)
        if value is None:
            raise ToolError("the value of this finding is not available to validate")
        checked = await validators.validate_async(value, finding)
        results = [r.model_dump(mode="json") for r in checked]
        return ToolOutput(compact_json(results), {"results": results})

    return {
        ToolName.GET_FINDING: bind(FindingArgs, get_finding),
        ToolName.LIST_SECRET_VALIDATORS: bind(NoArgs, list_validators),
        ToolName.VALIDATE_SECRET: bind_async(FindingArgs, validate),
    }


def workspace_handlers(workspace: Any) -> dict[ToolName, Handler]:
    """Handlers for a ``thresher.agents.workspace.Workspace``."""
    return {
        ToolName.READ_FILE: bind(ReadFileArgs, workspace.read_file),
        ToolName.LIST_DIR: bind(ListDirArgs, workspace.list_dir),
        ToolName.GREP: bind(GrepArgs, workspace.grep),
        ToolName.GIT_LOG: bind(GitLogArgs, workspace.git_log),
        ToolName.GIT_SHOW: bind(GitShowArgs, workspace.git_show),
    }


def compact_json(value: Any) -> str:
    """A tool result as JSON without indentation: every result is resent on each later
    request of the session, and the analysis ledger, where each result is a JSON string
    that escapes every newline, on each of the challenger's."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
