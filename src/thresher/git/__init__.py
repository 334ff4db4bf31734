"""Reading git: what a scan lists and reads (``scope``: files, diffs, blobs), the
history of the values it found (``history``), and streaming ``git log`` (``stream``)."""
