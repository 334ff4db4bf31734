"""Hostile lockfiles: oversized, deeply nested, YAML bombs and tags, odd line breaks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.deps.lockfile_helpers import FIXTURES, D, rows
from tests.tokens import random_secret
from thresher.deps.lockfiles import MAX_BYTES, decode, kind_of, parse
from thresher.deps.model import LockfileError


@pytest.mark.parametrize(
    "path", ["package-lock.json", "pnpm-lock.yaml", "Cargo.lock", "requirements.txt", "yarn.lock"]
)
def test_an_oversized_lockfile_is_refused_by_name(path: str) -> None:
    text = "#" * (MAX_BYTES + 1)
    with pytest.raises(LockfileError) as caught:
        parse(f"big/{path}", text)
    assert caught.value.path == f"big/{path}"
    assert "more than" in str(caught.value)


def test_fifty_megabytes_are_refused_before_decoding() -> None:
    with pytest.raises(LockfileError, match="more than"):
        decode("yarn.lock", b"a" * (50 * 1024 * 1024))


def test_undecodable_bytes_name_their_line() -> None:
    with pytest.raises(LockfileError) as caught:
        decode("go.mod", b"module m\n\nrequire x v1.0.0 // \xff\n")
    assert caught.value.line == 3


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (
            "package-lock.json",
            '{"lockfileVersion": 3, "packages": ' + "[" * 100_000 + "]" * 100_000 + "}",
        ),
        ("composer.lock", '{"packages": ' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}"),
        ("Cargo.lock", "version = " + "[" * 100_000 + "]" * 100_000 + "\n"),
        ("uv.lock", "x = " + "{a = " * 50_000 + "1" + "}" * 50_000 + "\n"),
        ("pnpm-lock.yaml", "lockfileVersion: '9.0'\nx: " + "[" * 1_000_000 + "]" * 1_000_000),
        ("pnpm-lock.yaml", "lockfileVersion: '9.0'\nx:\n" + "- " * 1_000_000 + "x\n"),
        ("yarn.lock", "__metadata:\n  version: 6\nx: " + "{a: " * 500_000 + "1" + "}" * 500_000),
        ("requirements.txt", "a==1 ; " + "(" * 5000 + "os_name=='x'" + ")" * 5000 + "\n"),
    ],
)
def test_deep_nesting_is_an_error_not_a_crash(path: str, text: str) -> None:
    # The C YAML composer segfaults on ~100k levels; json and tomllib raise RecursionError.
    # Ours, or the parser's own limit (PyYAML 6.0.4 and packaging 26 stop deep nesting
    # themselves, with their own words): either way an error naming the file, no crash.
    with pytest.raises(LockfileError, match=r"nests deeper|nesting depth|nested more than"):
        parse(path, text)


def test_yaml_aliases_are_shared_not_expanded() -> None:
    laughs = ["lockfileVersion: '9.0'", "lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, 30):  # 9**30 copies if anything expanded them
        laughs.append(f"lol{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]")
    laughs += [
        "importers:",
        "  .:",
        "    dependencies: &deps",
        "      lodash:",
        "        specifier: ^4.17.21",
        "        version: 4.17.21",
        "    devDependencies: *deps",
        "packages:",
        "  lodash@4.17.21: *l29",
        "snapshots:",
        "  lodash@4.17.21: {dependencies: *deps}",
    ]
    deps = parse("pnpm-lock.yaml", "\n".join(laughs) + "\n")
    # 2 + 29 lines of laughs, then importers (32) ... packages (39), its entry at 40
    assert rows(deps) == {("lodash", "4.17.21", 40, D, False)}


def test_yaml_tags_run_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = (
        "__metadata:\n  version: 6\n\n"
        '"a@npm:^1":\n'
        f'  version: !!python/object/apply:os.system ["touch {marker}"]\n'
        '  resolution: "a@npm:1.0.0"\n'
    )
    with pytest.raises(LockfileError) as caught:  # a tagged sequence is no version
        parse("yarn.lock", text)
    assert caught.value.line == 4
    assert not marker.exists()


def test_unicode_line_separators_do_not_shift_line_numbers() -> None:
    text = "# notes\u2028more\x0cnotes\r\nflask==3.0.0\r\n\u0085\nrequests==2.31.0\n"
    assert rows(parse("requirements.txt", text)) == {
        ("flask", "3.0.0", 2, D, None),
        ("requests", "2.31.0", 4, D, None),
    }


def test_a_json_key_hidden_in_a_string_does_not_move_a_line() -> None:
    text = (
        "{\n"
        '  "lockfileVersion": 3,\n'
        '  "packages": {\n'
        '    "": {"description": "\\"node_modules/a\\": {"},\n'
        '    "node_modules/a": {\n'
        '      "version": "1.0.0"\n'
        "    }\n"
        "  }\n"
        "}\n"
    )
    assert [d.line for d in parse("package-lock.json", text)] == [5]


def test_mutated_fixtures_parse_or_fail_with_a_lockfile_error() -> None:
    """Seeded mutations of every fixture: a value or a LockfileError naming the file,
    and never the catch-all "unexpected structure" (each parser checks its shapes)."""
    rng = random.Random(12)
    alphabet = list("{}[]\":,=\n -@/#\\'ab1.()_|&*!")
    for fixture in sorted(p for p in FIXTURES.rglob("*") if kind_of(p.name) is not None):
        relative = fixture.relative_to(FIXTURES).as_posix()
        text = fixture.read_text(encoding="utf-8")
        for _ in range(120):
            chars = list(text)
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(chars))
                if rng.random() < 0.5:
                    del chars[at : at + rng.randint(1, 20)]
                else:
                    chars.insert(at, rng.choice(alphabet))
            try:
                parse(relative, "".join(chars))
            except LockfileError as exc:
                assert exc.path == relative
                assert "unexpected structure" not in str(exc), str(exc)


def test_credentials_in_a_url_never_reach_the_error_message() -> None:
    token = random_secret(24, seed=41)
    text = (
        "__metadata:\n  version: 6\n\n"
        f'"pkg@https://ci:{token}@npm.example.com/pkg.tgz?auth={token}":\n'
        "  languageName: node\n"
    )
    with pytest.raises(LockfileError) as caught:
        parse("yarn.lock", text)
    assert caught.value.line == 4
    assert token not in str(caught.value)
    assert "https://…@npm.example.com/pkg.tgz?…" in str(caught.value)
