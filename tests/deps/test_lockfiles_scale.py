"""Two thousand packages in every format: all found, each at the line that names it."""

from __future__ import annotations

import pytest

from tests.deps.generate import GENERATORS
from tests.deps.lockfile_helpers import D, T, U
from thresher.deps.lockfiles import parse

N = 2000


@pytest.mark.parametrize("path", sorted(GENERATORS))
def test_a_2000_package_lockfile_is_read_whole_with_exact_lines(path: str) -> None:
    text = GENERATORS[path](N)
    deps = parse(path, text)
    assert len(deps) == N
    assert {d.version for d in deps} == {f"1.{i}.0" for i in range(N)}
    lines = text.split("\n")
    for dep in deps:
        short = dep.name.rsplit("/", 1)[-1]
        # the line names this package and no other (pkg-1 must not match pkg-10's line)
        assert f"{short}@" in lines[dep.line - 1] or any(
            f"{short}{end}" in lines[dep.line - 1] for end in ('"', " ", "=")
        ), (dep, lines[dep.line - 1])


# (relation, dev) of the even and the odd packages, where the format records them
PARITY = {
    "package-lock.json": ((D, False), (T, True)),
    "pnpm-lock.yaml": ((D, False), (D, True)),
    "go.mod": ((D, None), (T, None)),
    "Gemfile.lock": ((D, None), (T, None)),
    "uv.lock": ((D, False), (T, None)),
    "poetry.lock": ((U, False), (U, True)),
}


@pytest.mark.parametrize("path", sorted(PARITY))
def test_relations_and_dev_flags_hold_at_scale(path: str) -> None:
    deps = parse(path, GENERATORS[path](N))
    for dep in deps:
        index = int(dep.version.split(".")[1])
        assert (dep.relation, dep.dev) == PARITY[path][index % 2], dep
