"""Finding sources and the de-duplication that turns their reports into findings.

Implementations are siblings of ``base`` (``detect_secrets``; GitHub alerts); import
them from their modules, so that using one never imports another's dependencies.
"""

from thresher.findings.sources.base import Source, Sourced, SourceError
from thresher.findings.sources.dedupe import Deduped, dedupe, finding_id, in_test_code

__all__ = ["Deduped", "Source", "SourceError", "Sourced", "dedupe", "finding_id", "in_test_code"]
