"""What every lockfile parser shares: bounded decoding, purls, and line numbers.

The stdlib's JSON and TOML parsers (and PyYAML's constructors) give values without
positions, yet a finding must point at the line where a package is pinned. So each
format is parsed twice, cheaply: once by the real parser, which decides validity and
the values, and once by a small locator (a JSON token scan, a TOML table scan, YAML's
composed nodes with their marks) that only says where each entry starts. Lockfiles are
repository content, hence hostile: sizes are capped, nesting depth cannot crash the
process, and YAML is composed (never constructed), so tags do nothing and aliases are
shared nodes rather than expanded copies.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

import yaml
from packageurl import PackageURL
from packaging.utils import canonicalize_name

from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

# Real lockfiles of large monorepos reach a few megabytes; 32 MiB leaves room and keeps
# a hostile 50 MB file from costing seconds of parsing and hundreds of MB of memory.
MAX_BYTES = 32 * 1024 * 1024
# Deeper than any real lockfile (npm v1 trees nest a few dozen levels at most).
MAX_DEPTH = 200

K = TypeVar("K", bound=Hashable)


def check_size(path: str, text: str) -> None:
    if len(text) > MAX_BYTES:
        raise LockfileError(
            path,
            f"{len(text):,} characters is more than the {MAX_BYTES:,} a lockfile may have",
            hint="lockfiles this large are refused so a hostile file cannot stall the scan",
        )


def decode(path: str, data: bytes) -> str:
    """UTF-8 text (a BOM is dropped); undecodable bytes name their line."""
    if len(data) > MAX_BYTES:
        raise LockfileError(
            path,
            f"{len(data):,} bytes is more than the {MAX_BYTES:,} a lockfile may have",
            hint="lockfiles this large are refused so a hostile file cannot stall the scan",
        )
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise LockfileError(path, "is not UTF-8 text", line=line) from None


def physical_lines(text: str) -> list[str]:
    """Lines as git and editors number them: split on ``\\n`` only (``str.splitlines``
    also splits on form feeds and Unicode separators, which would shift every later
    line number), with a ``\\r`` before it dropped."""
    return [line.removesuffix("\r") for line in text.split("\n")]


# --- purls and the value object -------------------------------------------------------


def purl(ecosystem: Ecosystem, name: str, version: str) -> str:
    namespace: str | None = None
    short = name
    match ecosystem:
        case Ecosystem.PYPI:
            kind, short = "pypi", canonicalize_name(name)
        case Ecosystem.NPM:
            kind = "npm"
            if name.startswith("@") and "/" in name:
                namespace, short = name.split("/", 1)
        case Ecosystem.GO:
            kind = "golang"
            if "/" in name:
                namespace, short = name.rsplit("/", 1)
        case Ecosystem.CRATES_IO:
            kind = "cargo"
        case Ecosystem.RUBYGEMS:
            kind = "gem"
        case Ecosystem.PACKAGIST:
            kind = "composer"
            if "/" in name:
                namespace, short = name.split("/", 1)
    return str(PackageURL(type=kind, namespace=namespace, name=short, version=version).to_string())


def dependency(
    ecosystem: Ecosystem,
    name: str,
    version: str,
    path: str,
    line: int,
    relation: Relation = Relation.UNKNOWN,
    dev: bool | None = None,
    *,
    purl_version: str | None = None,
) -> Dependency:
    """The value object, or a LockfileError at ``line`` when the name or version is
    empty or no package URL can carry them (hostile files reach here too)."""
    try:
        return Dependency(
            name=name,
            version=version,
            ecosystem=ecosystem,
            purl=purl(ecosystem, name, purl_version or version),
            path=path,
            line=max(line, 1),
            relation=relation,
            dev=dev,
        )
    except ValueError:  # pydantic's ValidationError, packageurl's ValueError
        raise LockfileError(
            path, f"{name!r} at {version!r} is not a package name and version", line=line
        ) from None


def unique(deps: Iterable[Dependency]) -> list[Dependency]:
    """Order-preserving de-duplication (an entry listed twice is one dependency)."""
    return list(dict.fromkeys(deps))


# --- JSON ------------------------------------------------------------------------------


def load_json(path: str, text: str) -> Any:
    check_size(path, text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LockfileError(path, f"is not valid JSON: {exc.msg}", line=exc.lineno) from None
    except RecursionError:
        raise LockfileError(path, "nests deeper than a lockfile can") from None


_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\],:]')

JsonPath = tuple[str | int, ...]


def json_key_lines(text: str, want: Callable[[JsonPath, str], bool]) -> dict[JsonPath, int]:
    """The line of each object key whose (parent path, key) ``want`` accepts.

    A path is the keys and array indexes from the document root. Iterative, so nesting
    depth costs memory only; run it after ``load_json`` has accepted the text. A key
    given twice keeps its last line, as ``json.loads`` keeps its last value."""
    lines: dict[JsonPath, int] = {}
    path: list[str | int] = []
    # Per open container: is it an object, and (objects) is the next string a key.
    objects: list[bool] = []
    expect_key: list[bool] = []
    line, last = 1, 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == '"':
            if objects and objects[-1] and expect_key[-1]:
                key = json.loads(token) if "\\" in token else token[1:-1]
                expect_key[-1] = False
                path[-1] = key
                parent = tuple(path[:-1])
                if want(parent, key):
                    line += text.count("\n", last, match.start())
                    last = match.start()
                    lines[(*parent, key)] = line
        elif first == "{":
            objects.append(True)
            expect_key.append(True)
            path.append("")
        elif first == "[":
            objects.append(False)
            expect_key.append(False)
            path.append(0)
        elif first in "}]":
            if objects:
                objects.pop()
                expect_key.pop()
                path.pop()
        elif first == "," and objects:
            if objects[-1]:
                expect_key[-1] = True
            else:
                index = path[-1]
                path[-1] = index + 1 if isinstance(index, int) else 0
    return lines


# --- TOML ------------------------------------------------------------------------------

_TOML_LINE = re.compile(r"\(at line (\d+)")


def load_toml(path: str, text: str) -> dict[str, Any]:
    check_size(path, text)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        message = _TOML_LINE.split(str(exc))[0].strip() or "syntax error"
        raise LockfileError(
            path, f"is not valid TOML: {message}", line=int(found.group(1)) if found else None
        ) from None
    except RecursionError:
        raise LockfileError(path, "nests deeper than a lockfile can") from None


_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*package\s*\]\]\s*(?:#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")
_NAME_KEY = re.compile(r"""^\s*name\s*=\s*["']([^"']*)["']""")


def toml_package_lines(text: str, names: list[str]) -> list[int]:
    """For each ``[[package]]`` table in order, the line of its ``name = ...`` key.

    ``names`` are the parsed names, in order; when the scan disagrees with them (a
    hostile file can hide a header in a multi-line string) every entry falls back to
    the line of its own ``name = "..."`` found by search, else line 1."""
    found: list[int] = []
    inside = False
    for number, raw in enumerate(physical_lines(text), start=1):
        if _ARRAY_HEADER.match(raw):
            found.append(number)
            inside = True
        elif _ANY_HEADER.match(raw):
            inside = False
        elif inside and _NAME_KEY.match(raw) is not None:
            found[-1] = number
            inside = False
    if len(found) == len(names):
        return found
    lines = physical_lines(text)
    result = []
    for name in names:
        pattern = re.compile(rf"""^\s*name\s*=\s*["']{re.escape(name)}["']""")
        result.append(next((i for i, raw in enumerate(lines, 1) if pattern.match(raw)), 1))
    return result


# --- YAML ------------------------------------------------------------------------------


def compose_yaml(path: str, text: str) -> yaml.Node | None:
    """The node tree of a one-document YAML file, with marks.

    Built from libyaml's event stream by an explicit stack rather than by PyYAML's
    composer, whose C version recurses per nesting level and crashes the interpreter
    (a segmentation fault, not an exception) on a few hundred kilobytes of ``[[[[``;
    libyaml itself slows quadratically with depth, so the depth check stops at the
    first level too many. Nothing is constructed, so tags run nothing, and an alias
    is the anchored node itself, not a copy (no expansion bomb)."""
    check_size(path, text)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return _compose(path, yaml.parse(text, Loader=loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "syntax error"
        line = mark.line + 1 if mark is not None else None
        raise LockfileError(path, f"is not valid YAML: {problem}", line=line) from None
    except yaml.YAMLError as exc:
        raise LockfileError(path, f"is not valid YAML: {exc}") from None


def _compose(path: str, events: Iterable[Any]) -> yaml.Node | None:
    """PyYAML's stubs type marks loosely; events are read as ``Any``."""
    anchors: dict[str, yaml.Node] = {}
    stack: list[tuple[yaml.Node, list[yaml.Node]]] = []  # open collections, pending items
    root: yaml.Node | None = None
    documents = 0
    for event in events:
        node: yaml.Node | None = None
        start: Any = event.start_mark
        end: Any = event.end_mark
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise LockfileError(
                    path, "holds more than one YAML document", line=_event_line(event)
                )
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in anchors:
                raise LockfileError(
                    path, f"alias *{event.anchor} has no anchor", line=_event_line(event)
                )
            node = anchors[event.anchor]
        elif isinstance(event, yaml.ScalarEvent):
            node = yaml.ScalarNode(event.tag or "", event.value, start, end, event.style)
            if event.anchor:
                anchors[event.anchor] = node
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise LockfileError(
                    path, "nests deeper than a lockfile can", line=_event_line(event)
                )
            kind = (
                yaml.SequenceNode
                if isinstance(event, yaml.SequenceStartEvent)
                else yaml.MappingNode
            )
            opened = kind(event.tag or "", [], start, end)
            if event.anchor:
                anchors[event.anchor] = opened
            stack.append((opened, []))
            continue
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            node, items = stack.pop()
            if isinstance(node, yaml.MappingNode):
                node.value = list(zip(items[::2], items[1::2], strict=True))
            else:
                node.value = items
        if node is None:
            continue
        if stack:
            stack[-1][1].append(node)
        else:
            root = node
    return root


def _event_line(event: Any) -> int:
    return int(event.start_mark.line) + 1


def node_line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def yaml_mapping(path: str, node: yaml.Node | None, what: str) -> list[tuple[str, yaml.Node, int]]:
    """A mapping's (key text, value node, key line) triples; anything else is an error."""
    if node is None:
        return []
    if not isinstance(node, yaml.MappingNode):
        raise LockfileError(path, f"{what} is not a mapping", line=node_line(node))
    pairs: list[tuple[str, yaml.Node, int]] = []
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode):
            raise LockfileError(path, f"{what} has a key that is not text", line=node_line(key))
        pairs.append((str(key.value), value, node_line(key)))
    return pairs


def yaml_scalar(node: yaml.Node | None) -> str | None:
    if isinstance(node, yaml.ScalarNode):
        return str(node.value)
    return None


# --- reachability --------------------------------------------------------------------


def dev_only(edges: Mapping[K, Iterable[K]], prod: Iterable[K], dev: Iterable[K]) -> dict[K, bool]:
    """For every node reachable from a root: False when some production root reaches it,
    True when only development roots do (the "dev/test only" a tribunal can rely on)."""
    reached: dict[K, bool] = {}
    for roots, is_dev in ((prod, False), (dev, True)):
        queue = deque(root for root in roots if root not in reached)
        for root in queue:
            reached[root] = is_dev
        while queue:
            node = queue.popleft()
            for child in edges.get(node, ()):
                if child not in reached:
                    reached[child] = is_dev
                    queue.append(child)
    return reached
