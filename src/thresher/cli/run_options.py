"""The options every triage command shares, declared once.

``thresher scan``, ``thresher deps`` and ``thresher ci`` run the same use case, so an
option they have in common must mean the same thing, with the same limits and help, in
each. The choices are the CLI's own copies of the core's enums
(``thresher.scoring.policy.Escalate``, ``thresher.scan.outcome.FailOn``): ``--help`` must not
import pydantic, so the commands convert them when they build a request. Also here: the
checks of two arguments they share (``--escalate-band``, the PATH arguments), which
``thresher scan`` runs before its scan starts.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thresher.errors import UsageError

if TYPE_CHECKING:
    from thresher.scoring.policy import Band


class EscalateChoice(StrEnum):
    """`thresher.scoring.policy.Escalate` for the CLI, which must not import pydantic at start."""

    UNCERTAIN = "uncertain"
    ALL = "all"
    NEVER = "never"


class FailOnChoice(StrEnum):
    REAL = "real"
    UNCERTAIN = "uncertain"
    ANY = "any"
    NEVER = "never"


class FormatChoice(StrEnum):
    JSON = "json"
    SARIF = "sarif"
    MARKDOWN = "markdown"


RootOption = Annotated[
    Path, typer.Option(help="Workspace root; paths in reports are relative to it.")
]
EscalateOption = Annotated[EscalateChoice, typer.Option(help="When to ask the LLM tribunal.")]
AnalysesOption = Annotated[
    int, typer.Option(min=1, max=5, help="Concurrent analyses per escalated finding.")
]
ConcurrencyOption = Annotated[int, typer.Option(min=1, max=64, help="Findings in flight at once.")]
JsonOption = Annotated[Path | None, typer.Option("--json", help="Write the JSON report.")]
SarifOption = Annotated[Path | None, typer.Option("--sarif", help="Write SARIF 2.1.0.")]
FormatOption = Annotated[
    FormatChoice | None, typer.Option("--format", help="Print this report to stdout.")
]
MaxRequestsOption = Annotated[int | None, typer.Option(min=1, help="Run budget: model requests.")]
MaxTokensOption = Annotated[int | None, typer.Option(min=1, help="Run budget: model tokens.")]
MaxTokensPerFindingOption = Annotated[
    int | None,
    typer.Option(
        "--max-tokens-per-finding",
        min=1,
        help="Budget per escalated finding (all its agents' tokens); at the limit its "
        "offline decision stands (exit 3). Config: budget.max_tokens_per_finding.",
    ),
]
TimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        min=1,
        help="Bound the whole run; findings not decided by then are INCONCLUSIVE (exit 3).",
    ),
]


def parse_band(text: str) -> Band:
    """``--escalate-band LOW,HIGH``: two probabilities, 0 <= LOW < HIGH <= 1."""
    from thresher.scoring.policy import Band

    parts = [p.strip() for p in text.split(",")]
    try:
        low, high = (float(p) for p in parts)
    except ValueError:
        raise UsageError(
            f"--escalate-band {text!r}: expected two probabilities LOW,HIGH",
            hint="for example --escalate-band 0.05,0.9",
        ) from None
    if not 0.0 <= low < high <= 1.0:
        raise UsageError(
            f"--escalate-band {text!r}: need 0 <= LOW < HIGH <= 1",
            hint="for example --escalate-band 0.05,0.9",
        )
    return Band(low, high)


def resolve_paths(paths: list[Path] | None, root: Path) -> list[Path]:
    """PATH arguments as absolute paths, each existing and inside ``root``."""
    resolved: list[Path] = []
    for path in paths or []:
        full = (Path.cwd() / path).resolve()
        if not full.exists():
            raise UsageError(f"no such file or directory: {path}")
        if not full.is_relative_to(root):
            raise UsageError(
                f"{path} is outside --root {root}",
                hint="pass --root with a directory that contains it",
            )
        resolved.append(full)
    return resolved
