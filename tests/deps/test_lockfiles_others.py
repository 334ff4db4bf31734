"""go.mod, Cargo.lock, Gemfile.lock and composer.lock."""

from __future__ import annotations

import pytest

from tests.deps.lockfile_helpers import D, T, U, parse_fixture, parse_with_manifest, rows
from thresher.deps.lockfiles import parse
from thresher.deps.model import Ecosystem, LockfileError


def test_go_mod_requires_with_indirect_as_transitive() -> None:
    deps = parse_fixture("go/go.mod")
    assert rows(deps) == {
        ("github.com/gorilla/mux", "1.8.0", 5, D, None),
        ("github.com/pkg/errors", "0.9.0", 16, D, None),  # what the build uses: the replacement
        ("golang.org/x/net", "0.17.0", 9, T, None),
        ("golang.org/x/text", "0.13.0", 10, T, None),
        ("github.com/stretchr/testify", "1.8.4", 11, D, None),
        ("github.com/docker/docker", "24.0.7+incompatible", 12, D, None),
        ("example.com/old", "0.0.0-20230101120000-abcdef123456", 13, T, None),
    }
    mux = next(d for d in deps if d.name == "github.com/gorilla/mux")
    assert mux.ecosystem is Ecosystem.GO
    assert mux.purl == "pkg:golang/github.com/gorilla/mux@v1.8.0"


GO_REPLACING = """module example.com/app

go 1.22

require (
	golang.org/x/net v0.7.0
	golang.org/x/text v0.3.7 // indirect
	github.com/gin-gonic/gin v1.9.0
	example.com/internal/kit v1.0.0
	github.com/old/lib v1.2.0
)

replace (
	golang.org/x/net v0.6.0 => golang.org/x/net v0.6.1
	golang.org/x/net v0.7.0 => golang.org/x/net v0.17.0
	golang.org/x/text => golang.org/x/text v0.3.8
	example.com/internal/kit => ../kit
)

replace github.com/old/lib => github.com/fork/lib v1.2.1-patched
"""


def test_go_mod_replacements_are_what_is_checked() -> None:
    deps = parse("go.mod", GO_REPLACING)
    assert rows(deps) == {
        ("golang.org/x/net", "0.17.0", 15, D, None),  # that version's replacement wins
        ("golang.org/x/text", "0.3.8", 16, T, None),  # every version of it, still indirect
        ("github.com/gin-gonic/gin", "1.9.0", 8, D, None),  # not replaced
        ("github.com/fork/lib", "1.2.1-patched", 20, D, None),  # a fork, at its replace line
    }  # example.com/internal/kit is ../kit: the project's own code, not a registry module
    fork = next(d for d in deps if d.name == "github.com/fork/lib")
    assert fork.purl == "pkg:golang/github.com/fork/lib@v1.2.1-patched"


@pytest.mark.parametrize(
    ("directive", "says"),
    [
        ("replace golang.org/x/net v0.7.0", "must read"),
        ("replace golang.org/x/net => golang.org/x/net", "needs a version"),
        ("replace golang.org/x/net => golang.org/x/net 0.17", "is not a module version"),
        ("replace a/b => c/d v1.0.0\nreplace a/b => e/f v1.0.0", "replaced twice"),
    ],
)
def test_a_malformed_go_replacement_is_an_error_at_its_line(directive: str, says: str) -> None:
    text = "module m\n\nrequire golang.org/x/net v0.7.0\n" + directive + "\n"
    with pytest.raises(LockfileError) as caught:
        parse("go.mod", text)
    assert says in caught.value.message
    assert caught.value.path == "go.mod"
    assert caught.value.line == len(text.splitlines())


def test_cargo_lock_skips_workspace_and_git_crates_and_finds_direct_ones() -> None:
    deps = parse_fixture("cargo/Cargo.lock")
    assert rows(deps) == {
        ("pin-project-lite", "0.2.13", 14, T, None),
        ("serde", "1.0.193", 20, D, None),
        ("tokio", "1.34.0", 26, D, None),
    }
    assert {d.purl for d in deps if d.name == "serde"} == {"pkg:cargo/serde@1.0.193"}


def test_gemfile_lock_gem_specs_platforms_folded_and_direct_from_dependencies() -> None:
    deps = parse_fixture("bundler/Gemfile.lock")
    assert rows(deps) == {
        ("actionpack", "7.0.8", 10, D, None),
        ("nokogiri", "1.15.4", 12, D, None),
        ("racc", "1.7.3", 16, T, None),
        ("rack", "2.2.8", 17, T, None),
        ("rspec", "3.12.0", 18, D, None),
    }
    assert {d.purl for d in deps if d.name == "rack"} == {"pkg:gem/rack@2.2.8"}


def test_composer_lock_packages_and_packages_dev() -> None:
    deps = parse_fixture("composer/composer.lock")
    assert rows(deps) == {
        ("monolog/monolog", "3.5.0", 8, U, False),
        ("symfony/console", "6.3.8", 13, U, False),  # the leading v is dropped
        ("phpunit/phpunit", "10.4.2", 24, U, True),
    }
    console = next(d for d in deps if d.name == "symfony/console")
    assert console.ecosystem is Ecosystem.PACKAGIST
    assert console.purl == "pkg:composer/symfony/console@6.3.8"


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("go.mod", "module m\n\nrequire (\n\tgithub.com/a/b v1.0.0\n", 3),
        ("go.mod", "module m\n\nrequire github.com/a/b\n", 3),
        ("go.mod", "module m\nrequire (\n\tgithub.com/a/b latest\n)\n", 3),
        ("Cargo.lock", 'version = 3\n\n[[package]]\nname = "a"\nversion = "1.0.0\n', 5),
        ("Gemfile.lock", "GEM\n  remote: https://rubygems.org/\n  specs:\n    rack 2.2.8\n", 4),
        ("composer.lock", '{\n  "packages": [\n    {"name": "a/b", "version": 1}\n  ]\n}\n', 3),
        ("composer.lock", '{\n  "packages": [\n    {"name": "a/b" "version": "1"}\n  ]\n}\n', 3),
    ],
)
def test_malformed_lockfiles_name_file_and_line(path: str, text: str, line: int) -> None:
    with pytest.raises(LockfileError) as caught:
        parse(f"svc/{path}", text)
    assert caught.value.path == f"svc/{path}"
    assert caught.value.line == line, str(caught.value)


def test_composer_json_beside_the_lock_makes_required_packages_direct() -> None:
    assert rows(parse_with_manifest("composer/composer.lock")) == {
        ("monolog/monolog", "3.5.0", 8, D, False),
        ("symfony/console", "6.3.8", 13, T, False),
        ("phpunit/phpunit", "10.4.2", 24, D, True),
    }
