"""``thresher eval --html``: one self-contained page, no secret value, hostile names
escaped, and bad paths refused before any scan."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from tests.evaluation.test_clean import clean_trees
from tests.evaluation.test_evaluation import corpus_of
from tests.tokens import github_token, random_secret

Cli = Callable[..., Result]
HOSTILE = 'evil__<img src=x onerror="alert(1)">&amp'
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "dev"


def labelled_values(root: Path) -> set[str]:
    """Every value a corpus labels: the span of its line where ``labels.jsonl`` gives one
    (the dev corpus's format), else the quoted literals on the line (the fixtures'), at
    least 6 characters and not a bare number (the page's own figures)."""
    values: set[str] = set()
    for row in (json.loads(x) for x in (root / "labels.jsonl").read_text().splitlines()):
        path = root / "files" / row["path"]
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if not 0 < row["line"] <= len(lines):
            continue
        text = lines[row["line"] - 1]
        start, end = row.get("value_start"), row.get("value_end")
        found = [text[start:end]] if start is not None and end is not None else []
        found = found or re.findall(r'"([^"]+)"', text)
        values |= {v.strip() for v in found if len(v.strip()) >= 6}
    return {v for v in values if not re.fullmatch(r"[\d.,:%()+\s-]+", v)}


def leaked(page: str, values: set[str], report: dict[str, Any]) -> list[str]:
    """The labelled values the page holds, less those that are words of thresher itself:
    the corpus keeps values anyone would guess unobfuscated (`password`, `secret`, even
    `oracle`, labelled real), and the page says "oracle ceiling" and names rules such
    as "Basic Auth Credentials". Its own words are the renderer's source text and the
    rule, file-kind and repository names in the report (names, never values)."""
    from thresher.evaluation import charts
    from thresher.evaluation import page as page_module

    names = [report["corpus"], *report["by_rule"], *report["by_file_kind"], *report["ranking"]]
    names += [repo for fold in report["folds"] for repo in fold["repositories"]]
    vocabulary = "\n".join(
        [Path(page_module.__file__).read_text(), Path(charts.__file__).read_text(), *names]
    )
    return sorted(v for v in values if v in page and v not in vocabulary)


def hostile_corpus(tmp_path: Path) -> Path:
    """Four repositories, one of them named to break out of HTML if it were not
    escaped; each holds a real-looking token, a test token and a placeholder."""
    return corpus_of(tmp_path / "corpus", ["acme__api", "acme__web", "beta__cli", HOSTILE])


def test_eval_html_writes_one_page_with_both_charts_and_no_secret(cli: Cli, tmp_path: Path) -> None:
    root = hostile_corpus(tmp_path)
    result = cli("eval", str(root), "--folds", "2", "--html", "eval.html", "--json", "s.json")
    assert result.exit_code == 0, result.stderr
    page = (tmp_path / "eval.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    # The two charts with their parts, the per-fold and per-source tables.
    assert 'class="curve"' in page and 'class="point operating"' in page
    assert page.count('class="point"') == len(
        json.loads((tmp_path / "s.json").read_text())["calibration"]
    )
    for table in ("headline", "folds", "label-sources", "sources", "calibration"):
        assert f'<table class="{table}">' in page
    # Self-contained: nothing to fetch, nothing to run.
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert not re.search(r'\b(src|href)\s*=\s*"', page)
    assert "default-src 'none'" in page
    # Secret values never appear, and the hostile name stays text.
    values = labelled_values(root)
    assert github_token(seed=1) in values
    report = json.loads((tmp_path / "s.json").read_text())
    assert leaked(page, values, report) == []
    assert leaked(page + github_token(seed=1), values, report) == [github_token(seed=1)]
    assert not [v for v in values if v in page]  # here not even a word of the page
    assert "<img" not in page
    assert "evil__&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp" in page


def test_eval_html_is_the_same_bytes_for_the_same_figures(cli: Cli, tmp_path: Path) -> None:
    from thresher.evaluation.page import render_html
    from thresher.evaluation.secrets import EvalResult

    root = corpus_of(tmp_path / "corpus", ["acme__api", "acme__web"])
    assert cli("eval", str(root), "--json", "s.json").exit_code == 0
    result = EvalResult.model_validate_json((tmp_path / "s.json").read_text())
    assert result.precision_recall  # the curve travels in the typed result (and the JSON)
    assert render_html(result) == render_html(result.model_copy(deep=True))


def test_eval_clean_html_draws_false_real_and_escalations_per_repository(
    cli: Cli, tmp_path: Path
) -> None:
    trees = clean_trees(tmp_path / "wild")
    result = cli("eval", str(trees), "--clean", "--html", "clean.html")
    assert result.exit_code == 0, result.stderr
    page = (tmp_path / "clean.html").read_text()
    assert "False real calls per repository" in page and "Escalated share per repository" in page
    assert page.count('<rect class="bar"') == 4  # two repositories, two charts
    assert "acme__app" in page and "acme__lib" in page
    assert github_token(seed=3) not in page and random_secret(seed=4) not in page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--html", "out"], "--html out is a directory"),
        (["--html", "x.json", "--json", "x.json"], "the same file as --json"),
        (["--html", "afile/x.html"], "afile is not a directory"),
        (["--html", "nowhere/sub/x.html"], None),  # created: not an error
    ],
)
def test_eval_html_refuses_a_path_it_cannot_write_before_scanning(
    cli: Cli, tmp_path: Path, args: list[str], message: str | None
) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "afile").write_text("")
    root = corpus_of(tmp_path / "corpus", ["acme__api"])
    result = cli("eval", str(root), *args)
    if message is None:
        assert result.exit_code == 0, result.stderr
        assert (tmp_path / "nowhere/sub/x.html").is_file()
        return
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / ".thresher").exists()  # refused before anything ran


def test_eval_html_refuses_an_unwritable_directory(cli: Cli, tmp_path: Path) -> None:
    import os

    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.access(locked, os.W_OK):
        pytest.skip("running as a user who can write anywhere (root)")
    result = cli("eval", str(corpus_of(tmp_path / "c", ["acme__api"])), "--html", str(locked / "x"))
    assert result.exit_code == 2
    assert "--html" in result.stderr and "not writable" in result.stderr


def test_eval_html_on_a_dependency_corpus_names_the_flag(cli: Cli, tmp_path: Path) -> None:
    root = tmp_path / "deps"
    (root / "projects").mkdir(parents=True)
    (root / "labels.json").write_text("{}")
    result = cli("eval", str(root), "--html", "x.html")
    assert result.exit_code == 2
    assert "--html" in result.stderr and "dependency" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"dev corpus not found at {CORPUS}")
def test_the_page_for_the_dev_corpus_holds_none_of_its_labelled_values(
    cli: Cli, tmp_path: Path
) -> None:
    result = cli("eval", str(CORPUS), "--html", "dev.html", "--json", "dev.json")
    assert result.exit_code == 0, result.stderr
    page = (tmp_path / "dev.html").read_text()
    values = labelled_values(CORPUS)
    assert len(values) > 10_000
    assert leaked(page, values, json.loads((tmp_path / "dev.json").read_text()))[:10] == []
