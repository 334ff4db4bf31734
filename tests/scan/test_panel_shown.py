"""Which decisions a scan keeps whole until its report: those a report shows with
their panel (``thresher.scan.decide.PanelShown``)."""

from __future__ import annotations

from thresher.findings import Finding
from thresher.findings.results import Classification, Verdict
from thresher.reports.views import by_risk
from thresher.scan.decide import PanelShown
from thresher.tribunal.decisions import DecidedBy, Decision
from thresher.tribunal.fallbacks import undecided


def _decision(number: int, verdict: Verdict, confidence: float) -> Decision:
    finding = Finding.model_validate(
        {
            "id": f"f-{number:02d}",
            "rule_id": "Secret Keyword",
            "fingerprint": f"sha256:{number}",
            "redacted": "…(8 chars)",
            "locations": [{"path": "app/settings.py", "line": number + 1}],
        }
    )
    decision = undecided("offline", DecidedBy.HEURISTIC, finding=finding)
    return decision.model_copy(
        update={
            "verdict": verdict,
            "classification": Classification.TEST
            if verdict is Verdict.FALSE_POSITIVE
            else Classification.REAL,
            "confidence": confidence,
        }
    )


def test_every_dismissed_decision_the_summary_lists_is_kept_whole() -> None:
    """Whatever order they come in, the first ``rows`` dismissed decisions by risk are
    among those kept whole, as is every decision that needs action."""
    shown = PanelShown(rows=3)
    arriving = [
        _decision(n, Verdict.FALSE_POSITIVE, confidence)
        for n, confidence in enumerate((1.0, 2.0, 9.0, 3.0, 8.5, 0.5, 9.5, 4.0))
    ]
    real = _decision(99, Verdict.TRUE_POSITIVE, 0.1)
    kept = {d.finding.id for d in [*arriving, real] if shown(d)}
    first_rows = {d.finding.id for d in by_risk(arriving)[:3]}
    assert first_rows <= kept
    assert real.finding.id in kept
    # One ranked after the first rows seen so far is not kept whole.
    assert "f-05" not in kept and "f-07" not in kept


def test_dismissed_decisions_past_the_listed_rows_are_not_kept_whole() -> None:
    shown = PanelShown(rows=2)
    assert shown(_decision(1, Verdict.FALSE_POSITIVE, 9.0))
    assert shown(_decision(2, Verdict.FALSE_POSITIVE, 8.0))
    assert not shown(_decision(3, Verdict.FALSE_POSITIVE, 1.0))  # past the two listed
    assert shown(_decision(4, Verdict.FALSE_POSITIVE, 9.9))  # listed before the others
    assert shown(_decision(5, Verdict.INCONCLUSIVE, 0.0))  # needs action: always
