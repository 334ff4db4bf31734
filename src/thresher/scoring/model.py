"""The calibrated offline scorer: P(real), P(test), P(not_secret) for one candidate.

Gradient-boosted trees over the named features of ``features.py`` (they see
interactions a linear model cannot: a hex string is a digest under a ``sha`` key and a
secret under ``api_key``), on top of a fixed margin of analyst priors (the failure
classes written down once: a lockfile digest, a boolean, a locale string), with the
probability of ``real`` calibrated by Platt scaling fitted on grouped out-of-fold
predictions. Shipped as a JSON artifact (``scorer.json``) beside its model card;
inference walks the trees in pure Python (``trees.py``): deterministic,
dependency-free and well under a millisecond per candidate.
``benchmarks/train_scorer.py`` rebuilds the artifact from ``../shared/corpus/dev``.
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from itertools import compress
from operator import getitem, itemgetter
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Final, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from thresher.errors import ThresherError, UsageError
from thresher.findings.filekind import FileKind
from thresher.redaction.redactor import Structural
from thresher.scoring.features import TESTS_ONLY_FEATURE, CandidateContext, Features, features
from thresher.scoring.placement import GENERIC_FEATURE, PLACEMENT_FEATURES, Placement
from thresher.scoring.trees import Forest, Tree

ARTIFACT_FORMAT = "thresher-scorer/2"
CLASSES = ("real", "test", "not_secret")
_TOP = 5
_CITED = 5e-4  # the least pull a decision cites
_MAX_SHARED_WEIGHTS = 1 << 16  # cited weights a scorer keeps to share (a few thousand a scan)
_TEST_FILE = f"file_{FileKind.TEST.value}"  # the path is test scope (``path_features``)
# An entropy plugin's hit with no word of credentials near it, and the hex plugin's.
_ENTROPY_ONLY = "entropy_only"
_HEX_ENTROPY = "rule_hex_high_entropy_string"
# detect-secrets' private key plugin and thresher's PEM rule, as the primary rule.
_PRIVATE_KEY_RULES = ("rule_private_key", "rule_private_key_pem")


class ScorerError(UsageError):
    """The scorer artifact is missing, unreadable or not a thresher scorer."""


# Serialisation context under which a ``FeatureWeight`` is written as a pair.
AS_PAIRS: Final = MappingProxyType({"feature_pairs": True})


class FeatureWeight(BaseModel):
    """One feature's pull on the real-vs-rest log-odds in one decision.

    Read also as a ``[feature, contribution]`` pair, and written so under the ``AS_PAIRS``
    context: the JSON report does (``thresher.tribunal.reported``), a fifth of an offline
    decision's bytes otherwise.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    feature: Annotated[str, Structural]
    contribution: float

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, data: Any) -> Any:
        if isinstance(data, list | tuple) and len(data) == 2:
            return {"feature": data[0], "contribution": data[1]}
        return data

    @model_serializer(mode="wrap")
    def _as_pair(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        context = info.context
        if isinstance(context, Mapping) and context.get("feature_pairs"):
            return [self.feature, self.contribution]
        return handler(self)


class Assessment(BaseModel):
    """The scorer's calibrated probabilities and the features behind them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    p_real: float = Field(ge=0, le=1)
    p_test: float = Field(ge=0, le=1)
    p_not_secret: float = Field(ge=0, le=1)
    top_features: tuple[FeatureWeight, ...] = ()
    scorer: Annotated[str, Structural] = ""
    # Only test code names the finding's file (reference lookup). The corpus labels by
    # path, so the scorer weighs this as one signal among many; the policy treats it as
    # structure: never a `real` call and never a decisive one offline (``policy.py``).
    only_tests_reference: bool = False
    # Where the text lives, whether only context rules (a key word, entropy) found the
    # value, and whether its path is test scope: a generic value in documentation or a
    # commented-out line is never a decisive ``real`` offline (``policy.py``).
    placement: Placement = Placement.DEPLOYMENT
    generic_value: bool = False
    test_scope: bool = False
    # Hex found by its characters alone with no word of credentials near it (a digest,
    # a checksum list, a fixture's id): an in-band call there is decisive (``policy.py``).
    unnamed_hex: bool = False
    # The value is a private key block (a PEM key): in test scope, a fixture key.
    private_key: bool = False

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


class Calibration(BaseModel):
    """Platt scaling of P(real): ``sigmoid(slope * logit(p) + intercept)``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    slope: float = 1.0
    intercept: float = 0.0

    def apply(self, p: float) -> float:
        p = min(max(p, 1e-9), 1 - 1e-9)
        z = self.slope * math.log(p / (1 - p)) + self.intercept
        return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


class Artifact(BaseModel):
    """The shipped scorer: feature names, analyst priors, trees, calibration, the
    operating point and provenance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str
    classes: tuple[str, ...]
    features: tuple[str, ...]
    priors: dict[str, tuple[float, float, float]] = Field(default_factory=dict)
    trees: tuple[Tree, ...] = ()
    # A multinomial logistic model over the same features (weights per class), blended
    # with the trees: ``blend`` is the trees' share of the class scores.
    linear: dict[str, tuple[float, float, float]] = Field(default_factory=dict)
    blend: float = Field(default=1.0, ge=0.0, le=1.0)
    calibration: Calibration = Calibration()
    operating_point: OperatingPoint
    training: dict[str, str | int | float]
    cross_validation: dict[str, object] = Field(default_factory=dict)


# The real-vs-rest margin each class's score moves: what a feature's share is told in.
_MARGIN = (1.0, -0.5, -0.5)


class Scorer:
    """Loads an artifact once; ``assess`` is a pure function of the context."""

    def __init__(self, artifact: Artifact, name: str = "shipped") -> None:
        if artifact.format != ARTIFACT_FORMAT or artifact.classes != CLASSES:
            raise ScorerError(
                f"scorer '{name}': format {artifact.format!r} with classes "
                f"{list(artifact.classes)} is not {ARTIFACT_FORMAT} {list(CLASSES)}"
            )
        for number, tree in enumerate(artifact.trees):
            problem = tree.check(len(artifact.features), len(CLASSES))
            if problem is not None:
                raise ScorerError(f"scorer '{name}': tree {number}: {problem}")
        self.artifact = artifact
        self.name = name
        self._index = {feature: i for i, feature in enumerate(artifact.features)}
        # Each known feature's column, prior and linear weight, found with one look-up.
        self._entries = {
            name: (self._index.get(name), artifact.priors.get(name), artifact.linear.get(name))
            for name in (*artifact.features, *artifact.priors, *artifact.linear)
        }
        self._forest = Forest(artifact.trees, tuple(artifact.blend * m for m in _MARGIN))
        # How a split on each feature is cited, absent and present (None: the bias),
        # for the features split on, in the order of the forest's shares.
        split = self._forest.features
        self._cited = tuple(
            (None, None) if name == "bias" else (f"no {name}", name)
            for name in (artifact.features[j] for j in split)
        )
        self._split_row = _reader(split)
        cited = [label for pair in self._cited for label in pair if label is not None]
        # Every label names one share (a feature named "no x" beside "x" would not).
        self._cited_apart = len(set(cited)) == len(cited)
        # Where each split feature's share sits (``_ranked``), and the bias's (never cited).
        self._slots = {
            artifact.features[j]: k for k, j in enumerate(split) if self._cited[k][1] is not None
        }
        self._uncited = tuple(k for k, pair in enumerate(self._cited) if pair[1] is None)
        # ``_ranked`` may sort magnitudes: every number a pull is made of is finite, every
        # label names one share, and no feature with a prior or a linear weight is named
        # as a split's absent label, ``no x`` (``_pulls`` adds its pull into that share).
        absent = {pair[0] for pair in self._cited if pair[0] is not None}
        self._in_place = (
            self._cited_apart and absent.isdisjoint({*artifact.priors, *artifact.linear})
        ) and all(
            math.isfinite(number)
            for numbers in (
                *(tree.node_value for tree in artifact.trees),
                *(tree.leaf for tree in artifact.trees),
                *artifact.priors.values(),
                *artifact.linear.values(),
            )
            for number in numbers
        )
        self._weights = SharedWeights()  # the cited weights made so far

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

    def raw_probabilities(self, vector: Features) -> tuple[float, float, float]:
        """The uncalibrated class probabilities of the blend (what training calibrates)."""
        trees, linear, _, _, _ = self._parts(vector)
        return _softmax(self._blend(trees, linear))

    def component_p_real(self, vector: Features) -> tuple[float, float]:
        """Uncalibrated P(real) of the trees alone and of the linear model alone: how the
        model card compares the two families under the same folds."""
        trees, linear, _, _, _ = self._parts(vector)
        return _softmax(trees)[0], _softmax(linear)[0]

    def _blend(self, trees: list[float], linear: list[float]) -> list[float]:
        share = self.artifact.blend
        return [share * t + (1 - share) * lin for t, lin in zip(trees, linear, strict=True)]

    def _parts(
        self, vector: Features
    ) -> tuple[list[float], list[float], list[float], dict[str, float], tuple[float, ...]]:
        """Class scores of the trees (on the prior margin) and of the linear model, the
        dense row the trees read, each present feature's pull on real-vs-rest (priors and
        linear weights) and the trees' shares of it (``Forest.features``' order)."""
        row = [0.0] * len(self._index)
        trees = [0.0, 0.0, 0.0]
        linear = [0.0, 0.0, 0.0]
        share = self.artifact.blend
        pulls: dict[str, float] = {}
        entries = self._entries
        for name, x in vector.items():
            if not x:
                continue
            entry = entries.get(name)
            if entry is None:
                continue  # a feature the artifact does not know
            j, prior, weight = entry
            if j is not None:
                row[j] = x
            if prior is None and weight is None:
                continue  # most features: no prior, no linear weight, no pull of its own
            pull = 0.0
            if prior is not None:
                for c in range(3):
                    trees[c] += prior[c] * x
                pull += share * x * (prior[0] - (prior[1] + prior[2]) / 2)
            if weight is not None:
                for c in range(3):
                    linear[c] += weight[c] * x
                pull += (1 - share) * x * (weight[0] - (weight[1] + weight[2]) / 2)
            if pull and name != "bias":
                pulls[name] = pull
        scores, shares = self._forest.run(row)
        for c, score in enumerate(scores):
            trees[c] += score
        return trees, linear, row, pulls, shares

    def assess_features(self, vector: Features) -> Assessment:
        trees, linear, row, pulls, shares = self._parts(vector)
        p_real, p_test, p_not = _softmax(self._blend(trees, linear))
        calibrated = self.artifact.calibration.apply(p_real)
        rest = p_test + p_not
        share = p_test / rest if rest > 0 else 0.5
        ranked = self._ranked(row, pulls, shares)
        return Assessment(
            p_real=round(calibrated, 4),
            p_test=round((1 - calibrated) * share, 4),
            p_not_secret=round((1 - calibrated) * (1 - share), 4),
            top_features=tuple(self._weight(n, round(c, 3)) for _, n, c in ranked),
            scorer=self.name,
            only_tests_reference=bool(vector.get(TESTS_ONLY_FEATURE)),
            placement=next(
                (where for where, name in PLACEMENT_FEATURES.items() if vector.get(name)),
                Placement.DEPLOYMENT,
            ),
            generic_value=bool(vector.get(GENERIC_FEATURE)),
            test_scope=bool(vector.get(_TEST_FILE)),
            unnamed_hex=bool(vector.get(_ENTROPY_ONLY) and vector.get(_HEX_ENTROPY)),
            private_key=any(map(vector.get, _PRIVATE_KEY_RULES)),
        )

    def _pulls(
        self, row: list[float], pulls: dict[str, float], shares: tuple[float, ...]
    ) -> dict[str, float]:
        """Each cited feature's whole pull: its prior's and linear weight's (``pulls``)
        plus its share of the trees, under ``no <feature>`` where a split moved the score
        because the feature is absent. Each label is added once, in the order the pulls
        then the shares come, so the sums are the same floats however they are made."""
        # The shares are labelled and their zeros dropped in C: a hundred a candidate.
        present = map(bool, self._split_row(row))
        labels = map(getitem, self._cited, present)
        if not self._cited_apart:
            for label, share in zip(labels, shares, strict=True):
                if share and label is not None:
                    pulls[label] = pulls.get(label, 0.0) + share
            return pulls
        cited: dict[str | None, float] = dict(compress(zip(labels, shares, strict=True), shares))
        cited.pop(None, None)
        for name, pull in pulls.items():  # a few: the features with a prior
            tree_share = cited.get(name)
            cited[name] = pull if tree_share is None else pull + tree_share
        return cast(dict[str, float], cited)

    def _ranked(
        self, row: list[float], pulls: dict[str, float], shares: tuple[float, ...]
    ) -> list[tuple[float, str, float]]:
        """The ``_TOP`` strongest whole pulls (``_pulls``) of at least ``_CITED``, the
        strongest first, by name on a tie (names are unique: ``c`` never compares), as
        ``(-|c|, label, c)``.

        A hundred pulls a candidate: here they stay in the forest's order, each share
        plus its feature's own pull (the same sum, ``pull + share``, as ``_pulls``), the
        magnitudes are sorted in C, and only the pulls at least as strong as the fifth
        strongest are labelled and ranked (the five strongest are among them). Where a
        label names two shares, or a number of the artifact is not finite (then the
        order of magnitudes is not total), every pull is ranked, as ``_pulls`` makes it."""
        if not self._in_place:
            whole = self._pulls(row, pulls, shares)
            return heapq.nsmallest(
                _TOP, [(-abs(c), n, c) for n, c in whole.items() if abs(c) >= _CITED]
            )
        totals = list(shares)
        for uncited in self._uncited:
            totals[uncited] = 0.0  # the bias: never cited
        others: list[tuple[str, float]] = []  # pulls of features no tree splits on
        slots = self._slots
        for name, pull in pulls.items():
            slot = slots.get(name)
            if slot is None:
                others.append((name, pull))
            else:  # present (its pull is not zero): its label is its name
                share = totals[slot]
                totals[slot] = pull + share if share else pull
        magnitudes = list(map(abs, totals))
        ordered = sorted([*magnitudes, *(abs(c) for _, c in others)])
        floor = max(ordered[-_TOP], _CITED) if len(ordered) >= _TOP else _CITED
        split, cited = self._forest.features, self._cited
        ranked = [
            (-magnitudes[k], cast(str, cited[k][bool(row[split[k]])]), totals[k])
            for k in compress(range(len(totals)), map(floor.__le__, magnitudes))
        ]
        ranked.extend((-abs(c), n, c) for n, c in others if abs(c) >= floor)
        ranked.sort()
        return ranked[:_TOP]

    def _weight(self, feature: str, contribution: float) -> FeatureWeight:
        return self._weights(feature, contribution)


class SharedWeights:
    """Cited weights, each built from a name and a float as they are (no validation to
    repeat), and shared when the same pair was cited before: a few thousand pairs recur
    over a whole scan, and a frozen model can be shared by every assessment that cites
    it. Zero is never shared: -0.0 equals 0.0 as a key but is written differently."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, float], FeatureWeight] = {}

    def __call__(self, feature: str, contribution: float) -> FeatureWeight:
        key = (feature, contribution)
        made = self._made.get(key) if contribution else None
        if made is None:
            made = FeatureWeight.model_construct(feature=feature, contribution=contribution)
            if contribution and len(self._made) < _MAX_SHARED_WEIGHTS:
                self._made[key] = made
        return made


def _reader(indices: tuple[int, ...]) -> Callable[[list[float]], tuple[float, ...]]:
    """The values at ``indices`` of a row, as a tuple (``itemgetter`` of one index gives
    the value itself)."""
    if len(indices) > 1:
        return cast(Callable[[list[float]], tuple[float, ...]], itemgetter(*indices))
    return lambda row: tuple(row[j] for j in indices)


def _softmax(logits: list[float]) -> tuple[float, float, float]:
    top = max(logits)
    exps = [math.exp(z - top) for z in logits]
    total = sum(exps)
    return exps[0] / total, exps[1] / total, exps[2] / total


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
    return Scorer(_shipped_artifact(), name="shipped")


def shipped_operating_point() -> OperatingPoint:
    """The shipped scorer's operating point, its forest not built: what a run whose
    assessments are made in another process (``scoring.beside``) reads of it."""
    return _shipped_artifact().operating_point


def _shipped_artifact() -> Artifact:
    try:
        text = resources.files("thresher.scoring").joinpath("scorer.json").read_text("utf-8")
    except (OSError, FileNotFoundError) as exc:  # pragma: no cover - a broken install
        raise ThresherError(f"the shipped scorer is missing from the package: {exc}") from None
    return _parse(text, "thresher/scoring/scorer.json")


def dump_artifact(artifact: Artifact) -> str:
    """Canonical bytes: sorted keys, fixed separators, so retraining is comparable bit
    for bit (one line: the trees are thousands of numbers)."""
    return (
        json.dumps(artifact.model_dump(mode="json"), separators=(",", ":"), sort_keys=True) + "\n"
    )
