"""JavaScript lockfiles: package-lock v1-v3, npm-shrinkwrap, yarn v1 and Berry, pnpm 5/6/9."""

from __future__ import annotations

import pytest

from tests.deps.lockfile_helpers import D, T, U, parse_fixture, parse_with_manifest, rows
from thresher.deps.lockfiles import parse
from thresher.deps.model import Ecosystem, LockfileError


def test_package_lock_v3_direct_from_root_and_workspaces_dev_from_flags() -> None:
    deps = parse_fixture("npm-v3/package-lock.json")
    assert rows(deps) == {
        ("@types/node", "20.9.0", 18, D, True),
        ("express", "4.18.2", 22, D, False),
        ("debug", "2.6.9", 28, T, False),
        ("debug", "4.3.4", 31, T, False),  # devOptional: a production install may fetch it
        ("react", "18.2.0", 45, D, False),  # named by the packages/ui workspace, hoisted
        ("string-width", "4.2.3", 48, T, False),  # an alias installs the real package
    }
    types = next(d for d in deps if d.name == "@types/node")
    assert types.ecosystem is Ecosystem.NPM
    assert types.purl == "pkg:npm/%40types/node@20.9.0"


def test_package_lock_v1_nested_tree() -> None:
    assert rows(parse_fixture("npm-v1/package-lock.json")) == {
        ("accepts", "1.3.8", 7, U, False),
        ("mime-types", "2.1.35", 15, T, False),
        ("mocha", "10.2.0", 21, U, True),
        ("string-width", "4.2.3", 25, U, False),
    }


def test_npm_shrinkwrap_reads_like_a_package_lock() -> None:
    assert rows(parse_fixture("npm-shrinkwrap/npm-shrinkwrap.json")) == {
        ("minimist", "1.2.8", 14, D, False),
    }


def test_yarn_v1_entries_at_their_header_line() -> None:
    assert rows(parse_fixture("yarn-v1/yarn.lock")) == {
        ("@babel/code-frame", "7.22.13", 5, U, None),
        ("chalk", "2.4.2", 13, U, None),
        ("string-width", "4.2.3", 19, U, None),
        ("lodash", "4.17.21", 26, U, None),
    }


def test_yarn_v1_with_its_package_json_knows_direct_and_dev_only() -> None:
    assert rows(parse_with_manifest("yarn-v1/yarn.lock")) == {
        ("@babel/code-frame", "7.22.13", 5, D, False),
        ("chalk", "2.4.2", 13, T, False),  # required by @babel/code-frame
        ("string-width", "4.2.3", 19, D, False),  # the alias string-width-cjs
        ("lodash", "4.17.21", 26, D, True),  # a devDependency only
    }


def test_yarn_berry_skips_workspace_and_patch_entries_and_reads_the_workspace() -> None:
    # Without package.json, the workspace entry's dependencies are the direct ones; the
    # patched resolve counts through the npm release it patches.
    assert rows(parse_fixture("yarn-berry/yarn.lock")) == {
        ("@babel/code-frame", "7.22.13", 8, D, None),
        ("lodash", "4.17.21", 28, D, None),
        ("resolve", "1.22.8", 41, D, None),
        ("string-width", "4.2.3", 47, D, None),
    }


def test_yarn_berry_with_its_package_json_knows_dev_only() -> None:
    assert rows(parse_with_manifest("yarn-berry/yarn.lock")) == {
        ("@babel/code-frame", "7.22.13", 8, D, False),
        ("lodash", "4.17.21", 28, D, True),
        ("resolve", "1.22.8", 41, D, False),
        ("string-width", "4.2.3", 47, D, True),
    }


def test_a_broken_package_json_beside_yarn_lock_is_named() -> None:
    with pytest.raises(LockfileError) as caught:
        parse("web/yarn.lock", "# yarn lockfile v1\n", read=lambda _p: '{\n  "dependencies": [\n')
    assert (caught.value.path, caught.value.line) == ("web/package.json", 3)


def test_pnpm_v5_slash_keys_and_dev_flags() -> None:
    assert rows(parse_fixture("pnpm-v5/pnpm-lock.yaml")) == {
        ("@jest/core", "29.7.0", 15, T, True),
        ("debug", "2.6.9", 19, T, False),
        ("express", "4.18.2", 25, D, False),
        ("jest", "29.7.0", 31, D, True),
        ("ms", "2.0.0", 37, T, False),  # no flag: needed by production and dev alike
        ("react-dom", "18.2.0", 40, T, False),
    }


def test_pnpm_v6_at_keys_with_peer_suffixes() -> None:
    assert rows(parse_fixture("pnpm-v6/pnpm-lock.yaml")) == {
        ("@types/react", "18.2.37", 19, T, True),
        ("express", "4.18.2", 23, D, False),
        ("react-dom", "18.2.0", 27, T, False),
        ("typescript", "5.2.2", 33, D, True),
    }


def test_pnpm_v9_importers_and_dev_only_from_snapshots() -> None:
    assert rows(parse_fixture("pnpm-v9/pnpm-lock.yaml")) == {
        ("debug", "2.6.9", 30, T, False),  # reached from express as well as vitest
        ("express", "4.18.2", 33, D, False),
        ("ms", "2.0.0", 37, T, False),
        ("react", "18.2.0", 40, D, False),
        ("tinyspy", "2.2.0", 43, T, True),
        ("vitest", "1.0.0", 46, D, True),
    }


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        (
            "package-lock.json",
            '{\n  "lockfileVersion": 3,\n  "packages": {\n    "": {}\n  ,}\n}',
            5,
        ),
        ("package-lock.json", '{\n  "lockfileVersion": 7\n}\n', 2),
        (
            "npm-shrinkwrap.json",
            '{\n "lockfileVersion": 3,\n "packages": {\n  "node_modules/a": []\n }\n}\n',
            4,
        ),
        ("yarn.lock", '# yarn lockfile v1\n\na@^1:\n  resolved "x"\n\nb@^2:\n', 3),
        ("yarn.lock", '# yarn lockfile v1\n\n  version "1.0.0"\n', 3),
        ("yarn.lock", '__metadata:\n  version: 6\n\n"a@npm:^1":\n  version: [1\n', 6),
        ("yarn.lock", '__metadata:\n  version: 6\n\n"a@npm:^1":\n  checksum: x\n', 4),
        ("pnpm-lock.yaml", "lockfileVersion: '6.0'\npackages:\n  /a@1.0.0: {\n", 4),
        ("pnpm-lock.yaml", "lockfileVersion: '4.0'\n", 1),
        ("pnpm-lock.yaml", "# pnpm\nlockfileVersion: 1e400\n", 2),
        (
            "pnpm-lock.yaml",
            "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      a: {}\n",
            5,
        ),
    ],
)
def test_malformed_js_lockfiles_name_file_and_line(path: str, text: str, line: int) -> None:
    with pytest.raises(LockfileError) as caught:
        parse(f"web/{path}", text)
    assert caught.value.path == f"web/{path}"
    assert caught.value.line == line, str(caught.value)


def test_pnpm_aliases_make_the_real_package_direct() -> None:
    text = (
        "lockfileVersion: '9.0'\n"
        "importers:\n"
        "  .:\n"
        "    dependencies:\n"
        "      string-width-cjs:\n"
        "        specifier: npm:string-width@^4.2.0\n"
        "        version: string-width@4.2.3\n"
        "packages:\n"
        "  string-width@4.2.3:\n"
        "    resolution: {integrity: sha512-x}\n"
        "snapshots:\n"
        "  string-width@4.2.3: {}\n"
    )
    assert rows(parse("pnpm-lock.yaml", text)) == {("string-width", "4.2.3", 9, D, False)}


def test_package_lock_v1_with_its_package_json_tells_hoisted_from_direct() -> None:
    assert rows(parse_with_manifest("npm-v1/package-lock.json")) == {
        ("accepts", "1.3.8", 7, D, False),
        ("mime-types", "2.1.35", 15, T, False),
        ("mocha", "10.2.0", 21, D, True),
        ("string-width", "4.2.3", 25, D, False),
    }


def test_package_lock_without_a_root_entry_leaves_the_relation_unknown() -> None:
    text = (
        '{\n  "lockfileVersion": 3,\n  "packages": {\n'
        '    "node_modules/a": {"version": "1.0.0"}\n  }\n}\n'
    )
    assert rows(parse("package-lock.json", text)) == {("a", "1.0.0", 4, U, False)}
