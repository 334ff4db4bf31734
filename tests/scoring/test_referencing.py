"""The who-references pass in a forked process (``scoring.referencing.apart``) and the
line reader letting go of files (``LineReader.forget``): the same answers as in process."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from thresher.findings.model import Finding, FindingKind, Location, ThresherRulesSource
from thresher.scoring.context import build_contexts
from thresher.scoring.lines import LineReader
from thresher.scoring.references import Referenced, references
from thresher.scoring.referencing import apart

KEYS = ["configs/certs/key.pem", "configs/certs/prod-key.pem", "deploy/unnamed.pem"]


def _tree(root: Path) -> None:
    """nats-server's shape (see ``test_context``): a fixture named only through a test's
    config, a key a deployable file names, and a key nobody names."""
    (root / "configs" / "certs").mkdir(parents=True)
    (root / "deploy").mkdir()
    for key in KEYS:
        (root / key).write_text("key", encoding="utf-8")
    (root / "configs" / "tls.conf").write_text('tls { key_file: "certs/key.pem" }')
    (root / "configs" / "prod.conf").write_text('tls { key_file: "certs/prod-key.pem" }')
    (root / "server").mkdir()
    (root / "server" / "tls_test.go").write_text('load("../configs/tls.conf")')
    (root / "server" / "main.go").write_text('load("configs/prod.conf")')


EXPECTED = {
    "configs/certs/key.pem": Referenced.TESTS_ONLY,
    "configs/certs/prod-key.pem": Referenced.CODE,
    "deploy/unnamed.pem": Referenced.NOWHERE,
}


def test_the_forked_pass_answers_as_the_pass_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path)
    assert references(tmp_path, KEYS) == EXPECTED
    asking = os.getpid()

    def only_forked(*args: object, **kwargs: object) -> object:
        if os.getpid() == asking:
            raise AssertionError("asked of the forked process, answered in this one")
        return references(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("thresher.scoring.referencing.references", only_forked)
    assert apart(tmp_path, KEYS, None)() == EXPECTED
    assert apart(tmp_path, [], None)() == {}  # nothing to look up: nothing forked


def test_a_pass_that_died_is_run_here_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _tree(tmp_path)
    asking = os.getpid()

    def dies_forked(*args: object, **kwargs: object) -> object:
        if os.getpid() != asking:
            os._exit(9)  # killed mid-pass, before it answers
        return references(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("thresher.scoring.referencing.references", dies_forked)
    with caplog.at_level(logging.WARNING, logger="thresher.scoring.referencing"):
        assert apart(tmp_path, KEYS, None)() == EXPECTED
    assert "looking references up here" in caplog.text


def _finding(path: str, line: int, *more: tuple[str, int]) -> Finding:
    locations = tuple(Location(path=p, line=n) for p, n in ((path, line), *more))
    return Finding(
        id=f"f-{path}-{line}-{len(more)}",
        kind=FindingKind.SECRET,
        rule_id="generic-api-key",
        source=ThresherRulesSource(),
        locations=locations,
        fingerprint=f"sha256:{path}",
        redacted="abc…(12 chars)",
    )


def test_contexts_are_the_same_when_the_reader_lets_go_of_files(tmp_path: Path) -> None:
    """Files let go of once no finding left is located in them, read again if asked:
    the contexts are those of a reader that keeps every file."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(
        'class T:\n    def test_x(self):\n        token = "abc123def456"\nAPI = "abc123def456"\n',
        encoding="utf-8",
    )
    (tmp_path / "pkg" / "b.py").write_text('"""Doc.\n\nKEY = zzz999yyy888\n"""\n')
    (tmp_path / "README.md").write_text("KEY = zzz999yyy888\n")
    findings = [
        _finding("pkg/a.py", 3, ("pkg/a.py", 4)),
        _finding("pkg/a.py", 4),
        _finding("pkg/b.py", 3, ("README.md", 1)),
        _finding("README.md", 1),
        _finding("pkg/a.py", 3),  # a file let go of is read again
    ]
    assert len({f.id for f in findings}) == len(findings)
    values = {f.id: ("abc123def456" if "a.py" in f.id else "zzz999yyy888") for f in findings}

    def contexts(forgets: bool) -> dict[str, object]:
        reader = LineReader(tmp_path)
        forgotten: list[str] = []

        def forget(path: str) -> None:
            forgotten.append(path)
            reader.forget(path)

        built = build_contexts(
            findings,
            values.get,
            (),
            reader.line,
            root=tmp_path,
            test_block_of=reader.in_test_block,
            docstring_of=reader.in_docstring,
            forget=forget if forgets else None,
        )
        if forgets:
            assert sorted(forgotten) == ["README.md", "pkg/a.py", "pkg/b.py"]
            assert not reader._files  # every file let go of by the end
        return dict(built)

    kept = contexts(forgets=False)
    assert contexts(forgets=True) == kept
    assert len(kept) == len(findings)
