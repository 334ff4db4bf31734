"""Locate the bundled ``agents/``, ``skills/`` and ``prompts/`` trees.

In a wheel they are force-included as ``thresher/_assets/...`` and found through
``importlib.resources``. In an editable install the package is imported from the
source checkout, so they sit beside ``src/`` at the repository root. They are
never looked up relative to the working directory: on an untrusted pull-request
checkout that would let the change under review rewrite the prompts.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path

from thresher.errors import AssetError


class AssetKind(StrEnum):
    AGENTS = "agents"
    SKILLS = "skills"
    PROMPTS = "prompts"


@cache
def _asset_root() -> Path:
    packaged = Path(str(resources.files("thresher"))) / "_assets"
    if packaged.is_dir():
        return packaged
    # Editable install: src/thresher/__init__.py -> repository root.
    checkout = Path(__file__).resolve().parent.parent.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "skills").is_dir():
        return checkout
    raise AssetError(
        "thresher's bundled assets (agents/, skills/, prompts/) are missing from the install",
        hint="reinstall thresher; a wheel must contain thresher/_assets",
    )


def asset_dir(kind: AssetKind) -> Path:
    """The directory holding one kind of bundled asset."""
    path = _asset_root() / kind.value
    if not path.is_dir():
        raise AssetError(
            f"bundled {kind.value}/ directory not found at {path}",
            hint="reinstall thresher",
        )
    return path


@cache
def public_vocabulary() -> frozenset[str]:
    """Every token of the bundled agents, skills and prompts, lower-cased.

    A candidate value that is one of these words ("test", "password", a skill
    name, a vendor's documentation example) is public text, not a secret: it is
    left unredacted so it cannot corrupt paths, tool names and prompts.
    """
    import re

    tokens: set[str] = set()
    for kind in AssetKind:
        for path in asset_dir(kind).rglob("*"):
            if path.is_file() and path.suffix in {".md", ".j2"}:
                text = path.read_text(encoding="utf-8", errors="replace").lower()
                tokens.update(re.findall(r"[a-z0-9][a-z0-9_.\-/+=]*[a-z0-9=]|[a-z0-9]", text))
    return frozenset(tokens)
