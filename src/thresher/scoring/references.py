"""Who references a file: the repository signal that separates a test certificate
from a deployed one.

A PEM key under ``certs/`` or a JWT in a config fixture looks deployable from its
path alone; what gives it away is that only test code ever names the file. One
pass over the repository's text files finds every file that mentions any of the
basenames asked about, however many there are: RE2 finds where a name may be, and an
Aho-Corasick automaton reads only those stretches.
The pass is bounded (files over ``MAX_FILE_BYTES`` are skipped, at most
``MAX_TOTAL_BYTES`` are read) so a huge repository cannot stall a scan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Protocol

import ahocorasick  # type: ignore[import-not-found]

from thresher.findings.filekind import FileKind, file_kind, in_test_scope
from thresher.findings.options import ScanError
from thresher.git import scope as gitscope
from thresher.memory import release_freed
from thresher.scoring.reading import read_head

# Test files grow large (a Go package's tests in one 800 kB file): they are read whole up
# to this size; the total below bounds the pass.
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
# RE2's memory for the alternation of the names looked for (thousands fit); beyond, the
# automaton reads every byte as it would without RE2.
_FINDER_MAX_MEM = 64 << 20
# Matches RE2 reports in one file before the automaton reads the rest of it whole.
_WINDOW_MATCHES = 64
MIN_NAME_LENGTH = 5  # shorter basenames ("a.pem") match too much text to mean anything

# Files whose candidates are keys, certificates or tokens kept as files.
KEY_FILE_SUFFIXES = frozenset(
    {".pem", ".key", ".crt", ".cer", ".der", ".p12", ".pfx", ".jks", ".jwk", ".jwt", ".pub"}
)


class Referenced(StrEnum):
    """How the rest of the repository refers to a file."""

    UNKNOWN = "unknown"  # not looked up (not a key file, or the budget ran out)
    NOWHERE = "nowhere"
    TESTS_ONLY = "tests-only"
    CODE = "code"


# Kinds of file whose candidates a lookup can reclassify: configuration and data files
# (``server/configs/authorization.conf``, ``one.creds``) that only tests load are test
# material wherever they sit. Source code is named by imports, not by file name.
_LOOKUP_KINDS = frozenset({FileKind.CONFIG, FileKind.OTHER})


@lru_cache(maxsize=1 << 16)
def wants_lookup(path: str, rule_id: str) -> bool:
    """Key material kept in its own file, and configuration or data files, outside test
    code, are worth a lookup (asked once a path and rule: every finding of a file asks)."""
    if in_test_scope(path):
        return False
    suffix = PurePosixPath(path).suffix.lower()
    return (
        suffix in KEY_FILE_SUFFIXES
        or rule_id in {"Private Key", "JSON Web Token"}
        or file_kind(path) in _LOOKUP_KINDS
    )


def references(
    root: Path, paths: Iterable[str], tree: Sequence[gitscope.Listed] | None = None
) -> dict[str, Referenced]:
    """path -> how other files of the repository under ``root`` refer to it.

    One step further than the files that name it: a configuration or data file that
    names it and is itself named only by test code is test material too. Test
    fixtures reference each other (``server/configs/tls.conf`` names
    ``certs/key.pem``, and only ``*_test.go`` names ``tls.conf``), so without this
    step one fixture referencing another made both look deployable.

    ``tree``: the root's files as ``gitscope.list_files`` listed them for the scan; the
    pass lists them itself without it. Listing again spawned git from a process grown
    to the size of the scan, which a memory sampler can catch counted twice."""
    wanted = sorted(set(paths))
    result = dict.fromkeys(wanted, Referenced.UNKNOWN)
    if tree is not None:
        listed: Sequence[gitscope.Listed] = tree
    else:
        try:
            listed, _ = gitscope.list_files(root)
        except ScanError:
            return result
    items = sorted(listed, key=lambda i: i.path)

    def may_be_test_material(referrer: str) -> bool:
        return not in_test_scope(referrer) and file_kind(referrer) in _LOOKUP_KINDS

    def decides(path: str, referrer: str) -> bool:
        """A file that names ``path`` and is neither test code nor such material makes
        it ``CODE`` (below), whoever else names it."""
        return (
            referrer != path and not in_test_scope(referrer) and not may_be_test_material(referrer)
        )

    first, complete = _referrers(items, wanted, decides)
    if first is None:
        return result

    # Only where every other file naming a path is test code or such a file does the
    # second step decide anything: a source file that names it makes it ``CODE``
    # whoever names the rest, so the files beside such a file are not looked up.
    middle_of: set[str] = set()
    for path in wanted:
        others = first.get(path, set()) - {path}
        if all(in_test_scope(p) or may_be_test_material(p) for p in others):
            middle_of.update(p for p in others if may_be_test_material(p))
    middle = sorted(middle_of)
    second: dict[str, set[str]] = {}
    if middle:
        # A file named by one that is not test code is not test-like (below).
        found, _ = _referrers(
            items, middle, lambda path, referrer: referrer != path and not in_test_scope(referrer)
        )
        second = found or {}

    def test_like(referrer: str) -> bool:
        if in_test_scope(referrer):
            return True
        named_by = second.get(referrer, set()) - {referrer}
        return bool(named_by) and all(in_test_scope(p) for p in named_by)

    for path in wanted:
        others = first.get(path, set()) - {path}
        if others:
            tests = all(test_like(p) for p in others)
            result[path] = Referenced.TESTS_ONLY if tests else Referenced.CODE
        elif complete and path in first:
            result[path] = Referenced.NOWHERE
    return result


def _referrers(
    items: Sequence[gitscope.Listed],
    wanted: Sequence[str],
    settles: Callable[[str, str], bool],
) -> tuple[dict[str, set[str]] | None, bool]:
    """path -> the files whose text names its basename, in one bounded pass (None when
    no basename is long enough to mean anything), and whether the pass read them all.

    ``settles(path, referrer)``: whether that referrer alone decides what the caller
    makes of ``path``, whoever else names it. Once every path of a basename is settled
    the name is looked for no more (its referrers stay those found so far): the names
    every file mentions (``README.md``, ``config.json``) are settled in the first files
    and were most of the pass's matches. The search is remade without them once they
    have been met ``_REMAKE_AFTER`` times since, and the pass ends when no name is left."""
    # Bytes are matched as latin-1 text: one character per byte, any encoding on disk.
    by_name: dict[str, list[str]] = {}
    for path in wanted:
        name = PurePosixPath(path).name
        if len(name) >= MIN_NAME_LENGTH:
            key = name.encode("utf-8", "surrogateescape").decode("latin-1")
            by_name.setdefault(key, []).append(path)
    if not by_name:
        return None, False
    referrers: dict[str, set[str]] = {name: set() for name in by_name}
    unsettled = {name: set(owners) for name, owners in by_name.items()}
    search = _Search(by_name)
    wasted = 0  # mentions met of names settled since the search was made
    budget = MAX_TOTAL_BYTES
    complete = True
    for item in items:
        if item.size > MAX_FILE_BYTES or gitscope.is_own_output(item.path):
            continue
        if item.size > budget:
            complete = False
            break
        try:
            data = read_head(item.disk, MAX_FILE_BYTES)
        except OSError:
            continue
        budget -= len(data)
        if b"\0" in data[:4096]:
            continue
        stretches = search.stretches(data)
        if not stretches:
            continue  # no name anywhere: most files, never decoded
        text = data.decode("latin-1")  # one character a byte: the same offsets
        for begin, stop in stretches:
            for end, name in search.automaton.iter(text, begin, stop):
                start = end - len(name) + 1
                # A whole file name, not the tail of another (``prod-key.pem`` is no
                # mention of ``key.pem``).
                if start and (text[start - 1].isalnum() or text[start - 1] in "-_"):
                    continue
                named = referrers[name]
                if item.path in named:
                    continue
                named.add(item.path)
                pending = unsettled.get(name)
                if pending is None:
                    wasted += 1
                    continue
                pending.difference_update([p for p in pending if settles(p, item.path)])
                if not pending:
                    del unsettled[name]
        if not unsettled:
            complete = False  # not read to the end, though nothing read could matter
            break
        if wasted >= _REMAKE_AFTER:
            search, wasted = _Search(unsettled), 0
    # Every file was read whole, as bytes and text: give the freed heap back before the
    # scorer's own allocations stack on top of this pass's high-water mark.
    release_freed()
    return {path: referrers[name] for name, owners in by_name.items() for path in owners}, complete


# Mentions of settled names met before the search is remade without them: a remaking
# costs about as much as that many matches.
_REMAKE_AFTER = 64


class _Search:
    """The names looked for: RE2 finds where one may be (``_windows``), an Aho-Corasick
    automaton reads those stretches for every occurrence."""

    def __init__(self, names: Iterable[str]) -> None:
        chosen = list(names)
        self.automaton = ahocorasick.Automaton()
        for name in chosen:
            self.automaton.add_word(name, name)
        self.automaton.make_automaton()
        self._finder = _finder(chosen)
        self._longest = max(map(len, chosen))

    def stretches(self, data: bytes) -> list[tuple[int, int]]:
        if self._finder is None:
            return [(0, len(data))]
        return list(_windows(self._finder, data, self._longest))


class _Finder(Protocol):
    def finditer(self, data: bytes) -> Iterator[_Match]: ...


class _Match(Protocol):
    def span(self) -> tuple[int, int]: ...


def _finder(names: Iterable[str]) -> _Finder | None:
    """One RE2 alternation of the names, matched on the file's bytes (latin-1: one
    character per byte, as the automaton reads them); None when RE2 refuses it (too many
    names for its memory), and the automaton reads every byte as before."""
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension, not needed at start

    options = re2.Options()
    options.log_errors = False
    options.encoding = re2.Options.Encoding.LATIN1
    options.max_mem = _FINDER_MAX_MEM
    pattern = b"|".join(re2.escape(name.encode("latin-1")) for name in names)
    try:
        finder: _Finder = re2.compile(pattern, options)
    except re2.error:
        return None
    return finder


def _windows(finder: _Finder, data: bytes, longest: int) -> Iterator[tuple[int, int]]:
    """The stretches of ``data`` where a name may occur, for the automaton to read.

    RE2's leftmost matches do not overlap, but every occurrence of a name starts inside
    one of them (the scan resumes where a match ends and finds the leftmost start), so
    it lies within ``longest`` characters after a match's start. Overlapping stretches
    are merged, so no byte is read twice and the automaton's state is never cut short:
    the same occurrences as one pass over the whole file, at RE2's speed.

    Each match costs a Python object, so a file dense with names (a listing of every
    fixture) would cost more than the automaton alone: past ``_WINDOW_MATCHES`` matches
    the last stretch runs to the end of the file, which the automaton reads in one go.
    """
    begin = stop = -1
    for count, match in enumerate(finder.finditer(data)):
        start, end = match.span()
        reach = min(len(data), end + longest - 1)
        if count == _WINDOW_MATCHES:
            reach = len(data)
        if start > stop:
            if stop >= 0:
                yield begin, stop
            begin = start
        stop = max(stop, reach)
        if count == _WINDOW_MATCHES:
            break
    if stop >= 0:
        yield begin, stop
