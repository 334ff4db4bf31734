"""The decision journal: each decision redacted once, for ``decisions.jsonl`` and the report.

A run writes every decision to ``decisions.jsonl`` as it is made, redacted, and the
report at the end holds every decision again, redacted with what the redactor knows
by then. Redacting each decision twice was a quarter of an offline run's time, so the
journal keeps the copy it redacted and the report reuses it. The redactor keeps
learning values while the run goes on (every secret-shaped value it detects), so a
copy redacted before a value was learned may still hold that value: the journal
remembers how many values the redactor knew when it redacted each copy, and before
the report is built it looks for the values learned since, raw and as JSON escapes
them, in the copy serialised whole. A copy that holds one is redacted again. Every
value the final redactor knows is absent from the report, as when every decision was
redacted at the end.

The journal line is the decision as the report writes it (``thresher.tribunal.reported``:
one compact line, an offline decision without its panel), so the report reuses the
line itself, not only the redacted copy: ``final`` hands the report each decision with
its line.

What the run keeps of a decision until its report is the journal's to say: with
``panel_shown`` the journal keeps whole only the decisions a report will show with their
panel (see ``thresher.scan.decide``), and of every other one its redacted copy as its
line reads back (``reported``: the offline panel dropped). ``write`` returns what it kept,
and the run holds that, not the decision: nothing renders a dismissed offline
decision's panel.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO, TextIO, get_args

import ahocorasick  # type: ignore[import-not-found]
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

from thresher.errors import ThresherError
from thresher.redaction.redactor import Redactor
from thresher.tribunal.decisions import Decision
from thresher.tribunal.reported import decision_line, reported


def redacted_json(redactor: Redactor, model: BaseModel, *, indent: int | None = None) -> str:
    """Redact the model, then serialise (see ``dumped``).

    Not the serialised text: JSON escapes a value holding a quote or a backslash, so
    redacting it would miss the value. Not the dumped dict either: it no longer says
    which strings are structure, and a value equal to a rule name ("Secret Keyword")
    or a path would rename the finding. ``Redactor.model`` keeps the fields the
    models mark ``Structural`` and redacts the free text.
    """
    return dumped(redactor.model(model), indent=indent)[0]


def dumped(model: BaseModel, *, indent: int | None = None) -> tuple[str, bool]:
    """The model as JSON text, and whether pydantic's own serialiser wrote it.

    pydantic's serialiser is several times faster than ``json.dumps`` of a dumped dict,
    but refuses text it cannot encode as UTF-8 (a lone surrogate a YAML escape made);
    ``json.dumps`` writes that as it did before.
    """
    try:
        return model.model_dump_json(indent=indent), True
    except PydanticSerializationError:
        data = model.model_dump(mode="json")
        return json.dumps(data, ensure_ascii=False, indent=indent), False


# Where a journal line lies in ``decisions.jsonl``: from ``start`` to ``end`` (bytes, its
# line break included).
LineAt = tuple[int, int]


class JournalReadError(ThresherError):
    """``decisions.jsonl`` cannot be read back for the report."""


@dataclass(frozen=True)
class _Kept:
    decision: Decision  # as decided: the report checks it is the same object
    redacted: Decision
    # The journal line: ``redacted`` as the report writes it (``decision_line``), where
    # it lies in the journal file, or in UTF-8 when the journal is no file.
    line: LineAt | bytes
    exact: bool  # ``line`` is pydantic's JSON, whose escapes ``_escaped`` reproduces
    known: int  # how many values the redactor knew before it redacted this copy
    whole: bool  # kept with its panel (``panel_shown``): its line leaves the panel out


class DecisionJournal:
    """``decisions.jsonl``, and the redacted copy of each decision for the report."""

    def __init__(
        self,
        handle: TextIO,
        redactor: Redactor,
        *,
        panel_shown: Callable[[Decision], bool] | None = None,
    ) -> None:
        """``panel_shown`` tells a decision a report shows with its panel; None: every one
        (see the module docstring)."""
        self.handle = handle
        self.redactor = redactor
        self._kept: dict[str, _Kept] = {}
        self._panel_shown = panel_shown
        # The run keeps where each line lies in the file, not the line (1.5 KB a
        # decision), and the report reads them back one at a time (``lines``).
        self._path: str | None = None
        self._end = 0
        try:
            handle.fileno()
            self._end = handle.tell()
            self._path = str(handle.name)
        except (OSError, ValueError, AttributeError):  # not a file (a test's StringIO)
            pass

    def write(self, decision: Decision) -> Decision:
        """Journal ``decision``; returns what the run keeps of it until the report."""
        known = self.redactor.known  # read first: values learned while redacting count
        whole = decision.escalated or self._shown(decision)
        # A decision kept without its panel is redacted without it: its line leaves the
        # panel out, and nothing else reads it (the panel's parts were redacted as each
        # was submitted; walking them again cost a tenth of the journal's time).
        redacted = self.redactor.model(decision if whole else reported(decision))
        line, exact = decision_line(redacted)
        return self._write(decision, redacted, line, exact, known=known, whole=whole)

    def write_redacted(
        self, decision: Decision, redacted: Decision, line: str, exact: bool, *, known: int
    ) -> Decision:
        """A decision someone else redacted (a worker process of the parallel offline run):
        ``line`` is ``redacted`` as ``decision_line`` writes it (``exact``: by pydantic),
        and ``known`` at most the values the redactor had when it redacted it. Returns
        what the run keeps of it: the decision, or its redacted copy without the panel."""
        whole = decision.escalated or self._shown(decision)
        return self._write(decision, redacted, line, exact, known=known, whole=whole)

    def _write(
        self,
        decision: Decision,
        redacted: Decision,
        line: str,
        exact: bool,
        *,
        known: int,
        whole: bool,
    ) -> Decision:
        self.handle.write(line + "\n")
        self.handle.flush()
        at: LineAt | bytes
        if self._path is not None:
            start, self._end = self._end, self.handle.tell()
            at = (start, self._end)
        else:
            at = _utf8(line)
        if not whole:
            # The line leaves the panel out too: it reads back as this copy.
            decision = redacted = reported(redacted)
        self._kept[decision.finding.id] = _Kept(decision, redacted, at, exact, known, whole)
        return decision

    def _shown(self, decision: Decision) -> bool:
        return self._panel_shown is None or self._panel_shown(decision)

    def close(self) -> None:
        self.handle.close()

    def redacted(self, decisions: Sequence[Decision]) -> tuple[Decision, ...]:
        """Every decision redacted with all the redactor knows now (see the module docstring)."""
        return tuple(decision for decision, _ in self.final(decisions))

    def final(self, decisions: Sequence[Decision]) -> list[tuple[Decision, LineAt | bytes]]:
        """Every decision redacted with all the redactor knows now, with its report line
        (``decision_line``, UTF-8, or where the journal file holds it: ``lines`` reads
        them): the journaled copy and line where no value learned since can be in them.

        A copy kept without its panel is looked for in its own line (read back from the
        journal file), not in a dump of it: the line holds every text of the copy that
        redaction can change, except a field left at its default, and ``_Since`` says
        when a value learned since is in one of those (then the copy is dumped whole)."""
        kept = [self._kept.get(d.finding.id) for d in decisions]
        oldest = min((k.known for k in kept if k is not None), default=self.redactor.known)
        since = _Since((v for v, _ in self.redactor.learned_since(oldest)), oldest)
        out: list[tuple[Decision, LineAt | bytes]] = []
        source: BinaryIO | None = None
        try:
            for decision, copy in zip(decisions, kept, strict=True):
                if copy is None or copy.decision is not decision:
                    redacted = self.redactor.model(decision)  # never journaled: redact it now
                elif not copy.exact:
                    redacted = self.redactor.model(copy.redacted)
                elif not since:
                    out.append((copy.redacted, copy.line))
                    continue
                elif copy.whole or since.in_defaults:
                    if not since.found_in_model(copy.redacted, copy.known):
                        out.append((copy.redacted, copy.line))
                        continue
                    redacted = self.redactor.model(copy.redacted)
                else:
                    line = copy.line
                    if not isinstance(line, bytes):
                        source = source if source is not None else self._open()
                        line = _read(source, line)
                    if not since.found_in_utf8(line, copy.known):
                        out.append((copy.redacted, copy.line))
                        continue
                    redacted = self.redactor.model(copy.redacted)
                out.append((redacted, _utf8(decision_line(redacted)[0])))
        finally:
            if source is not None:
                source.close()
        return out

    def lines(self, final: Iterable[tuple[Decision, LineAt | bytes]]) -> Iterator[bytes]:
        """The report lines of ``final``, in its order, UTF-8, read back from the journal
        file one at a time where they lie there."""
        source: BinaryIO | None = None
        try:
            for _, line in final:
                if isinstance(line, bytes):
                    yield line
                    continue
                if source is None:
                    source = self._open()
                yield _read(source, line)
        finally:
            if source is not None:
                source.close()

    def _open(self) -> BinaryIO:
        assert self._path is not None  # a line lies in the file only when there is one
        try:
            return Path(self._path).open("rb")  # closed by ``lines``
        except OSError as exc:
            raise JournalReadError(
                f"cannot read back {self._path}: {exc.strerror or exc}",
                hint="the run directory must stay in place until the run ends",
            ) from exc


def _read(source: BinaryIO, at: LineAt) -> bytes:
    """The journal line at ``at``, without its line break."""
    start, end = at
    try:
        source.seek(start)
        data = source.read(end - start)
    except OSError as exc:
        raise JournalReadError(
            f"cannot read back {source.name}: {exc.strerror or exc}",
            hint="the run directory must stay in place until the run ends",
        ) from exc
    if len(data) != end - start or not data.endswith(b"\n"):
        raise JournalReadError(
            f"{source.name} changed while the run wrote it",
            hint="the run directory must stay in place until the run ends",
        )
    return data[:-2] if data.endswith(b"\r\n") else data[:-1]


def _utf8(line: str) -> bytes:
    # A lone surrogate (a YAML escape) is written as json.dumps wrote it: kept, not lost.
    return line.encode("utf-8", "surrogatepass")


class _Since:
    """The values learned after some point, found in a journal line in one pass."""

    def __init__(self, values: Iterable[str], first: int) -> None:
        self._automaton: Any = None
        self._all = False  # a value pydantic cannot escape: every copy is checked again
        self.in_defaults = False  # one is in a field's default text (see ``final``)
        automaton = ahocorasick.Automaton()
        forms: set[str] = set()
        defaults = _default_texts()
        for index, value in enumerate(values, start=first):
            escaped = _escaped(value)
            if escaped is None:
                self._all = True
                continue
            for form in {value, escaped}:
                _, latest = automaton.get(form, (form, index))
                automaton.add_word(form, (form, max(latest, index)))
                forms.add(form)
                self.in_defaults = self.in_defaults or any(form in text for text in defaults)
        if len(automaton):
            automaton.make_automaton()
            self._automaton = automaton
        # Most lines hold none of them: one linear-time pass over the line's bytes says so
        # (hostile text, learned from the repository: escaped literals for RE2 only).
        self._any = _literals(forms) if forms else None

    def __bool__(self) -> bool:
        """Whether any value was learned since (else no copy can hold one)."""
        return self._all or self._automaton is not None

    def found_in_model(self, redacted: Decision, known: int) -> bool:
        """Whether the redacted copy, panel included (the line may leave it out, but
        SARIF and Markdown read it), holds a value learned after it knew ``known``."""
        if not self:
            return False  # nothing learned since: no need to serialise it
        line, exact = dumped(redacted)
        return not exact or self.found_in(line, known)

    def found_in_utf8(self, line: bytes, known: int) -> bool:
        """``found_in`` for a journal line as the file holds it (pydantic's JSON)."""
        if self._all:
            return True
        if self._any is not None and self._any.search(line) is None:
            return False
        return self.found_in(line.decode("utf-8", "surrogatepass"), known)

    def found_in(self, line: str, known: int) -> bool:
        """Whether ``line`` holds a value the redactor learned after it knew ``known``."""
        if self._all:
            return True
        if self._automaton is None:
            return False
        return any(index >= known for _, (_, index) in self._automaton.iter(line))


def _literals(forms: Iterable[str]) -> Any:
    """One RE2 program matching any of ``forms`` as UTF-8 bytes, or None when it cannot
    be built (then every line goes through the automaton)."""
    import re2  # type: ignore[import-untyped]  # lazy: only once values were learned since

    try:
        encoded = [form.encode("utf-8") for form in forms]
        options = re2.Options()
        options.max_mem = 64 << 20
        return re2.compile(b"|".join(re2.escape(form) for form in encoded), options)
    except (re2.error, UnicodeEncodeError):
        return None


@cache
def _default_texts() -> tuple[str, ...]:
    """Every text a decision's fields (and its models' fields) hold by default: a line
    leaves a field at its default out, and redaction could change one that holds a value."""
    texts: set[str] = set()
    seen: set[type[BaseModel]] = set()

    def visit(kind: type[BaseModel]) -> None:
        if kind in seen:
            return
        seen.add(kind)
        for info in kind.model_fields.values():
            if not info.is_required():
                _texts_in(info.get_default(call_default_factory=True), texts)
            for model in _models_in(info.annotation):
                visit(model)

    visit(Decision)
    return tuple(sorted(texts))


def _texts_in(value: Any, into: set[str]) -> None:
    if isinstance(value, str):
        into.add(str(value))
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _texts_in(getattr(value, name), into)
    elif isinstance(value, dict):
        for key, item in value.items():
            _texts_in(key, into)
            _texts_in(item, into)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _texts_in(item, into)


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in get_args(annotation):
        yield from _models_in(arg)


def _escaped(value: str) -> str | None:
    """``value`` as pydantic writes it inside a JSON string (each character escaped on
    its own, so a value inside a longer string is escaped the same way); None when
    pydantic cannot write it."""
    try:
        return to_json(value).decode("utf-8")[1:-1]
    except PydanticSerializationError:
        return None
