"""``thresher eval`` on a tiny corpus made in the test."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from tests.tokens import github_token

Cli = Callable[..., Result]


def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    files = root / "files" / "acme__app"
    (files / "src").mkdir(parents=True)
    (files / "tests").mkdir()
    (files / "src/settings.py").write_text(
        f'TOKEN = "{github_token(seed=1)}"\nPASSWORD = "changeme"\n'
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
