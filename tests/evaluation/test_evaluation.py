"""``thresher eval`` on a tiny corpus made in the test."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from tests.tokens import github_token

Cli = Callable[..., Result]


def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    files = root / "files" / "acme__app"
    (files / "src").mkdir(parents=True)
    (files / "tests").mkdir()
    (files / "src/settings.py").write_text(
        f'TOKEN = "{github_token(seed=1)}"\nPASSWORD = "your-password-here"\n'
    )
    (files / "tests/test_api.py").write_text(f'TOKEN = "{github_token(seed=2)}"\n')
    labels = [
        {"path": "acme__app/src/settings.py", "line": 1, "label": "real"},
        {"path": "acme__app/src/settings.py", "line": 2, "label": "not_secret"},
        {"path": "acme__app/tests/test_api.py", "line": 1, "label": "test"},
        {"path": "acme__app/src/other.py", "line": 9, "label": "real"},  # never flagged
    ]
    (root / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in labels) + "\n")
    return root


def corpus_of(root: Path, repos: list[str]) -> Path:
    """Several repository directories, each with a real token in deployable code, a
    made-up one in a test and a `changeme` password."""
    labels = []
    for n, repo in enumerate(repos):
        files = root / "files" / repo
        (files / "src").mkdir(parents=True)
        (files / "tests").mkdir()
        (files / "src/settings.py").write_text(
            f'TOKEN = "{github_token(seed=10 * n + 1)}"\nPASSWORD = "your-password-here"\n'
        )
        (files / "tests/test_api.py").write_text(f'TOKEN = "{github_token(seed=10 * n + 2)}"\n')
        labels += [
            {"path": f"{repo}/src/settings.py", "line": 1, "label": "real"},
            {"path": f"{repo}/src/settings.py", "line": 2, "label": "not_secret"},
            {"path": f"{repo}/tests/test_api.py", "line": 1, "label": "test"},
        ]
    (root / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in labels) + "\n")
    return root


def test_eval_scores_against_labels(cli: Cli, tmp_path: Path) -> None:
    result = cli("eval", str(corpus(tmp_path)), "--json", "scores.json")
    assert result.exit_code == 0, result.stderr
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["labelled_flagged_lines"] == 3
    assert scores["thresher"]["precision"] == 1.0 and scores["thresher"]["recall"] == 1.0
    assert scores["baseline"]["precision"] == round(1 / 3, 4)
    assert scores["confusion"]["test"]["test"] == 1
    assert scores["confusion"]["not_secret"]["not_secret"] == 1
    assert scores["detection_recall"] == 0.5
    assert scores["decided_without_model"] == 1.0
    assert "precision" in result.stdout and "baseline" in result.stdout
    # The operating-point-free figures lead: average precision and P@R0.9 of P(real).
    ranking = scores["ranking"]["all"]
    assert ranking["lines"] == 3 and ranking["real_lines"] == 1
    assert 0.0 < ranking["average_precision"] <= 1.0
    assert 0.0 < ranking["precision_at_recall_90"] <= 1.0
    assert "avg-prec" in result.stdout.split("flagged lines")[0]
    # each flagged line is flagged by both sources: nothing here is the new rules' alone
    assert scores["by_source"]["detect-secrets+thresher-rules"]["lines"] == 3
    assert "by finding source" in result.stdout


def test_eval_rejects_a_bad_corpus(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "c/files").mkdir(parents=True)
    assert "no labels.jsonl" in cli("eval", str(tmp_path / "c")).stderr
    (tmp_path / "c/labels.jsonl").write_text('{"path": "x", "line": "one", "label": "real"}\n')
    result = cli("eval", str(tmp_path / "c"))
    assert result.exit_code == 2
    assert "labels.jsonl:1: invalid label (line:" in result.stderr


def test_eval_names_a_labels_file_it_cannot_read(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "c/files").mkdir(parents=True)
    (tmp_path / "c/labels.jsonl").write_bytes(b'{"path": "x", "line": 1, "label": "r\xffal"}\n')
    result = cli("eval", str(tmp_path / "c"))
    assert result.exit_code == 2, result.stderr
    assert "labels.jsonl: cannot read it" in result.stderr
    assert "internal error" not in result.stderr


def test_eval_refuses_a_json_path_that_is_a_directory_before_scanning(
    cli: Cli, tmp_path: Path
) -> None:
    (tmp_path / "scores").mkdir()
    result = cli("eval", str(corpus(tmp_path)), "--json", "scores")
    assert result.exit_code == 2
    assert "--json scores is a directory" in result.stderr
    assert not (tmp_path / ".thresher").exists()


def test_eval_refuses_labels_outside_a_repository_directory(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "c/files/acme__app").mkdir(parents=True)
    (tmp_path / "c/labels.jsonl").write_text('{"path": "app.py", "line": 1, "label": "real"}\n')
    result = cli("eval", str(tmp_path / "c"))
    assert result.exit_code == 2
    assert "labels.jsonl:1: path 'app.py' is not under a repository directory" in result.stderr


def test_eval_default_mode_on_another_corpus_is_not_in_sample(cli: Cli, tmp_path: Path) -> None:
    result = cli("eval", str(corpus(tmp_path)), "--json", "scores.json")
    assert result.exit_code == 0, result.stderr
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["mode"] == "shipped scorer"
    assert scores["in_sample"] is False and scores["folds"] == []
    assert "in-sample" not in result.stdout


def test_eval_default_mode_on_the_training_corpus_says_in_sample(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A scorer whose provenance names this very corpus, as the shipped one names dev.
    from thresher.evaluation import secrets as evaluation
    from thresher.evaluation.corpus import corpus_digest, load_corpus
    from thresher.scoring.model import Scorer, shipped_scorer

    root = corpus(tmp_path)
    shipped = shipped_scorer().artifact
    training = {**shipped.training, "corpus_digest": corpus_digest(load_corpus(root))}
    trained_here = Scorer(shipped.model_copy(update={"training": training}))
    monkeypatch.setattr(evaluation, "shipped_scorer", lambda: trained_here)
    result = cli("eval", str(root), "--json", "scores.json")
    assert result.exit_code == 0, result.stderr
    assert json.loads((tmp_path / "scores.json").read_text())["in_sample"] is True
    assert "WARNING: in-sample" in result.stdout and "--folds" in result.stdout


def test_eval_folds_cross_validate_by_repository(cli: Cli, tmp_path: Path) -> None:
    repos = ["acme__api", "acme__web", "beta__cli", "beta__worker"]
    root = corpus_of(tmp_path / "corpus", repos)
    result = cli("eval", str(root), "--folds", "2", "--json", "scores.json")
    assert result.exit_code == 0, result.stderr
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["mode"] == "grouped cross-validation by repository"
    assert scores["folds_requested"] == 2
    assert scores["in_sample"] is False
    folds = scores["folds"]
    assert [f["fold"] for f in folds] == [1, 2]
    members = [set(f["repositories"]) for f in folds]
    assert all(members) and members[0].isdisjoint(members[1])
    assert members[0] | members[1] == set(repos)
    assert sum(f["lines"] for f in folds) == scores["labelled_flagged_lines"] == 3 * len(repos)
    for fold in folds:
        assert fold["lines"] > 0
        assert 0.0 <= fold["band"][0] < fold["band"][1] <= 1.0
        assert {"precision", "recall", "f1"} <= set(fold["thresher"])
        assert 0.0 <= fold["escalation_rate"] <= 1.0
        assert 0.0 <= fold["ranking"]["all"]["average_precision"] <= 1.0
    assert {"precision", "recall", "f1", "escalation_rate"} <= set(scores["fold_summary"])
    assert "cross-validation" in result.stdout and "in-sample" not in result.stdout


def test_eval_folds_on_three_repositories_never_ends_in_an_internal_error(
    cli: Cli, tmp_path: Path
) -> None:
    root = corpus_of(tmp_path / "corpus", ["acme__api", "acme__web", "beta__cli"])
    result = cli("eval", str(root), "--folds", "2")
    assert "internal error" not in result.stderr
    assert result.exit_code in (0, 2), result.stderr


def test_eval_folds_needs_as_many_repositories_as_folds(cli: Cli, tmp_path: Path) -> None:
    root = corpus_of(tmp_path / "corpus", ["acme__api", "acme__web"])
    result = cli("eval", str(root), "--folds", "3")
    assert result.exit_code == 2
    assert "--folds 3" in result.stderr and "fewer repositories" in result.stderr


@pytest.mark.parametrize(
    ("band", "why"),
    [
        ("0.9,0.1", "need 0 <= LOW < HIGH <= 1"),
        ("0.5,0.5", "need 0 <= LOW < HIGH <= 1"),
        ("-0.1,0.5", "need 0 <= LOW < HIGH <= 1"),
        ("0.1,1.5", "need 0 <= LOW < HIGH <= 1"),
        ("0.1", "expected two probabilities LOW,HIGH"),
        ("0.1,0.5,0.9", "expected two probabilities LOW,HIGH"),
        ("low,high", "expected two probabilities LOW,HIGH"),
    ],
)
@pytest.mark.parametrize("command", ["eval", "scan"])
def test_escalate_band_parse_errors_name_the_flag(
    cli: Cli, tmp_path: Path, band: str, why: str, command: str
) -> None:
    target = ["eval", str(corpus(tmp_path))] if command == "eval" else ["scan", "--root", "."]
    result = cli(*target, "--escalate-band", band)
    assert result.exit_code == 2, result.stderr
    assert f"--escalate-band '{band}'" in result.stderr and why in result.stderr
    assert not (tmp_path / ".thresher").exists()  # refused before anything ran
