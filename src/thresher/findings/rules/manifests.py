"""Kubernetes ``Secret`` manifests: the values under ``data:`` and ``stringData:``.

A Secret's ``data:`` entries are base64, so no token rule sees what they hold and
detect-secrets at best reports an opaque base64 string; the credential is the decoded
text. This reader finds each ``kind: Secret`` document (multi-document YAML split on
``---``, a JSON manifest, a ``kind: List`` of Secrets), reads it with PyYAML's safe
composer -- nodes carry their line, nothing is constructed, no alias is expanded --
and returns every entry's value with the line of its key.

It is bounded like everything else on the scan's path: it runs only on text where the
rule's RE2 gate saw ``kind: Secret``, only on a document under ``MAX_DOCUMENT_CHARS``
(a Secret is at most 1 MiB on a cluster; a manifest that large is not one) and on
at most ``_MAX_PARSED_CHARS`` and ``_MAX_PARSED_ITEMS`` lines and flow items of one
file (the reader's cost is per node), with libyaml's reader when PyYAML has it, never
on flow collections nested deeper than ``_MAX_FLOW_DEPTH`` (PyYAML's scanner is
quadratic in that depth), only on
base64 under ``MAX_ENCODED_CHARS``, and any error of the reader (a Helm template that
is not YAML, nesting past Python's recursion limit) is no finding rather than a failed
file. Lines that are only a template directive (``{{- if .Values.x }}``) are blanked
first, so a Helm chart's Secret still reads as YAML with its line numbers intact.

A ``data:`` value is kept only when it is strict base64 of printable UTF-8 text (a
keystore or other binary blob is out of scope here), and neither that text nor a
``stringData:`` value may be empty, a reference or a placeholder (``${VAR}``,
``{{ .Values.x }}``), or a public certificate.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from thresher.findings.options import compile_rule_pattern
from thresher.findings.re2_classes import searchable
from thresher.findings.rules.values import placeholder

MAX_DOCUMENT_CHARS = 512 * 1024
MAX_ENCODED_CHARS = 64 * 1024
_MAX_DOCUMENTS = 256  # Secret documents read in one file
_MAX_PARSED_CHARS = 1024 * 1024  # all documents of one file read by the YAML reader
# Lines and flow indicators of one file read by the YAML reader: its cost is per node,
# not per character (0.5 MB of ``- a`` lines took PyYAML's pure-Python reader 6 s).
_MAX_PARSED_ITEMS = 20_000
_MAX_FLOW_DEPTH = 64  # PyYAML's scanner is quadratic in the depth of [ and { nesting
_REFERENCE_CHARS = 4096
# ``kind: Secret`` in YAML, JSON or a flow mapping; not SecretProviderClass.
KIND_SECRET = r"""["']?kind["']?\s*:\s*["']?Secret(?:$|[^\w.\-])"""
_PUBLIC = ("-----BEGIN CERTIFICATE", "-----BEGIN PUBLIC KEY", "-----BEGIN X509 CRL")


@dataclass(frozen=True, slots=True)
class Entry:
    """One value of a Secret: ``index`` is its key's line in the lines read."""

    index: int
    field: str  # "data" or "stringData"
    key: str
    value: str = dataclasses.field(repr=False)  # the decoded secret: never in a repr or a log


def secret_entries(lines: Sequence[str], indices: range) -> list[Entry]:
    """Every kept ``data:`` / ``stringData:`` value of the Secrets in ``lines[indices]``."""
    out: list[Entry] = []
    budget, items, parsed = _MAX_PARSED_CHARS, _MAX_PARSED_ITEMS, 0
    for first, chunk in _documents(lines, indices):
        # The substring test first: an RE2 call costs microseconds even on "".
        if not any("Secret" in line and _kind_secret().search(searchable(line)) for line in chunk):
            continue
        text = "\n".join("" if _directive(line) else line for line in chunk)
        if len(text) > min(MAX_DOCUMENT_CHARS, budget) or _too_deep(text):
            continue
        count = len(chunk) + sum(text.count(char) for char in "[{,")
        if count > items:
            continue
        budget -= len(text)
        items -= count
        parsed += 1
        if parsed > _MAX_DOCUMENTS:
            break
        try:
            entries = list(_entries(text, first))
        except Exception:  # not YAML (a template), nested past the recursion limit
            entries = []  # no finding, and the rest of the file is still scanned
        out.extend(entries)
    return out


def _documents(lines: Sequence[str], indices: range) -> Iterator[tuple[int, list[str]]]:
    """(index of its first line, its lines) for each ``---``-separated document."""
    start, chunk = indices.start, list[str]()
    for index in indices:
        line = lines[index]
        if line.startswith("---") and line[3:4] in ("", " ", "\t", "\r"):
            if chunk:
                yield start, chunk
            # The marker line itself is blank in the document read, keeping numbers.
            start, chunk = index, [""]
            continue
        chunk.append(line)
    if chunk:
        yield start, chunk


def _too_deep(text: str) -> bool:
    """Flow collections nested past ``_MAX_FLOW_DEPTH`` (brackets in strings count too:
    a Secret has no reason to hold that many)."""
    if text.count("[") + text.count("{") <= _MAX_FLOW_DEPTH:
        return False
    depth = 0
    for char in text:
        if char in "[{":
            depth += 1
            if depth > _MAX_FLOW_DEPTH:
                return True
        elif char in "]}":
            depth = max(0, depth - 1)
    return False


@cache
def _loader() -> Any:
    """libyaml's safe loader when PyYAML has it: some 20 times faster, it reads a tab
    after ``key:`` as Kubernetes does, and it stops at 1,000 levels of nesting."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def _kind_secret() -> Any:
    return compile_rule_pattern(KIND_SECRET)


def _directive(line: str) -> bool:
    """A line that is only a template directive (``{{- if .Values.x }}``, ``{% if %}``)."""
    text = line.strip()
    return (text.startswith("{{") and text.endswith("}}")) or (
        text.startswith("{%") and text.endswith("%}")
    )


def _entries(text: str, first: int) -> Iterator[Entry]:
    import yaml  # lazy: only Secret manifests need it

    node = yaml.compose(text, Loader=_loader())
    for secret in _secrets(node):
        for pair_key, pair_value in secret.value:
            name = _scalar(pair_key)
            if name not in ("data", "stringData") or not isinstance(pair_value, yaml.MappingNode):
                continue
            for key_node, value_node in pair_value.value:
                key, raw = _scalar(key_node), _scalar(value_node)
                if key is None or raw is None:
                    continue
                value = _decoded(raw) if name == "data" else raw.strip()
                if value is not None and _kept(value):
                    yield Entry(first + key_node.start_mark.line, name, key, value)


def _secrets(node: object) -> Iterator[Any]:
    """The mapping nodes of Secrets: the document, or the items of a ``kind: List``."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return
    fields = {_scalar(k): v for k, v in node.value}
    kind = _scalar(fields.get("kind"))
    if kind == "Secret":
        yield node
    elif kind is not None and kind.endswith("List"):
        items = fields.get("items")
        for item in items.value if isinstance(items, yaml.SequenceNode) else ():
            if not isinstance(item, yaml.MappingNode):
                continue
            if any(_scalar(k) == "kind" and _scalar(v) == "Secret" for k, v in item.value):
                yield item


def _scalar(node: object) -> str | None:
    import yaml

    return node.value if isinstance(node, yaml.ScalarNode) else None


def _decoded(raw: str) -> str | None:
    """Strict base64 of printable UTF-8 text, decoded; else None (binary, not base64)."""
    encoded = "".join(raw.split())
    if not encoded or len(encoded) > MAX_ENCODED_CHARS:
        return None
    try:
        text = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not all(char.isprintable() or char in "\n\r\t" for char in text):
        return None
    return text.strip()


def _kept(value: str) -> bool:
    if not value or value.startswith(_PUBLIC):
        return False
    # A reference is short; the check reads a line at a time, so it is bounded too.
    return len(value) > _REFERENCE_CHARS or not placeholder(value)
