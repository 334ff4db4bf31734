"""The scan use case as a pipeline of six stages, each with typed input and output:

====================  ==========================  ====================================
stage                 function                    hands on
====================  ==========================  ====================================
1-3 candidates,       ``gather.gather``           ``Gathered``: the secret scan, the
dependencies, history                             dependency scan, the history index
4 assessment          ``assess.assessment``       ``Assessed``: the offline scorer's
                                                  assessments, or the workers' share
5 decisions           ``decide.decide``           ``Triaged``: every decision, journaled
6 report              ``report.report``           ``ScanOutcome``: report, exit code
====================  ==========================  ====================================

The CLI builds a frozen ``ScanRequest`` and calls ``run_scan`` once; everything it
needs to print or write comes back in a ``ScanOutcome``, and what it shows while the
run goes on it learns from one ``ScanObserver``. Before the first stage the run fixes
its ``RunSetup`` (clock, deadline, redaction rules, models, run directory); a run that
stops before the tribunal starts closes the models it built.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from thresher.config.settings import Settings
from thresher.memory import collector_spared, release_freed
from thresher.scan.assess import assessment
from thresher.scan.decide import decide
from thresher.scan.files import open_journal
from thresher.scan.gather import gather
from thresher.scan.observer import ScanObserver
from thresher.scan.outcome import ScanOutcome, ScanRequest
from thresher.scan.report import report
from thresher.scan.setup import RunSetup
from thresher.scoring.beside import AssessedBeside
from thresher.scoring.model import Scorer
from thresher.sources.scan import StartedScan


def run_scan(
    request: ScanRequest,
    settings: Settings,
    *,
    environ: Mapping[str, str] | None = None,
    observer: ScanObserver | None = None,
    scorer: Scorer | None = None,
    offline_workers: int | None = None,
    started: StartedScan | None = None,
    beside: AssessedBeside | None = None,
) -> ScanOutcome:
    """Scan, decide every finding, and build the run report (see the module docstring).

    ``observer`` is told of each stage's result as it comes (none: nobody is).
    ``scorer`` replaces the shipped offline scorer (``thresher eval --folds`` passes one
    trained without the repositories it scores). A run no model can take part in
    decides its findings in worker processes (``thresher.tribunal.parallel``);
    ``offline_workers`` sets how many (0: in this process; None: by size and cores).
    ``started`` is the request's secret scan, already under way (``thresher scan`` starts
    it before it loads the rest of the run); the run finishes it, or stops it if it ends
    first. ``beside`` is a process forked to make the scorer's assessments while this
    one decides (``thresher.scoring.beside``): asked when no model can take part in
    the run, else ended unused; the run ends it either way.
    """
    observer = observer if observer is not None else ScanObserver()
    setup = RunSetup.start(request, settings, environ)
    with collector_spared() as spare:
        try:
            spare()  # the modules, their compiled rules and the run's set-up
            gathered = gather(request, observer, started)
            release_freed()  # the files detection read: its high-water mark is not kept
            spare()  # kept to the end: the findings, their values and lines
            assessed = assessment(
                gathered,
                request.root,
                scorer,
                workers=setup.workers(len(gathered.findings), offline_workers),
                # Its assessments are read as the tribunal reaches them: only where no
                # model's session waits on the event loop meanwhile.
                beside=beside if scorer is None and setup.may_fork() else None,
            )
            if beside is not None and assessed.beside is None:
                beside.close()  # not asked (a model may take part, or few findings)
            release_freed()  # the scorer's pass over every file (``scoring.references``)
            spare()  # and the assessments
            journal = open_journal(
                setup.run_dir, relative_to=None if request.runs_dir.is_absolute() else Path.cwd()
            )
        except BaseException:
            setup.close_models()  # the triage that would close them never starts
            if beside is not None:
                beside.close()
            raise
        try:
            triaged = decide(setup, gathered, assessed, journal, observer)
        finally:
            assessed.close()  # every assessment read, or the run failed: it is ended
        release_freed()
        return report(setup, gathered, triaged)
