"""``run_scan`` with dependencies: the use case ``thresher deps`` and ``scan --deps`` share.

Decided in forked worker processes (as a large offline run is) or in this process, the
dependency decisions are the same, and their values never reach the redactor."""

from __future__ import annotations

from pathlib import Path

from tests.cli.deps_project import JINJA_ID, LODASH_ID, make_project, osv_world
from tests.fakes.osv import OsvFake
from thresher.config.settings import Settings
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.sources.dependencies import DepsOptions


def _run(root: Path, runs: Path, url: str, workers: int) -> list[tuple[str, str, str]]:
    request = ScanRequest(
        root=root,
        runs_dir=runs,
        secrets=False,
        history_depth=0,
        deps=DepsOptions(osv_url=url, cache_dir=runs / "cache"),
    )
    outcome = run_scan(request, Settings(), environ={}, offline_workers=workers)
    assert outcome.dependencies is not None
    assert outcome.scan.findings == ()  # no file was scanned for secrets
    return sorted(
        (d.finding.rule_id, d.classification.value, d.verdict.value)
        for d in outcome.report.decisions
    )


def test_worker_processes_decide_dependencies_as_the_serial_loop(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", commit=False)
    with OsvFake(osv_world()) as osv:
        serial = _run(root, tmp_path / "serial", osv.base_url, 0)
        forked = _run(root, tmp_path / "forked", osv.base_url, 2)
    assert serial == forked
    assert serial == sorted(
        [(LODASH_ID, "not_affected", "FALSE_POSITIVE"), (JINJA_ID, "affected", "INCONCLUSIVE")]
    )
