"""The package's layers: no module imports a package above its own.

Every module under ``src/thresher`` belongs to one component: a subpackage
(``thresher.findings``) or a module at the package root (``thresher.errors``). The
components are stacked in ``LAYERS``, lowest first. A module may import its own
component and any component of a lower layer, never one of a higher layer, and never
another component of its own layer (peers stay independent, so the order is the whole
truth). Every import counts: at module level, inside functions (the CLI's lazy ones)
and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "thresher"

ROOT = "thresher"  # the package's own __init__ (``__version__``)

# Lowest first. Why each sits where it does:
# - errors, names: vocabulary every layer uses; memory hands freed heap back to the OS;
#   resources reads bundled assets.
# - redaction below findings: a finding's fields are redacted by ``Structural``.
# - config and git above findings: settings carry custom rules (``findings.rules``);
#   listing files raises findings' ``ScanError`` and reports their ``Skipped``.
# - sources above findings and deps: the OSV source turns dependencies into findings.
# - heuristic above llm: the offline model implements llm's ``Model``; agents (the
#   model registry) build it.
# - scoring above sources and validators: its contexts read both.
# - tribunal above agents; reports above tribunal (they render its decisions); the scan
#   use case above both tribunal and sources; ci, triage and evaluation run the scan.
LAYERS: tuple[tuple[str, ...], ...] = (
    (ROOT, "errors", "names", "memory"),
    ("resources",),
    ("redaction",),
    ("findings",),
    ("config", "git", "github", "llm", "validators"),
    ("deps", "heuristic", "skills"),
    ("sources",),
    ("scoring",),
    ("agents",),
    ("tribunal",),
    ("reports",),
    ("scan",),
    ("ci", "evaluation", "triage"),
    ("cli",),
    ("__main__",),
)
LAYER = {component: level for level, names in enumerate(LAYERS) for component in names}

MAX_ROOT_MODULES = 6
MAX_LINES = 500


@dataclass(frozen=True)
class Import:
    path: Path
    line: int
    module: str  # the importing module, dotted
    target: str  # the imported thresher module, dotted


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def component(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def imports_of(path: Path) -> list[Import]:
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            # ``from thresher import errors`` names a component, not the root
            targets = [
                f"{origin}.{alias.name}" if origin == ROOT else origin for alias in node.names
            ]
        found += [
            Import(path, node.lineno, module, target)
            for target in targets
            if target == ROOT or target.startswith(ROOT + ".")
        ]
    return found


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


@cache
def all_imports() -> tuple[Import, ...]:
    return tuple(found for path in modules() for found in imports_of(path))


def target_component(target: str) -> str:
    name = component(target)
    return name if name in LAYER else ROOT  # ``thresher.__version__``


def test_every_component_has_a_layer() -> None:
    components = {component(module_name(path)) for path in modules()}
    missing = sorted(components - set(LAYER))
    assert not missing, f"place these in LAYERS (tests/test_layers.py): {missing}"
    assert not set(LAYER) - components, "LAYERS names a component that no longer exists"


def test_the_parser_sees_lazy_and_relative_imports() -> None:
    edges = {(i.module, i.target) for i in all_imports()}
    # inside a function: the CLI imports the scan only when a command runs
    assert ("thresher.cli.scan_cmd", "thresher.scan.run") in edges
    # relative: ``from .deps_options import ...``
    assert ("thresher.cli.scan_cmd", "thresher.cli.deps_options") in edges


def test_no_layer_imports_a_higher_one() -> None:
    violations = []
    for found in all_imports():
        source, target = component(found.module), target_component(found.target)
        if source == target:
            continue
        if LAYER[target] > LAYER[source]:
            why = "a higher layer"
        elif LAYER[target] == LAYER[source]:
            why = "a peer of the same layer"
        else:
            continue
        violations.append(
            f"{found.path.relative_to(SRC.parent)}:{found.line}: {found.module} imports "
            f"{found.target}: {source} (layer {LAYER[source]}) may not import {target}, {why} "
            f"(layer {LAYER[target]})"
        )
    assert not violations, "\n".join(violations)


def test_few_modules_loose_at_the_package_root() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= MAX_ROOT_MODULES, loose


def test_no_module_is_too_long() -> None:
    long = []
    for path in modules():
        with path.open(encoding="utf-8") as handle:
            count = sum(1 for _ in handle)
        if count > MAX_LINES:
            long.append(f"{path.relative_to(SRC.parent)}: {count} lines")
    assert not long, "\n".join(long)
