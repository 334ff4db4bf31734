"""The vault holds raw values in memory and refuses every way out."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from tests.tokens import random_secret
from thresher.findings.vault import SecretVault


def test_put_get_values_and_len() -> None:
    vault = SecretVault()
    value = random_secret(32, seed=1)
    vault.put("s-1", value)
    vault.put("s-2", "other-value-123")
    assert vault.get("s-1") == value
    assert vault.get("s-missing") is None
    assert sorted(vault.values()) == sorted([value, "other-value-123"])
    assert len(vault) == 2
    assert "s-1" in vault
    assert list(vault) == ["s-1", "s-2"]


def test_repr_shows_counts_only() -> None:
    vault = SecretVault()
    value = random_secret(32, seed=2)
    vault.put("s-1", value)
    assert repr(vault) == "SecretVault(1 values)"
    assert value not in repr(vault)
    assert value not in str(vault)
    assert value not in f"{vault!r} {vault}"


def test_never_serialised() -> None:
    vault = SecretVault()
    vault.put("s-1", random_secret(32, seed=3))
    with pytest.raises(TypeError, match="never serialised"):
        pickle.dumps(vault)
    with pytest.raises(TypeError):
        json.dumps(vault)


def test_copies_stay_in_memory() -> None:
    vault = SecretVault()
    vault.put("s-1", "a-value-of-some-length")
    clone = copy.deepcopy(vault)
    clone.put("s-2", "another-value-here")
    assert len(vault) == 1
    assert clone.get("s-1") == "a-value-of-some-length"
