"""Finding sources and the de-duplication that turns their reports into findings.

Implementations are siblings of ``base`` (``detect_secrets``, ``osv``; GitHub alerts);
import them from their modules, so that using one never imports another's dependencies.
``scan`` (the candidate scan) and ``dependencies`` (lockfiles -> OSV) run a source through
``dedupe``. This package sits above ``thresher.findings`` and ``thresher.deps``, which
never import it.
"""

from thresher.findings.model import in_test_code
from thresher.sources.base import Source, Sourced, SourceError
from thresher.sources.dedupe import Deduped, dedupe, finding_id

__all__ = ["Deduped", "Source", "SourceError", "Sourced", "dedupe", "finding_id", "in_test_code"]
