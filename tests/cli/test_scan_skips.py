"""``thresher scan`` never skips a file silently: counts on stderr, names with -v,
counts in the JSON report and in the Markdown summary."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from tests.tokens import github_token

Cli = Callable[..., Result]


def tree(root: Path) -> str:
    """A Latin-1 file holding the only secret, a binary, a dangling link and, when the
    OS honours it, a file nobody may read."""
    token = github_token(seed=61)
    (root / "legacy.py").write_bytes(b"# r\xe9glages\n" + f'TOKEN = "{token}"\n'.encode())
    (root / "logo.png.txt").write_bytes(b"\x89PNG\x00\x00" + token.encode())
    (root / "link.py").symlink_to(root / "nowhere.py")
    return token


def test_skips_are_counted_on_stderr_and_named_with_verbose(cli: Cli, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    tree(root)
    expected = "scanned 1 file; skipped 2 (1 binary, 1 not a regular file)"
    if os.geteuid() != 0:
        (root / "secret.key").write_text("x")
        (root / "secret.key").chmod(0)
        expected = "scanned 1 file; skipped 3 (1 unreadable, 1 binary, 1 not a regular file)"
    try:
        quiet = cli("scan", "--root", str(root))
        verbose = cli("-v", "scan", "--root", str(root))
    finally:
        if (root / "secret.key").exists():
            (root / "secret.key").chmod(0o644)
    assert quiet.exit_code == 1, quiet.stderr
    assert expected in quiet.stderr
    assert "1 decoded as Windows-1252/Latin-1" in quiet.stderr
    assert "skipped logo.png.txt" not in quiet.stderr
    assert "skipped logo.png.txt: binary" in verbose.stderr
    assert "skipped link.py: not a regular file (symlink)" in verbose.stderr


def test_skips_are_counted_in_the_json_report_and_the_markdown_summary(
    cli: Cli, tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    token = tree(root)
    result = cli(
        "scan", "--root", str(root), "--json", "out/r.json", "--markdown", "out/r.md"
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    report = json.loads((tmp_path / "out/r.json").read_text())
    scanned = report["scan"]
    assert scanned["files_scanned"] == 1
    assert scanned["decoded_with_fallback"] == 1
    assert scanned["skipped"]["binary"] == 1
    assert scanned["skipped"]["not_a_file"] == 1
    assert scanned["files_skipped"] == sum(scanned["skipped"].values())
    # The run directory's copy says the same.
    run_copy = next((tmp_path / ".thresher/runs").glob("*/report.json"))
    assert json.loads(run_copy.read_text())["scan"] == scanned
    # The secret in the Latin-1 file was found, and is not in any artifact.
    assert [d["finding"]["locations"][0]["path"] for d in report["decisions"]] == ["legacy.py"]
    summary = (tmp_path / "out/r.md").read_text()
    assert "⚠️ Scanned 1 file; skipped 2 (1 binary, 1 not a regular file)" in summary
    assert "thresher -v scan" in summary
    for path in (tmp_path / "out").iterdir():
        assert token not in path.read_text()
