"""``find_imports``: imports of a package in the project's own code, per ecosystem,
never in vendored or installed code, bounded, contained and redacted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tokens import github_token
from thresher.agents.imports import find_imports, import_names
from thresher.agents.workspace import Workspace
from thresher.deps.model import Ecosystem
from thresher.redaction.redactor import Redactor


def tree(tmp_path: Path, files: dict[str, str]) -> Workspace:
    root = tmp_path / "repo"
    root.mkdir()
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return Workspace(root)


def hits(workspace: Workspace, ecosystem: Ecosystem, package: str) -> set[tuple[str, int]]:
    data = find_imports(workspace, ecosystem, package).data
    return {(m["path"], m["line"]) for m in data["matches"]}


IMPORTS = [
    (Ecosystem.PYPI, "PyYAML", "app.py", "import os\nimport yaml\n", 2),
    (Ecosystem.PYPI, "requests", "app.py", "from requests.adapters import HTTPAdapter\n", 1),
    (Ecosystem.PYPI, "python-dateutil", "app.py", "x = 1\nfrom dateutil import parser\n", 2),
    (Ecosystem.PYPI, "my_pkg", "app.py", "import os, my_pkg as m\n", 1),
    (Ecosystem.NPM, "lodash", "index.js", "const _ = require('lodash/merge');\n", 1),
    (Ecosystem.NPM, "@scope/lib", "src/a.ts", 'import { x } from "@scope/lib";\n', 1),
    (Ecosystem.NPM, "left-pad", "a.mjs", "\nconst m = await import('left-pad')\n", 2),
    (Ecosystem.GO, "golang.org/x/net", "main.go", 'import (\n\t"golang.org/x/net/html"\n)\n', 2),
    (Ecosystem.RUBYGEMS, "nokogiri", "lib/a.rb", "require 'nokogiri'\n", 1),
    (Ecosystem.RUBYGEMS, "rack-attack", "config.ru", 'require "rack/attack"\n', 1),
    (Ecosystem.PACKAGIST, "guzzlehttp/guzzle", "src/A.php", "<?php\nuse GuzzleHttp\\Client;\n", 2),
    (Ecosystem.CRATES_IO, "serde-json", "src/main.rs", "use serde_json::Value;\n", 1),
    (Ecosystem.CRATES_IO, "regex", "src/lib.rs", 'fn f() { regex::Regex::new("a"); }\n', 1),
]


@pytest.mark.parametrize(("ecosystem", "package", "path", "text", "line"), IMPORTS)
def test_each_ecosystem_finds_its_own_import_syntax(
    tmp_path: Path, ecosystem: Ecosystem, package: str, path: str, text: str, line: int
) -> None:
    workspace = tree(tmp_path, {path: text})
    assert hits(workspace, ecosystem, package) == {(path, line)}
    assert find_imports(workspace, ecosystem, package).data["imported"] is True


NOT_IMPORTS = [
    (Ecosystem.PYPI, "yaml", "app.py", "import yamlfix\nfrom pyyaml_x import y\n"),
    (Ecosystem.NPM, "lodash", "a.js", "const x = require('lodash-es');\n"),
    (Ecosystem.GO, "github.com/a/b", "m.go", 'import "github.com/a/bc"\n'),
    (Ecosystem.CRATES_IO, "regex", "a.rs", "use regex_lite::Regex;\n"),
    (Ecosystem.RUBYGEMS, "rails", "a.rb", "require 'railsy'\n"),
]


@pytest.mark.parametrize(("ecosystem", "package", "path", "text"), NOT_IMPORTS)
def test_a_similar_name_is_not_an_import(
    tmp_path: Path, ecosystem: Ecosystem, package: str, path: str, text: str
) -> None:
    data = find_imports(tree(tmp_path, {path: text}), ecosystem, package).data
    assert data["imported"] is False and data["complete"] is True
    assert data["files_searched"] == 1


def test_vendored_and_installed_code_is_not_the_projects_own(tmp_path: Path) -> None:
    workspace = tree(
        tmp_path,
        {
            "node_modules/x/index.js": "require('lodash')\n",
            "vendor/lib.js": "require('lodash')\n",
            ".venv/lib/python3.11/site-packages/a.js": "require('lodash')\n",
            "src/app.js": "console.log(1)\n",
        },
    )
    data = find_imports(workspace, Ecosystem.NPM, "lodash").data
    assert data["imported"] is False and data["files_searched"] == 1


def test_files_of_other_ecosystems_are_not_read(tmp_path: Path) -> None:
    workspace = tree(tmp_path, {"README.md": "import yaml\n", "app.js": "import 'yaml'\n"})
    data = find_imports(workspace, Ecosystem.PYPI, "pyyaml").data
    assert data["imported"] is False and data["files_searched"] == 0


def test_a_symlink_out_of_the_workspace_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.py").write_text("import yaml\n")
    workspace = tree(tmp_path, {"app.py": "x = 1\n"})
    os.symlink(outside, tmp_path / "repo" / "linked")
    os.symlink(outside / "evil.py", tmp_path / "repo" / "evil.py")
    assert find_imports(workspace, Ecosystem.PYPI, "pyyaml").data["imported"] is False


def test_matched_lines_are_redacted(tmp_path: Path) -> None:
    token = github_token(seed=41)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(f'import yaml; KEY = "{token}"\n')
    redactor = Redactor([token])
    workspace = Workspace(root, redact=redactor.text)
    output = find_imports(workspace, Ecosystem.PYPI, "pyyaml")
    assert output.data["imported"] is True
    assert token not in output.text and token not in str(output.data)


def test_the_file_bound_makes_the_search_incomplete(tmp_path: Path) -> None:
    workspace = tree(tmp_path, {f"m{i}.py": "x = 1\n" for i in range(5)})
    data = find_imports(workspace, Ecosystem.PYPI, "pyyaml", max_files=3).data
    assert data["files_searched"] == 3 and data["complete"] is False


def test_hostile_text_and_names_are_searched_in_linear_time(tmp_path: Path) -> None:
    hostile = "import " + "a" * 200_000 + "!\n" + ("(" * 50_000) + "\n"
    workspace = tree(tmp_path, {"evil.py": hostile})
    data = find_imports(workspace, Ecosystem.PYPI, "a(+)+$[x").data
    assert data["imported"] is False


def test_advisory_import_paths_are_searched_too() -> None:
    names = import_names(Ecosystem.GO, "stdlib", ("net/http",))
    assert names == ("net/http", "stdlib")
