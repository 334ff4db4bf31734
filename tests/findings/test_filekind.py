"""Test scope from a path: words that name tests, and directories that hold tests by
convention (``t/``)."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from thresher.findings.filekind import FileKind, file_kind, in_test_scope, path_parts


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


@pytest.mark.parametrize(
    "path",
    ["", ".", "a", "a/b/c.py", "/a/b", "//a", "///a", "a//b", "a/./b", "a/../b", "a/b/", "./a",
     "t/unit/x.py", "..", "a/ b", "src\\win\\path.py", "dir.d/x.y/z"],
)  # fmt: skip
def test_path_parts_are_pathlibs(path: str) -> None:
    assert path_parts(path) == PurePosixPath(path).parts
