"""detect-secrets' plugin and filter calls, without its per-call dependency injection.

detect-secrets calls every plugin and filter through ``call_function_with_arguments``,
which inspects the callable, builds the set of its parameter names and intersects it
with the arguments on offer, on every call: profiling the scan of the dev corpus tree
put a third of the scanner's time in that wrapper (120,000 calls). The names a
callable takes and the arguments each call site offers never change during a scan,
so the intersection is computed once here, when the engine is built, and each call
passes exactly the keyword arguments the injector would have passed.

The rest is kept as detect-secrets does it: the filters run in its order, the first
that answers true ends the chain, and a filter that raises ``TypeError`` counts as not
applying (the injector calls a filter with only the arguments on offer, so a filter
that needs one more always raises it; such a filter is left out of the chain up front,
which is the same answer). The ``log.info`` line detect-secrets writes when a filter
applies is not written: its logger is at its default level, errors only (thresher never
changes it), so that line was never shown.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from detect_secrets.core.potential_secret import PotentialSecret
from detect_secrets.core.scan import get_filters_with_parameter
from detect_secrets.util.inject import call_function_with_arguments, get_injectable_variables

_Call = Callable[[dict[str, Any]], Any]


def _bound(function: Any, offered: frozenset[str]) -> _Call | None:
    """A call of ``function`` with the arguments the injector would pass it, or None
    when that call can only raise ``TypeError`` (a required argument is not on offer)."""
    if not inspect.isfunction(function):  # a method or other callable: the injector itself
        return lambda values: call_function_with_arguments(function, **values)
    names = tuple(sorted(set(get_injectable_variables(function)) & offered))
    try:
        inspect.signature(function).bind(**dict.fromkeys(names))
    except TypeError:
        return None
    return lambda values: function(**{name: values[name] for name in names})


class FilterChain:
    """``_is_filtered_out(required_filter_parameters=required, **values)`` for calls
    that always offer the arguments named in ``offered``."""

    def __init__(self, required: tuple[str, ...], offered: tuple[str, ...]) -> None:
        chain = (_bound(f, frozenset(offered)) for f in get_filters_with_parameter(*required))
        self._calls = [call for call in chain if call is not None]

    def __call__(self, values: dict[str, Any]) -> bool:
        for call in self._calls:
            try:
                if call(values):
                    return True
            except TypeError:  # as detect-secrets: a filter that does not fit is skipped
                continue
        return False


_LINE_ARGUMENTS = ("filename", "line", "line_number", "context")


class PluginCall:
    """``plugin.analyze_line`` as ``_scan_line`` injects it: the same arguments."""

    def __init__(self, plugin: Any) -> None:
        method = plugin.analyze_line
        names = set(get_injectable_variables(method)) & set(_LINE_ARGUMENTS)
        self._method = method
        self._names = tuple(name for name in _LINE_ARGUMENTS if name in names)

    def __call__(self, values: dict[str, Any]) -> Any:
        return self._method(**{name: values[name] for name in self._names})


class LineScan:
    """``_scan_line`` and the filters ``_process_line_based_plugins`` runs on its
    secrets, for one configured session: the line filters, each plugin, its secret
    filters, then the context filters — the same calls in the same order. And the
    filters ``scan_file`` asks of a file's name before it reads the file."""

    def __init__(self) -> None:
        # Whether a file is skipped by its name alone (``scan_file``'s first step).
        self.name_filtered = FilterChain(("filename",), ("filename",))
        self.line_filtered = FilterChain(("line",), ("filename", "line", "context"))
        self._secret_filtered = FilterChain(("secret",), ("filename", "secret", "plugin", "line"))
        self._context_filtered = FilterChain(
            ("context",), ("filename", "secret", "plugin", "line", "context")
        )
        self._plugin_calls: dict[int, PluginCall] = {}

    def secrets(
        self, plugin: Any, filename: str, line: str, line_number: int, context: Any
    ) -> list[PotentialSecret]:
        """What ``_scan_line`` yields and the context filters then keep."""
        call = self._plugin_calls.get(id(plugin))
        if call is None:
            call = self._plugin_calls[id(plugin)] = PluginCall(plugin)
        found = call(
            {"filename": filename, "line": line, "line_number": line_number, "context": context}
        )
        if not found:
            return []
        kept: list[PotentialSecret] = []
        for secret in found:
            values = {
                "filename": secret.filename,
                "secret": secret.secret_value,
                "plugin": plugin,
                "line": line,
            }
            if self._secret_filtered(values):
                continue
            values["context"] = context
            if not self._context_filtered(values):
                kept.append(secret)
        return kept
