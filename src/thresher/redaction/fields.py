"""Which fields of a model redaction walks, and the ``Structural`` marker that exempts one.

Split from ``redactor.py``: what a model's declaration says about its fields is worked
out once per class here; the redactor asks it for every model it walks.
"""

from __future__ import annotations

import functools
from datetime import date, datetime
from enum import Enum
from types import UnionType
from typing import Any, Final, Literal, Union, final, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo


@final
class _StructuralMarker:
    """The type of ``Structural``; one instance, compared by identity."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Structural"


Structural: Final = _StructuralMarker()
"""Field metadata: ``rule_id: Annotated[str, Structural]`` is never redacted.

For ids, rule and model names, paths, fingerprints and names from a closed set that
is typed as ``str``. Enum and ``Literal`` fields are structural by their type and
need no marker; free text (rationales, claims, details, messages) must not carry it.

Why a marker on the field rather than a set of key names checked in the dumped
JSON: a key name means different things in different models (``name`` is a check
in one and a tool in another; ``path`` is structure in a location but free text a
model chose in a tool's arguments), and a set kept apart from the models drifts
when a field is added. The marker sits on the declaration, is checked by mypy like
any annotation, and leaves the models' JSON schemas unchanged. A marked field of a
model type (``source``) is structural as a whole.
"""


@functools.cache
def is_model(kind: type) -> bool:
    """``isinstance(value, BaseModel)`` for a value of type ``kind``, once per class: the
    check through pydantic's metaclass cost more than the walk's other steps together."""
    return issubclass(kind, BaseModel)


@functools.cache
def text_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` that redaction walks; every message and ledger entry of a
    run is redacted, so this is worked out once per class."""
    return tuple(
        name
        for name, info in model.model_fields.items()
        if not _is_structural(info) and _may_hold_text(info.annotation)
    )


_NO_TEXT: tuple[type, ...] = (bool, int, float, datetime, date, type(None))


def _may_hold_text(annotation: Any) -> bool:
    """False for a field whose type holds no text whatever its value (numbers, dates,
    enums, and unions or sequences of them): a report holds thousands of them and
    walking each cost time for nothing. Anything else may, and is walked."""
    if isinstance(annotation, type):
        return not issubclass(annotation, (*_NO_TEXT, Enum))  # a StrEnum member is structure
    origin = get_origin(annotation)
    if origin is Literal:
        return False
    if origin in (Union, UnionType, tuple, list, frozenset, set):
        return any(_may_hold_text(a) for a in get_args(annotation) if a is not Ellipsis)
    return True


def _is_structural(info: FieldInfo) -> bool:
    """Whether a model field is structure that redaction leaves as it is."""
    return get_origin(info.annotation) is Literal or any(m is Structural for m in info.metadata)
