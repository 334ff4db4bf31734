"""Test scope from a path: words that name tests, and directories that hold tests by
convention (``t/``)."""

from __future__ import annotations

import pytest

from thresher.findings.filekind import FileKind, file_kind, in_test_scope


@pytest.mark.parametrize(
    "path",
    [
        "t/certs/ca.key",
        "t/unit/security/__init__.py",
        "lib/t/01-basic.t",
        "tests/conftest.py",
        "src/fixtures/key.pem",
    ],
)
def test_test_scope(path: str) -> None:
    assert in_test_scope(path)
    assert file_kind(path) is FileKind.TEST


@pytest.mark.parametrize(
    "path",
    ["t.py", "src/t.go", "tools/t-shirt/config.yml", "docs/what-t/README", "app/settings.py"],
)
def test_the_letter_t_alone_is_no_test_directory(path: str) -> None:
    assert not in_test_scope(path)
