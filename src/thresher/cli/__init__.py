"""The ``thresher`` command line: parse, build frozen options, call one use case, exit."""

from thresher.cli.app import app, main

__all__ = ["app", "main"]
