"""The secret vault: the only place a candidate's raw value lives (DESIGN §2).

Findings carry a fingerprint and a redacted form so they can go anywhere;
the raw value is needed only by the redactor and by validators, which look it
up by finding id. Keeping it in one object that refuses to be printed,
pickled or serialised makes a leak through a report, a log line or a worker
queue a loud error rather than a silent one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NoReturn


class SecretVault:
    """finding id -> raw value, in memory only."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    def put(self, finding_id: str, value: str) -> None:
        self._values[finding_id] = value

    def get(self, finding_id: str) -> str | None:
        return self._values.get(finding_id)

    def values(self) -> list[str]:
        """Every raw value, e.g. to seed a ``Redactor`` for the run."""
        return list(self._values.values())

    def ids(self) -> list[str]:
        return list(self._values)

    def __contains__(self, finding_id: object) -> bool:
        return finding_id in self._values

    def __iter__(self) -> Iterator[str]:
        """Iterates finding ids, never values, so ``list(vault)`` is safe to print."""
        return iter(list(self._values))

    def __len__(self) -> int:
        return len(self._values)

    def __bool__(self) -> bool:
        return bool(self._values)

    def __repr__(self) -> str:
        return f"SecretVault({len(self._values)} values)"

    __str__ = __repr__

    def __copy__(self) -> SecretVault:
        clone = SecretVault()
        clone._values = dict(self._values)
        return clone

    def __deepcopy__(self, memo: dict[int, Any]) -> SecretVault:
        return self.__copy__()

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise TypeError("a SecretVault is never serialised; pass finding ids instead")

    def __getstate__(self) -> NoReturn:
        raise TypeError("a SecretVault is never serialised; pass finding ids instead")
