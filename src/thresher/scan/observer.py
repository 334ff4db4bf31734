"""What a running scan tells whoever started it: one observer, every event a no-op here.

``run_scan`` takes one ``ScanObserver`` and calls it as the pipeline's stages finish, in
this order, from the thread that called ``run_scan``:

1. ``candidates_found``: the secret scan is done (never for ``thresher deps``, which
   reads no file for secrets);
2. ``dependencies_read``: the lockfiles are read and looked up (only with ``deps``);
3. ``history_read``: the history index every agent shares is built (always; without
   secrets to look for it reads nothing);
4. ``decided``: one finding is decided and in the journal, once per finding, as
   the findings are decided.

The CLI's progress display (``thresher.cli.scan_cmd``) and the Action's log
(``thresher.ci.runner``) override what they show; the others stay no-ops. An observer
only watches: what it is handed is the run's own, never to be changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from thresher.git.history import HistoryIndex
    from thresher.sources.dependencies import DependencyScan
    from thresher.sources.scan import ScanResult
    from thresher.tribunal.decisions import Decision


class ScanObserver:
    """The events of a scan (module docstring); subclass and override those you show."""

    def candidates_found(self, scan: ScanResult) -> None:
        """The secret scan is done: its findings, counts and skipped files."""

    def dependencies_read(self, dependencies: DependencyScan) -> None:
        """The dependency scan is done: lockfiles read, vulnerable dependencies found."""

    def history_read(self, history: HistoryIndex) -> None:
        """The history of the values found is read (``history.stats`` says how much)."""

    def decided(self, decision: Decision) -> None:
        """One finding is decided and written to the run's journal."""
