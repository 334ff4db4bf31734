"""A decision as the JSON report and ``decisions.jsonl`` write it (report schema 2.0).

An offline decision used to carry the offline panel's synthetic reports, challenge and
judgement: 2.4 KB of a 7 KB decision, repeating what the rationale and the assessment
already say, while ``offline.jsonl`` in the run directory keeps the panel's evidence
(its tool calls and ledger ids). So a decision the LLM tribunal did not take part in
(``escalated`` false) is written without ``entries``, ``judge`` and ``judge_model``;
an escalated one keeps them, since they are what a reviewer reads. Fields that hold
their default (null, empty, zero usage, false) are left out, except ``escalated`` and
the tags that say which kind of location or source a value is, and the assessment's top features are
``[feature, contribution]`` pairs. Every decision is one compact line, so
the report's ``decisions`` array is one line per decision and a report of thousands of
decisions stays about 1.5 KB a decision.

A line loads back with ``Decision.model_validate_json``: an omitted field takes its
default, so the offline decision reads back without its panel and otherwise equal.
In memory nothing changes: SARIF and Markdown still read the panel's winning report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, get_args

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from thresher.scoring.model import AS_PAIRS
from thresher.tribunal.decisions import Decision, RunReport

# The offline panel, left out of a decision no model took part in.
PANEL_FIELDS = frozenset({"entries", "judge", "judge_model"})
# Written even at their default: the tags of the unions (a location's kind, a source's
# type), and whether the LLM tribunal ran.
_TAGS = frozenset({"kind", "type", "escalated"})

Exclude = dict[Any, Any]


def reported(decision: Decision) -> Decision:
    """The decision as its line reads back: the offline panel dropped, unless escalated."""
    if decision.escalated:
        return decision
    if not decision.entries and decision.judge is None and decision.judge_model is None:
        return decision  # dropped already (the journal's redacted copy): the same decision
    return decision.model_copy(update={"entries": (), "judge": None, "judge_model": None})


def decision_line(decision: Decision) -> tuple[str, bool]:
    """The decision as one compact JSON line, and whether pydantic's serialiser wrote it
    (it refuses text it cannot encode as UTF-8, a lone surrogate; ``json.dumps`` writes
    that instead, as ``thresher.tribunal.journal.dumped`` does)."""
    if decision.escalated:
        exclude = _defaults(decision)
    else:  # the panel is left out whole: what of it holds its default does not matter
        exclude = _defaults(decision, PANEL_FIELDS)
        exclude.update(dict.fromkeys(PANEL_FIELDS, True))
    try:
        return decision.model_dump_json(exclude=exclude, context=AS_PAIRS), True
    except PydanticSerializationError:
        data = decision.model_dump(mode="json", exclude=exclude, context=AS_PAIRS)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")), False


_EMPTY = '\n  "decisions": [],\n'


def report_text(report: RunReport, lines: Iterable[bytes] | None = None) -> str:
    """The JSON report: the run's fields indented, its decisions one line each
    (``lines``: each decision's ``decision_line`` in UTF-8, when the caller has them
    already), ending in a newline. Map-valued fields (``models``) are sorted by key, so
    two runs with the same configuration write byte-identical headers.

    Joined as UTF-8 bytes and decoded once: a text of thousands of decisions is built
    without a copy per step (a str holding one "…" takes two bytes a character)."""
    return b"".join(report_parts(report, lines)).decode("utf-8", "surrogatepass")


def report_parts(report: RunReport, lines: Iterable[bytes] | None = None) -> Iterator[bytes]:
    """``report_text`` as the UTF-8 pieces it joins, in order, made as they are taken: a
    run writes them to ``report.json`` one after another, its decisions' lines read back
    from the journal one at a time, so neither the report nor its lines are ever whole
    in memory (on a tree of thousands of findings either held the peak of a run's
    memory)."""
    if lines is None:
        lines = (decision_line(d)[0].encode("utf-8", "surrogatepass") for d in report.decisions)
    header = report.model_copy(
        update={"decisions": (), "models": dict(sorted(report.models.items()))}
    )
    try:  # pydantic's serialiser: several times faster than json.dumps
        text = header.model_dump_json(indent=2)
    except PydanticSerializationError:  # text it cannot encode (a lone surrogate)
        text = json.dumps(header.model_dump(mode="json"), indent=2, ensure_ascii=False)
    each = iter(lines)
    first = next(each, None)
    if first is None:
        yield _utf8(text + "\n")
        return
    # The only top-level key at this indent; nested keys sit deeper, and a string
    # value cannot hold a raw newline.
    head, tail = text.split(_EMPTY, 1)
    yield _utf8(head)
    yield b'\n  "decisions": [\n    '
    yield first
    for line in each:
        yield b",\n    "
        yield line
    yield b"\n  ],\n"
    yield _utf8(tail)
    yield b"\n"


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _defaults(model: BaseModel, skip: frozenset[str] = frozenset()) -> Exclude:
    """The fields of ``model`` (and of the models inside it) that hold their default,
    as pydantic's ``exclude`` reads them; fields of ``model`` named in ``skip`` are not
    looked at."""
    exclude: Exclude = {}
    for name, default in _omissible(type(model)):
        if name in skip:
            continue
        value = getattr(model, name)
        if default is not _REQUIRED and value == default:
            exclude[name] = True
        elif isinstance(value, BaseModel):
            inner = _defaults(value)
            if inner:
                exclude[name] = inner
        elif type(value) is tuple and value and isinstance(value[0], BaseModel):
            # A model with no field to leave out (a validation, a feature) is not walked.
            items = {
                i: inner
                for i, item in enumerate(value)
                if _omissible(type(item)) and (inner := _defaults(item))
            }
            if items:
                exclude[name] = items
    return exclude


_REQUIRED = object()
_FIELDS: dict[type[BaseModel], tuple[tuple[str, Any], ...]] = {}


def _omissible(kind: type[BaseModel]) -> tuple[tuple[str, Any], ...]:
    """Each field of the model class with its default (``_REQUIRED`` for a field that
    has none, or that is always written): worked out once a class, not once a value.
    A field with neither a default nor room for a model is left out: ``_defaults``
    would find nothing in it (a decision's scalars and strings, most of its fields)."""
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = tuple(
            (
                name,
                _REQUIRED
                if info.is_required() or name in _TAGS
                else info.get_default(call_default_factory=True),
            )
            for name, info in kind.model_fields.items()
            if not (info.is_required() or name in _TAGS) or _may_hold_model(info.annotation)
        )
        _FIELDS[kind] = fields
    return fields


def _may_hold_model(annotation: Any) -> bool:
    """Whether a value of this annotation can be a model, or a tuple of them."""
    if annotation is Any or annotation is object:
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_may_hold_model(arg) for arg in get_args(annotation))
