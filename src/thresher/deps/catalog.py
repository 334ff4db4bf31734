"""Where the tribunal's ``get_vulnerability`` tool looks an advisory up, and how it asks
whether a version is inside an advisory's range.

The run provides a ``VulnerabilityCatalog``: the OSV client (online, cached in the
store) or the offline database implement ``get``; tests use ``InMemoryCatalog``. The
tribunal depends on this interface only, never on how the records were fetched.

The range question is asked through a ``RangeCheck`` so the ecosystem-correct comparison
(``thresher.deps.versions.affected``: PEP 440, SemVer, Go pseudo-versions, RubyGems,
Composer) is injected, not re-implemented here. ``default_range_check`` finds that
function when it is installed and otherwise answers "cannot tell" (None), which the
heuristic treats as "escalate", never as "not affected".
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from thresher.deps.model import Affected, Ecosystem, Vulnerability

# (ecosystem, version, affected entry) -> inside the range, outside it, or None: unknown.
RangeCheck = Callable[[Ecosystem, str, Affected], bool | None]


@runtime_checkable
class VulnerabilityCatalog(Protocol):
    """The advisories a run knows, by OSV id (or alias)."""

    def get(self, vuln_id: str) -> Vulnerability | None: ...


class InMemoryCatalog:
    """A catalog of records held in memory, found by id or by any alias."""

    def __init__(self, vulnerabilities: Iterable[Vulnerability] = ()) -> None:
        self._by_id: dict[str, Vulnerability] = {}
        for vuln in vulnerabilities:
            self.add(vuln)

    def add(self, vuln: Vulnerability) -> None:
        self._by_id[vuln.id] = vuln
        for alias in vuln.aliases:
            self._by_id.setdefault(alias, vuln)

    def get(self, vuln_id: str) -> Vulnerability | None:
        return self._by_id.get(vuln_id)


def _unknown(_ecosystem: Ecosystem, _version: str, _affected: Affected) -> bool | None:
    return None


def default_range_check() -> RangeCheck:
    """``thresher.deps.versions.affected`` when it is installed, else "cannot tell".

    Looked up at run time, so this module does not depend on the comparators' module
    (built beside it) and a missing comparator degrades to escalation, not to a guess.
    """
    try:
        module = importlib.import_module("thresher.deps.versions")
    except ImportError:
        return _unknown
    check = getattr(module, "affected", None)
    if not callable(check):
        return _unknown

    def ask(ecosystem: Ecosystem, version: str, affected: Affected) -> bool | None:
        try:
            answer = check(ecosystem, version, affected)
        except Exception:  # a version its grammar rejects: "cannot tell", never a guess
            return None
        return answer if isinstance(answer, bool) else None

    return ask


def version_in_range(
    vuln: Vulnerability, ecosystem: Ecosystem, package: str, version: str, check: RangeCheck
) -> bool | None:
    """Whether ``package@version`` is inside any of the advisory's ranges for it.

    True when any entry says inside; False only when there are entries for the package
    and every one says outside; None when the advisory does not list the package or the
    check cannot tell for some entry (ranges we cannot evaluate are not evidence).
    """
    entries = vuln.affecting(ecosystem, package)
    if not entries:
        return None
    answers = [
        True if version in entry.versions else check(ecosystem, version, entry) for entry in entries
    ]
    if any(answer is True for answer in answers):
        return True
    if all(answer is False for answer in answers):
        return False
    return None
