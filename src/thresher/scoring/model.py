"""The calibrated offline scorer: P(real), P(test), P(not_secret) for one candidate.

A multinomial logistic regression over the named features of ``features.py``,
shipped as a small JSON artifact (``scorer.json``) beside its model card. It was
chosen over trees or embeddings because its probabilities come out reasonably
calibrated without a separate step, every weight can be read in the model card,
each decision can cite the few features that moved it, and inference is a dot
product in pure Python: deterministic, dependency-free and far under a
millisecond per candidate. ``benchmarks/train_scorer.py`` rebuilds the artifact
bit for bit from ``../shared/corpus/dev``.
"""

from __future__ import annotations

import json
import math
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from thresher.errors import ThresherError, UsageError
from thresher.redaction import Structural
from thresher.scoring.features import CandidateContext, Features, features

ARTIFACT_FORMAT = "thresher-scorer/1"
CLASSES = ("real", "test", "not_secret")
_TOP = 5


class ScorerError(UsageError):
    """The scorer artifact is missing, unreadable or not a thresher scorer."""


class FeatureWeight(BaseModel):
    """One feature's pull on the real-vs-rest log-odds in one decision."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    feature: Annotated[str, Structural]
    contribution: float


class Assessment(BaseModel):
    """The scorer's calibrated probabilities and the features behind them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    p_real: float = Field(ge=0, le=1)
    p_test: float = Field(ge=0, le=1)
    p_not_secret: float = Field(ge=0, le=1)
    top_features: tuple[FeatureWeight, ...] = ()
    scorer: Annotated[str, Structural] = ""

    def probability(self, name: str) -> float:
        return {"real": self.p_real, "test": self.p_test, "not_secret": self.p_not_secret}[name]


class OperatingPoint(BaseModel):
    """Thresholds chosen by grouped cross-validation on the training corpus.

    ``real_threshold``: P(real) at or above which the offline call is ``real``.
    ``band``: P(real) strictly inside (low, high) is not decisive and is escalated.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    real_threshold: float = Field(gt=0, lt=1)
    band_low: float = Field(ge=0, lt=1)
    band_high: float = Field(gt=0, le=1)


class Artifact(BaseModel):
    """The shipped scorer: weights per feature and class, the operating point, provenance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str
    classes: tuple[str, ...]
    weights: dict[str, tuple[float, float, float]]
    operating_point: OperatingPoint
    regularisation: float
    training: dict[str, str | int | float]
    cross_validation: dict[str, object] = Field(default_factory=dict)


class Scorer:
    """Loads an artifact once; ``assess`` is a pure function of the context."""

    def __init__(self, artifact: Artifact, name: str = "shipped") -> None:
        if artifact.format != ARTIFACT_FORMAT or artifact.classes != CLASSES:
            raise ScorerError(
                f"scorer '{name}': format {artifact.format!r} with classes "
                f"{list(artifact.classes)} is not {ARTIFACT_FORMAT} {list(CLASSES)}"
            )
        self.artifact = artifact
        self.name = name
        self._weights = artifact.weights

    @property
    def operating_point(self) -> OperatingPoint:
        return self.artifact.operating_point

    @classmethod
    def from_file(cls, path: Path) -> Scorer:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ScorerError(f"{path}: cannot read the scorer: {exc.strerror or exc}") from None
        return cls(_parse(text, str(path)), name=path.name)

    def assess(self, ctx: CandidateContext) -> Assessment:
        return self.assess_features(features(ctx))

    def assess_features(self, vector: Features) -> Assessment:
        logits = [0.0, 0.0, 0.0]
        pulls: list[tuple[float, str]] = []
        for name, x in vector.items():
            w = self._weights.get(name)
            if w is None or x == 0.0:
                continue
            logits[0] += w[0] * x
            logits[1] += w[1] * x
            logits[2] += w[2] * x
            if name != "bias":
                pulls.append((x * (w[0] - (w[1] + w[2]) / 2), name))
        top = max(logits)
        exps = [math.exp(z - top) for z in logits]
        total = sum(exps)
        probs = [e / total for e in exps]
        pulls.sort(key=lambda p: (-abs(p[0]), p[1]))
        return Assessment(
            p_real=round(probs[0], 4),
            p_test=round(probs[1], 4),
            p_not_secret=round(probs[2], 4),
            top_features=tuple(
                FeatureWeight(feature=n, contribution=round(c, 3)) for c, n in pulls[:_TOP]
            ),
            scorer=self.name,
        )


def _parse(text: str, where: str) -> Artifact:
    try:
        return Artifact.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(document)"
        raise ScorerError(f"{where}: not a thresher scorer ({field}: {first['msg']})") from None


@cache
def shipped_scorer() -> Scorer:
    """The scorer in the wheel, trained on the dev corpus by benchmarks/train_scorer.py."""
    try:
        text = resources.files("thresher.scoring").joinpath("scorer.json").read_text("utf-8")
    except (OSError, FileNotFoundError) as exc:  # pragma: no cover - a broken install
        raise ThresherError(f"the shipped scorer is missing from the package: {exc}") from None
    return Scorer(_parse(text, "thresher/scoring/scorer.json"), name="shipped")


def dump_artifact(artifact: Artifact) -> str:
    """Canonical bytes: sorted keys, fixed separators, so retraining is comparable bit for bit."""
    return json.dumps(artifact.model_dump(mode="json"), indent=1, sort_keys=True) + "\n"
