"""The direct plugin and filter calls answer exactly as detect-secrets' injector does.

Every line is run both ways, for every configured plugin (and its linear stand-in):
through ``_scan_line`` and ``_is_filtered_out`` as ``_process_line_based_plugins``
calls them, and through ``LineScan``. The secrets kept, in order, must be the same.
"""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from detect_secrets.core.scan import _is_filtered_out, _scan_line
from detect_secrets.settings import get_plugins
from detect_secrets.util.code_snippet import get_code_snippet

from thresher.findings.direct import LineScan
from thresher.findings.engine import detect_secrets_session
from thresher.findings.plugins_re2 import stand_ins

from .test_equivalence import SAMPLES

pytestmark = pytest.mark.slow


def _lines() -> list[str]:
    rng = random.Random(7)
    lines = [line for _, sample in SAMPLES.values() for line in sample]
    lines += [
        "password = 'x'  # pragma: allowlist secret",
        "# pragma: allowlist nextline secret",
        'api_key = "8f14e45fceea167a5a36dedd4bea2543"',
        'secret = "${SECRET_FROM_ENV}"',
        'token = "{{ vault_token }}"',
        'password = "abcdefghijklmnopqrstuvwxyz"',
        'uuid = "123e4567-e89b-12d3-a456-426614174000"',
        'user_id = "AKIAABCDEFGHIJKLMNOP"',
        "password = get_password(config['key'])",
        'password: "$dollar_value"',
        "",
        "x = 1",
    ]
    alphabet = string.ascii_letters + string.digits + "+/=_-"
    for _ in range(200):
        word = rng.choice(["password", "secret", "api_key", "token", "key", "value", "id"])
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(4, 60)))
        quote = rng.choice(['"', "'", ""])
        sep = rng.choice([" = ", ": ", "=", " := "])
        lines.append(f"{word}{sep}{quote}{value}{quote}")
    return lines


def _reference(
    plugin: Any, filename: str, line: str, number: int, context: Any
) -> list[tuple[str, str, int]]:
    return [
        (s.type, s.secret_value or "", s.line_number)
        for s in _scan_line(
            plugin=plugin, filename=filename, line=line, line_number=number, context=context
        )
        if not _is_filtered_out(
            required_filter_parameters=["context"],
            filename=s.filename,
            secret=s.secret_value,
            plugin=plugin,
            line=line,
            context=context,
        )
    ]


@pytest.mark.parametrize("honour_pragmas", [True, False])
def test_plugins_and_filters_answer_as_through_the_injector(honour_pragmas: bool) -> None:
    lines = _lines()
    compared = found = 0
    with detect_secrets_session(honour_pragmas=honour_pragmas):
        scan = LineScan()
        plugins = get_plugins()
        linear = stand_ins(plugins)
        for filename in ["a.py", "config.yaml", "b.txt", "package-lock.json", ".env"]:
            for index, raw in enumerate(lines):
                line = raw.rstrip()
                context = get_code_snippet(lines=lines, line_number=index + 1)
                expected_out = _is_filtered_out(
                    required_filter_parameters=["line"],
                    filename=filename,
                    line=line,
                    context=context,
                )
                values = {"filename": filename, "line": line, "context": context}
                assert scan.line_filtered(values) == expected_out, line
                for original in plugins:
                    for plugin in (original, linear.get(id(original), original)):
                        got = scan.secrets(plugin, filename, line, index + 1, context)
                        mine = [(s.type, s.secret_value or "", s.line_number) for s in got]
                        assert mine == _reference(plugin, filename, line, index + 1, context)
                        compared += 1
                        found += len(mine)
    assert compared > 10_000 and found > 100


_NAMES = [
    "a.py", "config.yaml", "b.txt", "package-lock.json", "yarn.lock", "Cargo.lock", ".env",
    "logo.png", "img/icon.svg", "docs/swagger.json", "api/swagger-ui.html", "x.min.js",
    "go.sum", "poetry.lock", "Gemfile.lock", "composer.lock", "a.jpg", "f.woff2", "a.mp4",
    "dir/pnpm-lock.yaml", "notes", "Pipfile.lock", "a.zip", "b.tar.gz", "app.exe",
]  # fmt: skip


@pytest.mark.parametrize("honour_pragmas", [True, False])
def test_the_name_filters_answer_as_through_the_injector(honour_pragmas: bool) -> None:
    with detect_secrets_session(honour_pragmas=honour_pragmas):
        scan = LineScan()
        answers = [scan.name_filtered({"filename": name}) for name in _NAMES]
        expected = [
            _is_filtered_out(required_filter_parameters=["filename"], filename=name)
            for name in _NAMES
        ]
    assert answers == expected
    assert any(answers) and not all(answers)
