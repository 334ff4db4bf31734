"""``run_scan`` tells one ``ScanObserver`` of each stage as it finishes, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.deps_project import make_project, osv_world
from tests.fakes.osv import OsvFake
from tests.tokens import github_token
from thresher.config.settings import Settings
from thresher.git.history import HistoryIndex
from thresher.scan.observer import ScanObserver
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.sources.dependencies import DependencyScan, DepsOptions
from thresher.sources.scan import ScanResult
from thresher.tribunal.decisions import Decision


class Recorder(ScanObserver):
    def __init__(self) -> None:
        self.events: list[tuple[str, int | str]] = []

    def candidates_found(self, scan: ScanResult) -> None:
        self.events.append(("candidates", len(scan.findings)))

    def dependencies_read(self, dependencies: DependencyScan) -> None:
        self.events.append(("dependencies", len(dependencies.findings)))

    def history_read(self, history: HistoryIndex) -> None:
        self.events.append(("history", len(history.by_value)))

    def decided(self, decision: Decision) -> None:
        self.events.append(("decided", decision.finding.id))


def test_a_secret_scan_reports_its_candidates_the_history_then_each_decision(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "deploy.py").write_text(f'TOKEN = "{github_token()}"\n')
    recorder = Recorder()
    request = ScanRequest(root=root, runs_dir=tmp_path / "runs", history_depth=0)
    outcome = run_scan(request, Settings(), environ={}, observer=recorder)
    found = len(outcome.scan.findings)
    assert found >= 1
    assert recorder.events[:2] == [("candidates", found), ("history", 0)]
    decided = [name for event, name in recorder.events[2:] if event == "decided"]
    assert len(recorder.events) == 2 + found
    assert sorted(decided) == sorted(d.finding.id for d in outcome.report.decisions)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_dependency_scan_reports_no_candidates_and_every_decision(
    tmp_path: Path, workers: int
) -> None:
    root = make_project(tmp_path / "proj", commit=False)
    runs = tmp_path / "runs"
    recorder = Recorder()
    with OsvFake(osv_world()) as osv:
        request = ScanRequest(
            root=root,
            runs_dir=runs,
            secrets=False,
            history_depth=0,
            deps=DepsOptions(osv_url=osv.base_url, cache_dir=runs / "cache"),
        )
        outcome = run_scan(
            request, Settings(), environ={}, observer=recorder, offline_workers=workers
        )
    assert outcome.dependencies is not None
    found = len(outcome.dependencies.findings)
    assert recorder.events[:2] == [("dependencies", found), ("history", 0)]
    assert sorted(name for _, name in recorder.events[2:]) == sorted(
        d.finding.id for d in outcome.report.decisions
    )


def test_the_default_observer_ignores_every_event(tmp_path: Path) -> None:
    request = ScanRequest(root=tmp_path, runs_dir=tmp_path / "runs", history_depth=0)
    outcome = run_scan(request, Settings(), environ={})
    assert outcome.report.summary.findings == 0
