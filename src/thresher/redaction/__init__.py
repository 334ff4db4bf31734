"""Redaction: raw secret values never leave the process. The ``Redactor`` (``redactor``)
replaces the run's candidate values and, with the ``Detector`` (``detector``), every other
secret-shaped value its RE2 patterns (``patterns``) recognise; distinct from finding
detection (``thresher.findings``), which decides what is a candidate."""
