"""Which lines of a Python file are docstrings: documentation inside source code.

A plugin's module docstring shows its users a credentials file to write
(``dns_cloudflare_api_token = 0123456789abcdef...`` under ``.. code-block:: ini``);
Sphinx renders it as the plugin's manual. The line looks like configuration to a
scanner, but it is prose that no program loads, so the placement rule treats it as
documentation (``placement.Placement.DOCUMENTATION``).

Only a docstring counts: the string that is the first statement of a module, a class
or a function. Any other triple-quoted string may be a template a program writes out
(``CONFIG = \"\"\"password = ...\"\"\"``) and stays deployable text. The file is parsed
with ``ast``, which is linear in the text; a file that does not parse (another
Python's syntax, a template, hostile bytes, nesting deeper than the parser allows) has
no docstrings.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence

from thresher.scoring.collector import collector_paused

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")

_WITH_DOCSTRINGS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
# The fields of a node that hold statements (or, for ``try`` and ``match``, the clauses
# that do): every place a ``def`` or a ``class`` can be written.
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def python_source(path: str) -> bool:
    return path.lower().endswith(PYTHON_SUFFIXES)


def docstring_lines(lines: Sequence[str]) -> frozenset[int]:
    """1-based numbers of the lines inside a docstring (its quotes' lines included).

    The cyclic collector is paused while the tree lives (``collector``): a large file is
    hundreds of thousands of nodes, none in a cycle, and the collections they started
    walked the scan's whole heap again and again, doubling the parse's cost."""
    with collector_paused():
        return _docstring_lines(lines)


def _docstring_lines(lines: Sequence[str]) -> frozenset[int]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in old code: still a docstring
            tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    numbers: set[int] = set()
    # Only statements hold a docstring's owner (no expression contains a ``def`` or a
    # ``class``), so the walk descends through statement bodies alone: ``ast.walk`` would
    # visit every expression node too, several times as many.
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, _WITH_DOCSTRINGS) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                and first.end_lineno is not None
            ):
                numbers.update(range(first.lineno, first.end_lineno + 1))
        for field in _BODIES:
            pending.extend(getattr(node, field, ()))
    return frozenset(numbers)
