"""The scan use case behind ``thresher scan``, ``thresher deps`` and ``thresher ci``:
``run.run_scan`` takes a ``ScanRequest`` (``outcome``) through candidates, dependencies,
history, assessment, decisions and the run report, and hands back a ``ScanOutcome``."""
