"""What a scan fixes before its first stage: clock, deadline, redaction rules, models, run
directory. Every later stage reads it; none changes it."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from thresher.config.settings import AgentName, Settings
from thresher.llm.model import Model
from thresher.redaction.detector import Detector
from thresher.scan.assess import is_public_word
from thresher.scan.models import close_models, may_fork, resolve_models
from thresher.scan.outcome import ScanRequest
from thresher.tribunal.fallbacks import Deadline
from thresher.tribunal.parallel import workers_for


@dataclass(frozen=True)
class RunSetup:
    """The run's fixed context, built by ``start`` before the first stage."""

    request: ScanRequest
    settings: Settings
    started_at: datetime
    clock: float  # ``time.perf_counter()`` at the start, for the report's wall time
    deadline: Deadline | None  # --timeout
    detector: Detector  # the redactor's secret shapes, custom rules included
    models: dict[AgentName, Model]  # per agent; a dry run's are all the heuristic
    specs: dict[str, str]  # per agent, the model a real run uses
    run_id: str
    run_dir: Path  # where the journal, transcripts, record and report go

    @classmethod
    def start(
        cls, request: ScanRequest, settings: Settings, environ: Mapping[str, str] | None
    ) -> RunSetup:
        started_at = datetime.now(UTC)
        clock = time.perf_counter()
        deadline = Deadline.after(request.timeout) if request.timeout is not None else None
        # Built first: a custom rule RE2 cannot run for redaction stops the run before it
        # starts.
        detector = Detector(
            [(r.id, r.pattern) for r in request.custom_rules], is_public=is_public_word
        )
        models, specs = resolve_models(settings, environ, dry_run=request.dry_run)
        run_id = started_at.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
        run_dir = (
            Path.cwd() / request.runs_dir / run_id
            if not request.runs_dir.is_absolute()
            else request.runs_dir / run_id
        )
        return cls(
            request=request,
            settings=settings,
            started_at=started_at,
            clock=clock,
            deadline=deadline,
            detector=detector,
            models=models,
            specs=specs,
            run_id=run_id,
            run_dir=run_dir,
        )

    def close_models(self) -> None:
        """Close every model's connections (a run that stops before deciding)."""
        asyncio.run(close_models(self.models))

    def workers(self, findings: int, requested: int | None) -> int:
        """Worker processes to decide ``findings`` findings in (0: this process): none
        unless no model can take part, no deadline and no live checks are asked for;
        ``requested`` sets how many (None: by size and cores)."""
        return workers_for(findings, requested) if self.may_fork() else 0

    def may_fork(self) -> bool:
        """Whether the run's findings may be decided, or assessed, in other processes:
        no model can take part, and neither a deadline nor live checks are asked for
        (``thresher.scan.models.may_fork``)."""
        return may_fork(self.models, self.request, self.deadline)
