"""--shard K/N: a deterministic, disjoint, balanced split of an organisation."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from thresher.errors import ExitCode, UsageError
from thresher.triage.shard import ShardSpec, shard_of

PINNED = [1, 1, 3, 4]
REPOS = [f"octo-org/service-{i:04d}" for i in range(2000)]


def test_every_repository_is_in_exactly_one_shard() -> None:
    shards = [ShardSpec(k, 7) for k in range(1, 8)]
    for repo in REPOS:
        assert sum(shard.owns(repo) for shard in shards) == 1


def test_shards_are_roughly_balanced() -> None:
    count = 4
    sizes = [sum(ShardSpec(k, count).owns(r) for r in REPOS) for k in range(1, count + 1)]
    expected = len(REPOS) / count
    assert all(abs(size - expected) < expected * 0.15 for size in sizes), sizes


def test_one_shard_owns_everything() -> None:
    assert all(ShardSpec(1, 1).owns(repo) for repo in REPOS[:50])


def test_the_split_is_the_same_in_another_process_with_another_hash_seed() -> None:
    here = [shard_of(repo, 5) for repo in REPOS[:200]]
    probe = (
        "from thresher.triage.shard import shard_of\n"
        f"print([shard_of(r, 5) for r in {REPOS[:200]!r}])"
    )
    for seed in ("1", "12345"):
        result = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert result.stdout.strip() == repr(here)


def test_names_are_compared_without_case() -> None:
    assert shard_of("Octo-Org/Service", 9) == shard_of("octo-org/service", 9)


def test_a_known_split_never_changes() -> None:
    # Pinned: a change here would move repositories between running matrix jobs.
    assert [shard_of(r, 4) for r in ("octo/a", "octo/b", "octo/c", "octo/d")] == PINNED


@pytest.mark.parametrize(("text", "index", "count"), [("1/4", 1, 4), (" 4 / 4 ", 4, 4)])
def test_parse(text: str, index: int, count: int) -> None:
    spec = ShardSpec.parse(text)
    assert (spec.index, spec.count) == (index, count)
    assert str(spec) == f"{index}/{count}"


@pytest.mark.parametrize("text", ["0/4", "5/4", "4", "a/b", "1/0", "-1/4", "", "1/4/2"])
def test_a_bad_shard_is_a_usage_error_naming_the_flag(text: str) -> None:
    with pytest.raises(UsageError, match="--shard") as caught:
        ShardSpec.parse(text)
    assert caught.value.exit_code is ExitCode.USAGE
