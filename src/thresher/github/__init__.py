"""GitHub REST access for ``thresher triage``: secret-scanning alerts, their locations,
file contents at a commit, and resolving alerts.

Import the submodules directly (``thresher.github.client``, ``.models``, ``.errors``).
This package file stays empty so importing it costs nothing, and PyGithub itself is
imported only inside the client's functions, never when thresher starts.
"""
