"""Deciding alerts: the scan's scorer and tribunal, over the evidence GitHub gives.

One ``AlertDecider`` lives for a triage run. It owns what must be shared by every
batch: the models (their HTTP clients and circuit breakers), the run's usage meter,
the redactor that learns every alert's value as it arrives, the evidence tree and the
decision journal. Each batch holds the alerts of one repository, so the workspace the
agents read is that repository's evidence and paths stay the repository's own.

A (value, context) pair is decided once: first from the state store (an earlier run,
or this run before a kill), else by the tribunal, and the decision is stored the
moment it is made, before anything is applied.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self, TextIO

from thresher.agents.budget import UsageLimits, UsageMeter
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config.settings import Settings
from thresher.findings import Finding, Location
from thresher.findings.vault import SecretVault
from thresher.git.history import HistoryIndex, HistoryMode, HistoryStats
from thresher.redaction.detector import Detector
from thresher.redaction.redactor import Redactor
from thresher.scan.assess import assess, is_public_word
from thresher.scan.files import open_journal
from thresher.scan.models import close_models, resolve_models
from thresher.scoring.model import Scorer, shipped_scorer
from thresher.scoring.policy import Escalate
from thresher.sources.scan import ScanResult, ScanStats
from thresher.triage.evidence import EvidenceTree
from thresher.triage.state import StateStore
from thresher.tribunal.decisions import Decision
from thresher.tribunal.journal import redacted_json
from thresher.tribunal.tribunal import Tribunal, TribunalOptions
from thresher.validators import ValidatorRegistry

ContextKey = tuple[str, str]  # (fingerprint, context hash)
HistoryReader = Callable[[Mapping[str, Sequence[str]]], HistoryIndex]  # values -> history


@dataclass(frozen=True)
class DeciderOptions:
    escalate: Escalate = Escalate.UNCERTAIN
    concurrency: int = 4


@dataclass(frozen=True)
class Candidate:
    """One alert, ready to decide: its finding, raw value and (value, context) key."""

    key: ContextKey
    finding: Finding
    value: str
    line: str  # the line holding the value, as fetched (holds the value: memory only)


class AlertDecider:
    def __init__(
        self,
        settings: Settings,
        options: DeciderOptions,
        run_dir: Path,
        environ: Mapping[str, str] | None = None,
        *,
        scorer: Scorer | None = None,
    ) -> None:
        self.settings = settings
        self.options = options
        self.run_dir = run_dir
        self.redactor = Redactor(detector=Detector([], is_public=is_public_word))
        self.evidence = EvidenceTree()
        self.scorer = scorer or shipped_scorer()
        self.models, self.specs = resolve_models(settings, environ, dry_run=False)
        self.meter = UsageMeter(UsageLimits(), "run")
        self._journal: TextIO | None = None
        self._loop = asyncio.new_event_loop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self._loop.run_until_complete(close_models(self.models))
        finally:
            self._loop.close()
            self.evidence.close()
            if self._journal is not None:
                self._journal.close()

    def remember(self, value: str) -> None:
        """An alert's value: redacted from everything from now on."""
        if not is_public_word(value):
            self.redactor.add(value)

    def redact(self, decision: Decision) -> Decision:
        return self.redactor.model(decision)

    def decide(
        self,
        root: Path,
        candidates: list[Candidate],
        store: StateStore,
        run_id: str,
        history: HistoryReader | None = None,
    ) -> dict[ContextKey, Decision]:
        """Every key's decision: stored ones reused, the others decided and stored.

        ``history`` (``--clone``): asked once, for the values to decide, for their git
        history, which the agents' ``git_log`` then answers from; without it they have
        none (the evidence is the files at the alerts' commits, not a repository)."""
        decided: dict[ContextKey, Decision] = {}
        fresh: dict[ContextKey, Candidate] = {}
        for candidate in candidates:
            if candidate.key in decided or candidate.key in fresh:
                continue
            stored = store.decision_for(*candidate.key)
            if stored is not None:
                decided[candidate.key] = stored
            else:
                fresh[candidate.key] = candidate
        if not fresh:
            return decided
        journal = self._open()
        vault = SecretVault()
        for candidate in fresh.values():
            vault.put(candidate.finding.id, candidate.value)
        keys = {c.finding.id: c.key for c in fresh.values()}
        findings = tuple(c.finding for c in fresh.values())
        result = ScanResult(
            findings=findings,
            vault=vault,
            stats=ScanStats(files_scanned=0, files_skipped=0, raw_candidates=0, seconds=0.0),
            line_text={
                (c.finding.locations[0].path, c.finding.locations[0].line): c.line
                for c in fresh.values()
                if c.line
            },
        )
        index = HistoryIndex(HistoryStats(HistoryMode.OFF, 0))
        if history is not None:
            paths: dict[str, dict[str, None]] = {}
            for c in fresh.values():
                paths.setdefault(c.value, {}).update(dict.fromkeys(_paths(c.finding)))
            index = history({value: tuple(found) for value, found in paths.items()})
        factory = SessionFactory(
            settings=self.settings,
            redactor=self.redactor,
            run_meter=self.meter,
            finding_limits=UsageLimits(
                max_total_tokens=self.settings.budget.max_tokens_per_finding
            ),
            validators=ValidatorRegistry.default(live=False),
            workspace=Workspace(
                root, value_for=vault.get, redact=self.redactor.text, history=index
            ),
            transcripts_dir=self.run_dir / "transcripts",
        )
        tribunal = Tribunal(
            factory,
            self.models,
            TribunalOptions(escalate=self.options.escalate, concurrency=self.options.concurrency),
            assessments=assess(result, root, self.scorer),
            scorer=self.scorer,
            offline_record=self.run_dir / "offline.jsonl",
        )

        def on_decided(decision: Decision) -> None:
            redacted = self.redact(decision)
            key = keys[decision.finding.id]
            # The store first: a kill between the two writes then loses a journal line,
            # never a decision (which a re-run would otherwise make a second time).
            store.save_decision(key[0], key[1], redacted, run_id)
            journal.write(redacted_json(self.redactor, redacted) + "\n")
            journal.flush()
            decided[key] = redacted

        self._loop.run_until_complete(tribunal.decide_all(findings, vault.get, on_decided))
        return decided

    def _open(self) -> TextIO:
        if self._journal is None:
            self._journal = open_journal(self.run_dir, relative_to=None)
        return self._journal


def _paths(finding: Finding) -> list[str]:
    """The repository paths of a finding's locations (text locations have none)."""
    return [where.path for where in finding.locations if isinstance(where, Location)]
