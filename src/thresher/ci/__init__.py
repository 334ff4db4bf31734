"""``thresher ci``: what a GitHub Actions step needs, from the documented runner environment.

- :mod:`.event` reads the runner's variables and the event payload;
- :mod:`.scope` turns the event into what to scan (a git range or the whole tree);
- :mod:`.commands` writes workflow commands, step outputs and the job summary;
- :mod:`.comment` keeps one sticky pull-request comment up to date;
- :mod:`.runner` is the use case that ties them to ``run_scan``.

Nothing here imports PyGithub at module level: ``thresher --help`` stays fast.
"""
