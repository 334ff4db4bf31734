"""One shared copy of each equal part of the decisions a run keeps until its report.

A run keeps every decision in memory for the report, and an offline decision is mostly
parts that thousands of others repeat: the same compliance, the same six report checks,
the same challenge, the same escalation, the same validator result. Read back from a
worker process's JSON, every one of them was a fresh object: about 24 KB a decision,
150 MB on the dev corpus. ``Interner`` hands back the first of equal parts instead, so
a decision holds only what is its own (about 10 KB).

Parts are compared by their fields (those holding models by the identity of their own
interned copy), so no model is hashed through pydantic; a part holding a dict or a list
(a tool call's arguments) has no key and is kept as it is. Frozen models only: sharing
a part is safe because nothing changes it.

The pool holds at most ``POOL_SIZE`` parts and starts afresh past it. Most parts are a
decision's own (its report, its rationale) and the run may let them go with the decision
(``thresher.tribunal.journal`` keeps a dismissed decision without its panel): a pool that
kept every part it saw held every panel of the run. The parts thousands of decisions
repeat are few; after a fresh start each is pooled again on its next use, so a run
holds a copy of one per start at most.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")

POOL_SIZE = 4096  # parts pooled before the pool starts afresh (see the module docstring)


class Interner:
    """Equal frozen models (and tuples of them) folded into one copy each."""

    def __init__(self) -> None:
        # The keys hold the ids of interned parts, which the values keep alive, so an
        # id in a key never belongs to another object while the interner lives.
        self._pool: dict[tuple[Any, ...], Any] = {}
        # The interned parts by id (the pool keeps them alive): a part handed back before
        # (a finding kind's compliance, a check every decision shares) comes back as it
        # is, without walking its fields again.
        self._held: dict[int, Any] = {}

    def __call__(self, value: T) -> T:
        """``value`` with every part equal to one seen before replaced by that one."""
        return self._part(value)  # type: ignore[no-any-return]

    def _part(self, value: Any) -> Any:
        if self._held.get(id(value)) is value:
            return value
        kind = type(value)
        if kind is tuple:
            if not value:
                return value
            parts = tuple(self._part(v) if _is_part(v) else v for v in value)
            if any(a is not b for a, b in zip(parts, value, strict=True)):
                value = parts
            return self._pooled((tuple, *map(_typed_key, parts)), value)
        if not isinstance(value, BaseModel):
            return value
        updates: dict[str, Any] = {}
        key: list[Any] = [kind]
        # Inline rather than a call per field: a decision has some thirty parts to walk.
        for name, old in value.__dict__.items():
            if _is_part(old):
                new = self._part(old)
                if new is not old:
                    updates[name] = new
                key.append(id(new) if _is_part(new) else new)
            else:
                key.append(old)
        if updates:
            value = value.model_copy(update=updates)
        return self._pooled(tuple(key), value)

    def _pooled(self, key: tuple[Any, ...], value: Any) -> Any:
        try:
            pooled = self._pool.get(key)
        except TypeError:  # a dict or a list inside: not interned
            return value
        if pooled is None:
            if len(self._pool) >= POOL_SIZE:
                # Both at once: ``_held`` may not outlive the parts ``_pool`` keeps alive.
                # A key pooled after this names its parts by id too, and they live as
                # long as the value it keeps (which holds them).
                self._pool.clear()
                self._held.clear()
            pooled = self._pool[key] = value
        self._held[id(pooled)] = pooled
        return pooled


_PARTS: dict[type, bool] = {}  # a per-process memo of classes, never of values


def _is_part(value: Any) -> bool:
    """Whether ``value`` is interned as a part (a model or a tuple), worked out once a
    class: the check through pydantic's metaclass is slow."""
    kind: type = type(value)
    part = _PARTS.get(kind)
    if part is None:
        part = _PARTS[kind] = issubclass(kind, BaseModel | tuple)
    return part


def _typed_key(value: Any) -> Any:
    """A tuple's item: its type too, so ``(1,)`` and ``(True,)`` stay apart (a model's
    fields have their types fixed by the model)."""
    return id(value) if _is_part(value) else (type(value), value)
