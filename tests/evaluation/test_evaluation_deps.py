"""``thresher eval`` on a dependency corpus: the tiny one in tests/data, and the real one
under benchmarks/ (which must keep matching what the pipeline reports)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from thresher.config.settings import Settings
from thresher.deps.osv import OfflineDatabase, PackageVersion, parse_record
from thresher.deps.versions import affected
from thresher.evaluation.depcorpus import DepsCorpusError, load_deps_corpus, osv_export
from thresher.evaluation.deps import DepsEvalOptions, DepsEvalResult, evaluate_deps
from thresher.scoring.policy import Escalate

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests/data/deps_tiny"
BENCHMARK = REPO / "benchmarks/deps_corpus"


def run(corpus: Path, tmp_path: Path, escalate: Escalate = Escalate.UNCERTAIN) -> DepsEvalResult:
    options = DepsEvalOptions(escalate=escalate, runs_dir=tmp_path / "runs")
    return evaluate_deps(corpus, Settings(), options)


def copy_tiny(tmp_path: Path) -> Path:
    target = tmp_path / "corpus"
    shutil.copytree(TINY, target)
    return target


def write_labels(corpus: Path, labels: list[dict[str, Any]] | str) -> None:
    text = labels if isinstance(labels, str) else json.dumps({"labels": labels})
    (corpus / "labels.json").write_text(text)


def tiny_labels() -> list[dict[str, Any]]:
    labels: list[dict[str, Any]] = json.loads((TINY / "labels.json").read_text())["labels"]
    return labels


# -- the arithmetic, on the tiny corpus ---------------------------------------------------


def test_tiny_corpus_counts_escalation_and_oracle(tmp_path: Path) -> None:
    result = run(TINY, tmp_path)
    # called: affected, escalated (right); imported: affected, escalated (wrong, the oracle
    # fixes it); server: never imported -> not_affected, not escalated (wrong, stays wrong);
    # fixed: outside the range, never reported (right); devonly: component_not_present.
    assert (result.projects, result.labelled, result.findings) == (5, 5, 4)
    assert result.label_counts == {"affected": 2, "not_affected": 3}
    assert (result.escalated_findings, result.escalation_rate) == (2, 0.5)
    t, o, b = result.thresher, result.oracle, result.baseline
    assert (t.true_positives, t.false_positives, t.false_negatives) == (1, 1, 1)
    assert (t.precision, t.recall, t.f1) == (0.5, 0.5, 0.5)
    assert (o.true_positives, o.false_positives, o.false_negatives) == (1, 0, 1)
    assert (o.precision, o.recall, o.f1) == (1.0, 0.5, 0.6667)
    # The scanner alone calls the four reported findings affected.
    assert (b.true_positives, b.false_positives, b.false_negatives) == (2, 2, 0)
    assert (result.accuracy, result.oracle_accuracy) == (0.6, 0.8)
    assert result.confusion == {
        "affected": {"affected": 1, "not_affected": 1},
        "not_affected": {"affected": 1, "not_affected": 2},
    }
    assert result.justification_agreement == 1.0
    assert result.decided_without_model == 1.0 and result.requests == 0
    assert result.unlabelled == [] and result.missing == []


def test_tiny_corpus_rows_say_who_decided_and_why(tmp_path: Path) -> None:
    rows = {r.project: r for r in run(TINY, tmp_path).rows}
    assert rows["fixed"].reported is False and rows["fixed"].decided_by == "osv-matching"
    assert rows["devonly"].justification == "component_not_present"
    assert rows["devonly"].decided_by == "heuristic" and not rows["devonly"].would_escalate
    assert rows["server"].justification == "vulnerable_code_not_in_execute_path"
    assert rows["server"].oracle == "not_affected"  # not escalated: the oracle cannot help
    assert rows["imported"].would_escalate and rows["imported"].oracle == "not_affected"
    per_project = {p.project: p for p in run(TINY, tmp_path).by_project}
    assert per_project["called"].escalation_rate == 1.0
    assert per_project["fixed"].findings == 0 and per_project["fixed"].correct == 1


def test_escalate_never_has_no_escalation_and_no_oracle_gain(tmp_path: Path) -> None:
    result = run(TINY, tmp_path, Escalate.NEVER)
    assert result.escalation_rate == 0.0
    assert result.oracle == result.thresher


def test_escalate_all_lets_the_oracle_decide_every_reported_finding(tmp_path: Path) -> None:
    result = run(TINY, tmp_path, Escalate.ALL)
    assert result.escalation_rate == 1.0
    assert result.oracle_accuracy == 1.0


def test_unlabelled_findings_and_unreported_labels_are_listed(tmp_path: Path) -> None:
    corpus = copy_tiny(tmp_path)
    labels = [x for x in tiny_labels() if x["project"] != "called"]
    # A label that expects a finding the pipeline never reports (a typo'd version, say).
    [fixed] = [x for x in labels if x["project"] == "fixed"]
    fixed.update(label="affected", justification=None, case="called")
    write_labels(corpus, labels)
    result = run(corpus, tmp_path)
    assert result.unlabelled == ["called: PyPI tinylib 1.0 TEST-2024-0001"]
    assert result.missing == ["fixed: PyPI tinylib 2.1 TEST-2024-0001"]


# -- bad corpora: the file and the field are named ----------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"label": "affectd"}, "labels.json: labels[0].label: Input should be"),
        ({"label": "real"}, "labels[0]: 'real' is a secret's classification"),
        ({"label": "not_affected", "justification": None}, "needs its OpenVEX justification"),
        ({"justification": "component_not_present"}, "an 'affected' label takes no justif"),
        ({"justification": "because"}, "labels[0].justification: Input should be"),
        ({"ecosystem": "PyPy"}, "labels[0].ecosystem: Input should be"),
        ({"reason": ""}, "labels[0].reason: String should have at least 1 character"),
        ({"project": "nowhere"}, "labels[0].project: 'nowhere' is not a directory"),
        ({"project": "../called"}, "labels[0].project: '../called' is not a directory"),
        ({"severity": "high"}, "labels[0].severity: Extra inputs are not permitted"),
    ],
)
def test_bad_label_names_file_and_field(
    tmp_path: Path, change: dict[str, Any], expected: str
) -> None:
    corpus = copy_tiny(tmp_path)
    labels = tiny_labels()
    labels[0] = {**labels[0], **change}
    write_labels(corpus, labels)
    with pytest.raises(DepsCorpusError) as caught:
        load_deps_corpus(corpus)
    assert str(corpus / "labels.json") in str(caught.value)
    assert expected in str(caught.value)


def test_missing_field_and_duplicates_and_bad_json(tmp_path: Path) -> None:
    corpus = copy_tiny(tmp_path)
    labels = tiny_labels()
    del labels[1]["reason"]
    write_labels(corpus, labels)
    with pytest.raises(DepsCorpusError, match=r"labels\[1\]\.reason: Field required"):
        load_deps_corpus(corpus)
    write_labels(corpus, [*tiny_labels(), tiny_labels()[2]])
    with pytest.raises(DepsCorpusError, match=r"labels\[5\]: the same finding as labels\[2\]"):
        load_deps_corpus(corpus)
    write_labels(corpus, "{not json")
    with pytest.raises(DepsCorpusError, match=r"labels\.json: not UTF-8 JSON"):
        load_deps_corpus(corpus)
    write_labels(corpus, json.dumps({"rows": []}))
    with pytest.raises(DepsCorpusError, match=r"labels\.json: labels: Field required"):
        load_deps_corpus(corpus)


def test_bad_osv_records_name_the_file(tmp_path: Path) -> None:
    corpus = copy_tiny(tmp_path)
    record = corpus / "osv/PyPI/TEST-2024-0001.json"
    record.write_text("{broken")
    with pytest.raises(DepsCorpusError, match=r"TEST-2024-0001\.json: not UTF-8 JSON"):
        osv_export(corpus / "osv", tmp_path / "export")
    record.write_text(json.dumps({"id": "TEST-1", "modified": "yesterday"}))
    with pytest.raises(DepsCorpusError, match=r"TEST-2024-0001\.json"):
        osv_export(corpus / "osv", tmp_path / "export")
    (corpus / "osv/Hackage").mkdir()
    with pytest.raises(DepsCorpusError, match="Hackage: not an OSV ecosystem directory"):
        osv_export(corpus / "osv", tmp_path / "export")


def test_a_broken_lockfile_in_the_corpus_is_an_error_naming_it(cli: Cli, tmp_path: Path) -> None:
    corpus = copy_tiny(tmp_path)
    (corpus / "projects/devonly/poetry.lock").write_text("[[package]\nname = ")
    with pytest.raises(DepsCorpusError, match=r"projects/devonly: poetry\.lock"):
        run(corpus, tmp_path)
    result = cli("eval", str(corpus))
    assert result.exit_code == 2 and "poetry.lock" in result.stderr


@pytest.mark.slow
def test_a_real_export_zip_is_used_as_is(tmp_path: Path) -> None:
    built = osv_export(TINY / "osv", tmp_path / "built")
    corpus = copy_tiny(tmp_path)
    shutil.rmtree(corpus / "osv/PyPI")
    (corpus / "osv/PyPI").mkdir()
    shutil.copy(built / "PyPI/all.zip", corpus / "osv/PyPI/all.zip")
    assert osv_export(corpus / "osv", tmp_path / "unused") == corpus / "osv"
    assert run(corpus, tmp_path).thresher == run(TINY, tmp_path).thresher


# -- the CLI ------------------------------------------------------------------------------


def test_cli_detects_a_dependency_corpus_and_writes_json(cli: Cli, tmp_path: Path) -> None:
    result = cli("eval", str(TINY), "--json", "deps.json")
    assert result.exit_code == 0, result.stderr
    assert "oracle ceiling" in result.stdout and "escalation rate" in result.stdout
    assert "server: tinylib 1.0 TEST-2024-0001: not_affected" in result.stdout
    data = json.loads((tmp_path / "deps.json").read_text())
    assert data["kind"] == "dependencies"
    assert data["escalation_rate"] == 0.5 and data["oracle"]["precision"] == 1.0


def test_cli_refuses_secret_only_flags_and_bad_labels(cli: Cli, tmp_path: Path) -> None:
    result = cli("eval", str(TINY), "--folds", "5")
    assert result.exit_code == 2 and "--folds" in result.stderr
    result = cli("eval", str(TINY), "--escalate-band", "0.1,0.9")
    assert result.exit_code == 2 and "--escalate-band" in result.stderr
    corpus = copy_tiny(tmp_path)
    write_labels(corpus, [{**tiny_labels()[0], "label": "maybe"}])
    result = cli("eval", str(corpus))
    assert result.exit_code == 2
    assert "labels.json: labels[0].label" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_kind_deps_on_a_secret_corpus_names_what_is_missing(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    result = cli("eval", str(tmp_path / "secrets"), "--kind", "deps")
    assert result.exit_code == 2 and "no projects/ directory" in result.stderr


# -- the benchmark corpus cannot rot ------------------------------------------------------


@pytest.fixture(scope="module")
def benchmark(tmp_path_factory: pytest.TempPathFactory) -> DepsEvalResult:
    return run(BENCHMARK, tmp_path_factory.mktemp("bench"))


@pytest.mark.slow
def test_benchmark_corpus_labels_are_exactly_what_the_pipeline_reports(
    benchmark: DepsEvalResult,
) -> None:
    corpus = load_deps_corpus(BENCHMARK)
    assert 10 <= len(corpus.projects()) <= 16
    assert benchmark.missing == []  # every label that should be reported is
    assert benchmark.unlabelled == []  # every reported finding is labelled
    assert benchmark.labelled == len(corpus.labels)
    assert set(corpus.projects()) == {label.project for label in corpus.labels}
    assert {r.reported for r in benchmark.rows if not r.expected_justification} == {True}
    assert set(benchmark.label_counts) == {"affected", "not_affected"}


def test_benchmark_unreported_labels_are_really_outside_the_range(tmp_path: Path) -> None:
    """An outside-range label must still name an advisory that lists its package, the
    ecosystem's ordering must place the version outside it, and OSV matching must leave
    it out (not a typo'd id or version)."""
    corpus = load_deps_corpus(BENCHMARK)
    export = osv_export(corpus.osv_dir, tmp_path)
    with OfflineDatabase(export) as database:
        for label in (x for x in corpus.labels if x.may_be_unreported):
            path = corpus.osv_dir / label.ecosystem.value / f"{label.vulnerability}.json"
            vuln = parse_record(json.loads(path.read_text()), origin=str(path))
            entries = vuln.affecting(label.ecosystem, label.package)
            assert entries, label
            assert not any(affected(label.ecosystem, label.version, e) for e in entries)
            package = PackageVersion(label.ecosystem, label.package, label.version)
            assert label.vulnerability not in {v.id for v in database.lookup([package])[package]}


def test_benchmark_clear_cases_are_right_and_the_rest_escalates(
    benchmark: DepsEvalResult,
) -> None:
    for row in benchmark.rows:
        if row.case in ("dev_only", "outside_range"):
            assert row.correct and not row.would_escalate, row
            assert row.justification == row.expected_justification
        if row.case in ("called", "imported_not_called", "transitive"):
            assert row.would_escalate and row.predicted == "affected", row
    assert benchmark.oracle.precision >= benchmark.thresher.precision
    assert benchmark.oracle_accuracy >= benchmark.accuracy
    assert 0.0 < benchmark.escalation_rate < 1.0


def test_benchmark_script_runs_the_dependency_eval() -> None:
    script = (REPO / "benchmarks/eval_deps.sh").read_text()
    assert "eval" in script and "--kind deps" in script and "benchmarks/deps_corpus" in script
