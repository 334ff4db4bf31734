"""Python lockfiles: requirements (with includes), poetry.lock, Pipfile.lock, uv.lock."""

from __future__ import annotations

import pytest

from tests.deps.lockfile_helpers import (
    FIXTURES,
    D,
    T,
    U,
    parse_fixture,
    parse_with_manifest,
    rows,
)
from thresher.deps.lockfiles import parse
from thresher.deps.model import Ecosystem, LockfileError


def _reader(relative: str) -> str | None:
    path = FIXTURES / relative
    return path.read_text(encoding="utf-8") if path.is_file() else None


def test_requirements_pins_with_includes_hashes_markers_and_continuations() -> None:
    deps = parse(
        "pip/requirements.txt",
        (FIXTURES / "pip/requirements.txt").read_text(encoding="utf-8"),
        read=_reader,
    )
    by_file = {(d.path, d.name, d.version, d.line, d.relation, d.dev) for d in deps}
    assert by_file == {
        ("pip/requirements.txt", "django", "4.2.7", 4, D, None),
        ("pip/requirements.txt", "requests", "2.31.0", 7, D, None),
        ("pip/requirements.txt", "typing-extensions", "4.8.0", 12, D, None),
        ("pip/requirements.txt", "jinja2", "3.1.2", 14, D, None),
        # -r requirements/base.txt, which includes requirements.txt back (a cycle)
        ("pip/requirements/base.txt", "pyyaml", "6.0.1", 3, D, None),
        ("pip/requirements/base.txt", "certifi", "2023.7.22", 4, D, None),
    }
    assert len(deps) == 6  # the cycle adds nothing twice
    django = next(d for d in deps if d.name == "django")
    assert django.ecosystem is Ecosystem.PYPI
    assert django.purl == "pkg:pypi/django@4.2.7"


def test_requirements_without_a_reader_reads_only_the_file_itself() -> None:
    deps = parse_fixture("pip/requirements.txt")
    assert {d.name for d in deps} == {"django", "requests", "typing-extensions", "jinja2"}


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("flask==2.0.1\nrequests==\n", 2, "is not a requirement"),
        ("# c\n\nfoo (==1.0\n", 3, "is not a requirement"),
        (
            'a==1.0 \\\n  --hash=sha256:00\nb==1.0 ; no_such_marker == "x"\n',
            3,
            "is not a requirement",
        ),
    ],
)
def test_a_malformed_requirement_names_its_file_and_line(text: str, line: int, needle: str) -> None:
    with pytest.raises(LockfileError) as caught:
        parse("svc/requirements.txt", text)
    assert caught.value.path == "svc/requirements.txt"
    assert caught.value.line == line
    assert needle in str(caught.value)
    assert str(caught.value).startswith(f"svc/requirements.txt:{line}: ")


def test_a_missing_include_and_one_leaving_the_tree_are_errors_at_their_line() -> None:
    with pytest.raises(LockfileError) as missing:
        parse("requirements.txt", "a==1.0\n-r nope.txt\n", read=lambda _p: None)
    assert (missing.value.path, missing.value.line) == ("requirements.txt", 2)
    assert "no such file" in str(missing.value)
    with pytest.raises(LockfileError) as outside:
        parse("sub/requirements.txt", "--requirement ../../etc/passwd\n", read=lambda _p: "x")
    assert outside.value.line == 1
    assert "outside the scanned tree" in str(outside.value)


def test_poetry_old_category_marks_dev_and_skips_local_directories() -> None:
    assert rows(parse_fixture("poetry-old/poetry.lock")) == {
        ("certifi", "2023.7.22", 2, U, False),
        ("pytest", "7.4.3", 10, U, True),
    }


def test_poetry_groups_mark_dev_when_main_is_absent() -> None:
    assert rows(parse_fixture("poetry/poetry.lock")) == {
        ("colorama", "0.4.6", 4, U, True),
        ("requests", "2.31.0", 16, U, False),
        ("sphinx", "7.2.6", 30, U, True),
        ("vendored", "1.0.0", 39, U, None),
    }


def test_pipfile_lock_default_and_develop() -> None:
    assert rows(parse_fixture("pipenv/Pipfile.lock")) == {
        ("requests", "2.31.0", 9, U, False),
        ("flask", "3.0.0", 19, U, False),
        ("pytest", "7.4.3", 22, U, True),
    }


def test_uv_lock_direct_from_the_project_and_dev_from_the_graph() -> None:
    assert rows(parse_fixture("uv/uv.lock")) == {
        ("anyio", "4.2.0", 5, D, False),
        ("idna", "3.6", 28, T, False),
        ("iniconfig", "2.0.0", 33, T, True),
        ("pytest", "7.4.3", 38, D, True),
        ("sniffio", "1.3.0", 49, T, False),
    }


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("poetry.lock", '[[package]]\nname = "a"\nversion = 1.0 x\n', 3),
        ("uv.lock", 'version = 1\n\n[[package]\nname = "a"\n', 3),
        ("Pipfile.lock", '{\n  "default": {\n    "a": {"version": "==1"},\n  }\n}\n', 4),
        ("Pipfile.lock", '{\n  "default": {\n    "a": {"version": ">=1"}\n  }\n}\n', 3),
    ],
)
def test_malformed_python_lockfiles_name_file_and_line(path: str, text: str, line: int) -> None:
    with pytest.raises(LockfileError) as caught:
        parse(f"app/{path}", text)
    assert caught.value.path == f"app/{path}"
    assert caught.value.line == line


def test_local_paths_archives_and_urls_pin_nothing_and_are_no_error() -> None:
    text = (
        "src/mypkg\n"
        "wheels/foo-1.0-py3-none-any.whl\n"
        "C:\\build\\pkg\n"
        "pkg @ https://example.com/pkg-1.0.tar.gz\n"
        "git+https://github.com/example/x.git@v1#egg=x\n"
        "-e .\n"
        "-c constraints.txt\n"
        "attrs==23.1.0\n"
    )
    assert rows(parse("requirements.txt", text)) == {("attrs", "23.1.0", 8, D, None)}


def test_poetry_lock_with_its_pyproject_knows_direct_from_every_group() -> None:
    assert rows(parse_with_manifest("poetry/poetry.lock")) == {
        ("colorama", "0.4.6", 4, T, True),
        ("requests", "2.31.0", 16, D, False),
        ("sphinx", "7.2.6", 30, D, True),  # "Sphinx" in the docs group
        ("vendored", "1.0.0", 39, T, None),
    }


def test_pipfile_lock_with_its_pipfile_knows_direct() -> None:
    assert rows(parse_with_manifest("pipenv/Pipfile.lock")) == {
        ("requests", "2.31.0", 9, D, False),
        ("flask", "3.0.0", 19, T, False),
        ("pytest", "7.4.3", 22, D, True),
    }


def test_pep_621_and_735_dependencies_make_packages_direct() -> None:
    pyproject = (
        '[project]\nname = "x"\ndependencies = ["Requests[socks]>=2 ; python_version>\'3\'"]\n'
        '[project.optional-dependencies]\nfast = ["orjson"]\n'
        '[dependency-groups]\ntest = ["pytest>=7"]\n'
    )
    lock = "".join(
        f'[[package]]\nname = "{n}"\nversion = "1.0"\n\n'
        for n in ("requests", "orjson", "pytest", "idna")
    )
    files = {"pyproject.toml": pyproject}
    deps = parse("poetry.lock", lock, read=files.get)
    assert {(d.name, d.relation) for d in deps} == {
        ("requests", D),
        ("orjson", D),
        ("pytest", D),
        ("idna", T),
    }


def test_a_broken_manifest_beside_the_lock_is_named() -> None:
    with pytest.raises(LockfileError) as caught:
        parse("app/Pipfile.lock", "{}", read=lambda _p: "[packages\n")
    assert (caught.value.path, caught.value.line) == ("app/Pipfile", 1)
