"""No silent skips and no hangs: what a scan does with files that are not plain,
small, readable UTF-8, and with lines built to make regexes backtrack.

Each test is one thing a user relies on: a secret in a Latin-1 file or near the end
of a 50 MB file is found; a file that cannot be read is counted, not dropped; a
minified line or a hostile line is scanned in seconds, not minutes.
"""

from __future__ import annotations

import io
import os
import random
import string
import time
from pathlib import Path
from typing import Any, BinaryIO, cast

import pytest

from tests.tokens import github_token, random_secret
from thresher.findings.engine import FileJob, Limits, scan_in_process
from thresher.findings.options import compile_rule_pattern
from thresher.findings.profile import profile_value
from thresher.findings.textfile import buffered, read_head
from thresher.scan.assess import assess
from thresher.scoring.model import shipped_scorer
from thresher.sources.scan import (
    CustomRule,
    ScanError,
    ScanOptions,
    ScanResult,
    SkipReason,
    scan,
)

# Generous: each of these used to take minutes; now each takes well under a second.
BOUND_S = 20.0


def run(root: Path, **options: object) -> ScanResult:
    return scan(ScanOptions(root=root, workers=1, **options))  # type: ignore[arg-type]


def aws_like_key(seed: int) -> str:
    rng = random.Random(seed)
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))


def test_a_latin1_file_whose_only_secret_is_found(tmp_path: Path) -> None:
    token = github_token(seed=41)
    (tmp_path / "settings.py").write_bytes(
        b"# Configuration du d\xe9ploiement (\xa9 ACME)\n" + f'TOKEN = "{token}"\n'.encode()
    )
    result = run(tmp_path)
    assert [f.rule_id for f in result.findings] == ["GitHub Token"]
    assert result.vault.get(result.findings[0].id) == token
    assert result.findings[0].locations[0].line == 2
    assert result.stats.files_scanned == 1
    assert result.stats.files_skipped == 0
    assert result.stats.decoded_with_fallback == 1
    assert "1 decoded as Windows-1252/Latin-1" in result.describe()


def test_an_unreadable_file_is_counted_never_dropped(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text(f'TOKEN = "{github_token(seed=42)}"\n')
    locked = tmp_path / "locked.py"
    locked.write_text(f'TOKEN = "{github_token(seed=43)}"\n')
    if os.geteuid() != 0:
        locked.chmod(0)
        try:
            result = run(tmp_path)
        finally:
            locked.chmod(0o644)
        assert result.stats.skipped_by_reason == {SkipReason.UNREADABLE: 1}
        assert [(s.path, s.reason) for s in result.skipped] == [
            ("locked.py", SkipReason.UNREADABLE)
        ]
        assert "skipped 1 (1 unreadable)" in result.describe()
    # As root chmod does not stop a read: a path that is a directory, or names nothing,
    # fails to open the same way an unreadable file does.
    (tmp_path / "dir.py").mkdir()
    jobs = [
        FileJob("dir.py", disk=str(tmp_path / "dir.py")),
        FileJob("gone.py", disk=str(tmp_path / "gone.py")),
        FileJob("ok.py", disk=str(tmp_path / "ok.py")),
    ]
    outcomes = scan_in_process(jobs, (), Limits(max_file_bytes=1 << 20))
    assert [(o.path, o.skipped) for o in outcomes] == [
        ("dir.py", SkipReason.UNREADABLE),
        ("gone.py", SkipReason.UNREADABLE),
        ("ok.py", None),
    ]
    assert all(o.detail for o in outcomes[:2])  # the OS's reason, for -v


@pytest.mark.slow
def test_a_50_mb_file_with_a_secret_near_its_end_is_found(tmp_path: Path) -> None:
    token = github_token(seed=44)
    block = b"const total = compute(alpha, beta) + 42; // an ordinary line of code\n" * 8192
    lines_before = 0
    with (tmp_path / "bundle.js").open("wb") as handle:
        while handle.tell() < 50 * 1024 * 1024:
            handle.write(block)
            lines_before += 8192
        handle.write(f'const token = "{token}";\n'.encode())
        handle.write(block[:200_000])
    started = time.perf_counter()
    result = run(tmp_path)
    assert time.perf_counter() - started < BOUND_S
    github = [f for f in result.findings if f.rule_id == "GitHub Token"]
    assert len(github) == 1
    assert result.vault.get(github[0].id) == token
    assert github[0].locations[0].line == lines_before + 1
    assert result.stats.files_scanned == 1
    assert result.stats.files_skipped == 0
    assert result.stats.read_unparsed == 0  # JavaScript is plain lines anyway


def test_a_large_yaml_file_is_scanned_as_plain_lines_and_says_so(tmp_path: Path) -> None:
    token = github_token(seed=54)
    body = "".join(f"key_{i}: value {i}\n" for i in range(400)) + f"token: {token}\n"
    (tmp_path / "values.yaml").write_text(body)
    result = run(tmp_path, chunk_bytes=2048)
    assert token in result.vault.values()
    assert result.stats.read_unparsed == 1


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_chunking_does_not_change_what_is_found(tmp_path: Path, newline: str) -> None:
    """The same file scanned whole and in 4 KiB chunks: the same candidates at the same
    lines, including PEM blocks and values that straddle every chunk edge, and a
    single line longer than a chunk."""
    rng = random.Random(45)
    lines: list[str] = []
    for index in range(2500):
        roll = rng.random()
        if roll < 0.02:
            lines.append(f'token_{index} = "{github_token(seed=1000 + index)}"')
        elif roll < 0.03:
            lines.append("-----BEGIN RSA PRIVATE KEY-----")
            lines += [random_secret(64, seed=2000 + index + k) for k in range(12)]
            lines.append("-----END RSA PRIVATE KEY-----")
        elif roll < 0.04:
            lines.append(f'password = "{random_secret(18, seed=3000 + index)}"')
        else:
            lines.append(f"x_{index} = compute({index}, {rng.randint(0, 9999)})")
    long_line = "var a=" + "x.y(z)," * 1500 + f'k:"{github_token(seed=46)}",' + "b=c;" * 800
    lines.insert(1234, long_line)
    (tmp_path / "mixed.js").write_bytes((newline.join(lines) + newline).encode())
    whole = run(tmp_path)
    chunked = run(tmp_path, chunk_bytes=4096)
    assert len(whole.candidates) > 50
    assert chunked.candidates == whole.candidates
    assert chunked.findings == whole.findings
    assert sorted(chunked.vault.values()) == sorted(whole.vault.values())
    keys = [f for f in chunked.findings if f.rule_id == "Private Key"]
    assert keys and all("END RSA PRIVATE KEY" in chunked.vault.get(f.id) for f in keys)


def test_a_file_over_the_hard_cap_is_reported_as_too_large(tmp_path: Path) -> None:
    (tmp_path / "big.js").write_text(f'const t = "{github_token(seed=47)}";\n' * 2000)
    (tmp_path / "small.js").write_text(f'const t = "{github_token(seed=48)}";\n')
    # Listed larger than the cap: skipped before reading; grown past it while chunks
    # are read: skipped too, never scanned in part.
    for chunk in (1 << 20, 4096):
        result = run(tmp_path, max_file_bytes=50_000, chunk_bytes=chunk)
        assert {c.path for c in result.candidates} == {"small.js"}
        assert result.stats.skipped_by_reason == {SkipReason.TOO_LARGE: 1}
    outcome = scan_in_process(
        [FileJob("big.js", disk=str(tmp_path / "big.js"))], (), Limits(50_000, 4096)
    )
    assert outcome[0].skipped is SkipReason.TOO_LARGE


def test_a_60_kb_minified_line_scans_and_scores_in_seconds(tmp_path: Path) -> None:
    """An alphanumeric blob holding a key-shaped run: found, scored and profiled fast."""
    rng = random.Random(49)
    blob = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(30_000))
    key = aws_like_key(50)
    line = f'var a="{blob}{key}{blob}";apiKey:"{blob[:24]}",password="{blob[:20]}"'
    (tmp_path / "bundle.min.js").write_text(line + "\n")
    started = time.perf_counter()
    result = run(tmp_path)
    assessments = assess(result, tmp_path, shipped_scorer())
    profiles = [
        profile_value(result.vault.get(f.id), result.line_text[(f.locations[0].path, 1)])
        for f in result.findings
    ]
    assert time.perf_counter() - started < BOUND_S
    assert key in result.vault.values()
    assert len(assessments) == len(result.findings) == len(profiles)
    assert all(len(text) <= 64 * 1024 for text in result.line_text.values())


HOSTILE_LINES = {
    # Each took from tens of seconds to hours in one detect-secrets plugin or filter.
    "keyword.js": "password" * 7500,
    "keyword2.py": '"' + random_secret(30_000, seed=51) + '" == ' + "secret" * 5000,
    "blanks.js": "password" + " " * 60_000 + "=",
    "jwt.txt": "eyJ" * 20_000,
    "npm.txt": "//" * 30_000,
    "openai.txt": "sk-" * 20_000 + "a" * 20,
    "cloudant.txt": ("clkey" + " " * 100) * 500,
    "ibm.txt": "ibm_key" + " " * 60_000 + "!",
    "cos.txt": "cos_secret_key" + " " * 60_000,
    "softlayer.txt": "sl_key" + " " * 60_000 + "!",
}


def test_lines_built_to_backtrack_scan_in_bounded_time(tmp_path: Path) -> None:
    for name, line in HOSTILE_LINES.items():
        (tmp_path / name).write_text(line + "\n")
    token = github_token(seed=52)
    (tmp_path / "real.py").write_text(f'TOKEN = "{token}"\n')
    started = time.perf_counter()
    result = run(tmp_path)
    assert time.perf_counter() - started < BOUND_S
    assert token in result.vault.values()
    assert result.stats.files_scanned == len(HOSTILE_LINES) + 1
    # Those built of long blank runs are read as plain lines, and counted as such.
    assert result.stats.read_unparsed == 4
    assert "4 read as plain lines, too large or costly to parse" in result.describe()


def test_a_yaml_file_its_parser_cannot_read_is_scanned_as_plain_lines(tmp_path: Path) -> None:
    token = github_token(seed=53)
    (tmp_path / "deep.yaml").write_text(f"token: {token}\nnested: " + "[" * 20_000 + "\n")
    result = run(tmp_path)
    assert token in result.vault.values()
    assert result.stats.files_skipped == 0


def test_a_catastrophic_custom_rule_finishes_fast(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a" * 100_000 + "b\n" + "a" * 50 + "\n")
    started = time.perf_counter()
    result = run(tmp_path, custom_rules=(CustomRule("all-a", r"^(a+)+$"),))
    assert time.perf_counter() - started < BOUND_S
    assert [(f.rule_id, [loc.line for loc in f.locations]) for f in result.findings] == [
        ("all-a", [2])
    ]


def test_a_rule_re2_cannot_run_names_the_rule_and_the_syntax(tmp_path: Path) -> None:
    with pytest.raises(ScanError, match=r"custom rule 'twice-a'.*RE2.*backreferences"):
        run(tmp_path, custom_rules=(CustomRule("twice-a", r"(a)\1"),))
    with pytest.raises(ValueError, match="does not compile as RE2"):
        compile_rule_pattern(r"(?<=x)y")
    assert compile_rule_pattern(r"key_(?P<secret>[A-Z0-9]{8})").groupindex == {"secret": 1}


@pytest.mark.parametrize("listed", [0, 5, 99, 100, 101, 5000])
@pytest.mark.parametrize("actual", [0, 1, 100, 250, 4000])
def test_a_file_is_read_as_one_read_would_whatever_size_was_listed(
    tmp_path: Path, listed: int, actual: int
) -> None:
    # The first read asks for the listed size: a file that grew or shrank since it
    # was listed is still read up to the limit, no more, no less.
    path = tmp_path / "f.txt"
    path.write_bytes(bytes(range(256)) * (actual // 256) + bytes(range(actual % 256)))
    limit = 201
    with path.open("rb") as handle:
        expected = handle.read(limit)
    with path.open("rb") as handle:
        assert read_head(handle, listed, limit) == expected
        assert handle.read() == path.read_bytes()[limit:]


class _Trickle(io.RawIOBase):
    """An unbuffered file whose every read returns at most 7 bytes, as a raw read may."""

    def __init__(self, data: bytes) -> None:
        self._data, self._at = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        piece = self._data[self._at : self._at + min(7, len(buffer))]
        buffer[: len(piece)] = piece
        self._at += len(piece)
        return len(piece)


@pytest.mark.parametrize("listed", [0, 5, 100, 5000])
@pytest.mark.parametrize("actual", [0, 1, 100, 250, 4000])
def test_an_unbuffered_file_is_read_as_a_buffered_one_would_be(listed: int, actual: int) -> None:
    # The engine reads files unbuffered: a read that returns less than it was asked for
    # is repeated until the limit or the end, and the rest is read through a buffer.
    data = bytes(range(256)) * (actual // 256) + bytes(range(actual % 256))
    limit = 201
    handle = _Trickle(data)
    assert read_head(cast(BinaryIO, handle), listed, limit) == data[:limit]
    assert buffered(cast(BinaryIO, handle)).read() == data[limit:]
