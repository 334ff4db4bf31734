"""The shipped scorer: a valid artifact, deterministic, value-free explanations."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from thresher.scoring.features import CandidateContext, features, key_name
from thresher.scoring.model import Scorer, ScorerError, dump_artifact, shipped_scorer

CONTEXT = CandidateContext(
    value="qX9vLm2Rt7Kp4Zw8",
    rule_id="Secret Keyword",
    path="deploy/prod.env",
    line="DB_PASSWORD=qX9vLm2Rt7Kp4Zw8",
    paths=("deploy/prod.env",),
)


def test_probabilities_are_a_distribution() -> None:
    a = shipped_scorer().assess(CONTEXT)
    assert a.p_real + a.p_test + a.p_not_secret == pytest.approx(1.0, abs=1e-3)
    assert a.top_features and all(f.feature for f in a.top_features)


def test_assessment_is_deterministic() -> None:
    scorer = shipped_scorer()
    assert {scorer.assess(CONTEXT).model_dump_json() for _ in range(5)} == {
        scorer.assess(CONTEXT).model_dump_json()
    }


def test_features_never_carry_the_value() -> None:
    """Feature names go into reports and prompts: they must never spell the value."""
    for ctx in (
        CONTEXT,
        CandidateContext(
            value="hunter2hunter2",
            rule_id="my custom rule",
            path="app/config.py",
            line='hunter2hunter2 = "hunter2hunter2"',
        ),
    ):
        names = " ".join(features(ctx))
        assert ctx.value not in names
        a = shipped_scorer().assess(ctx)
        assert ctx.value not in a.model_dump_json()


def test_key_name_reads_backwards_from_the_value() -> None:
    assert key_name('  "apiKey": "') == "apiKey"
    assert key_name("export DB_PASSWORD=") == "DB_PASSWORD"
    assert key_name("<password>") == "password"
    assert key_name("") is None


def test_a_long_minified_line_is_cheap() -> None:
    """Only a window around the value is read: 60 kB of one line costs a short line's work."""
    line = "a=" + "x(" * 30000 + 'password="qX9vLm2Rt7Kp4Zw8"'
    ctx = CandidateContext(
        value="qX9vLm2Rt7Kp4Zw8", rule_id="Secret Keyword", path="dist/app.min.js", line=line
    )
    vector = features(ctx)
    assert vector.get("key_password") == 1.0  # the name just before the value is still read
    assert "value_not_on_line" not in vector


def test_artifact_round_trips(tmp_path: Path) -> None:
    artifact = shipped_scorer().artifact
    path = tmp_path / "scorer.json"
    path.write_text(dump_artifact(artifact), encoding="utf-8")
    assert Scorer.from_file(path).assess(CONTEXT) == shipped_scorer().assess(CONTEXT).model_copy(
        update={"scorer": "scorer.json"}
    )


def test_a_broken_artifact_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "scorer.json"
    path.write_text(json.dumps({"format": "thresher-scorer/1"}), encoding="utf-8")
    with pytest.raises(ScorerError, match=r"scorer\.json: not a thresher scorer \(classes"):
        Scorer.from_file(path)
    with pytest.raises(ScorerError, match="cannot read"):
        Scorer.from_file(tmp_path / "missing.json")


def test_model_card_describes_the_shipped_artifact() -> None:
    from importlib import resources

    card = resources.files("thresher.scoring").joinpath("MODEL_CARD.md").read_text("utf-8")
    digest = str(shipped_scorer().artifact.training["corpus_digest"])
    assert digest in card
    assert "cross-validation" in card.lower() and "Calibration" in card


def test_a_cited_weight_is_shared_and_zero_keeps_its_sign() -> None:
    """Assessments citing the same feature with the same contribution may share one
    frozen weight; -0.0 is never handed out for 0.0 (it is written differently)."""
    scorer = Scorer(shipped_scorer().artifact)
    first, second = scorer.assess(CONTEXT), scorer.assess(CONTEXT)
    assert first.top_features == second.top_features
    assert all(a is b for a, b in zip(first.top_features, second.top_features, strict=True))
    assert json.dumps(scorer._weight("x", 0.0).contribution) == "0.0"
    assert json.dumps(scorer._weight("x", -0.0).contribution) == "-0.0"


def _reference_top(scorer: Scorer, vector: dict[str, float]) -> list[tuple[str, float]]:
    """The cited features as the scorer first summed them: one share at a time."""
    _, _, row, pulls, shares = scorer._parts(vector)
    for j, share in zip(scorer._forest.features, shares, strict=True):
        name = scorer.artifact.features[j]
        if share and name != "bias":
            label = name if row[j] else f"no {name}"
            pulls[label] = pulls.get(label, 0.0) + share
    ranked = sorted((-abs(c), n, c) for n, c in pulls.items() if abs(c) >= 5e-4)[:5]
    return [(n, round(c, 3)) for _, n, c in ranked]


@pytest.mark.parametrize("collide", [False, True])
def test_cited_features_sum_as_one_share_at_a_time(collide: bool) -> None:
    """Labelled in C or, where a feature is named ``no <another>`` (two labels would be
    one), one at a time: the same weights either way."""
    artifact = shipped_scorer().artifact
    names = list(artifact.features)
    split = sorted({j for tree in artifact.trees for j in tree.feature})
    if collide:
        names[split[1]] = f"no {names[split[0]]}"
    scorer = Scorer(artifact.model_copy(update={"features": tuple(names)}))
    assert scorer._cited_apart is not collide
    vectors = [features(CONTEXT), {"bias": 1.0}, dict.fromkeys(names[::3], 1.0)]
    vectors.append({names[split[0]]: 1.0, names[split[1]]: 1.0, "bias": 1.0})
    vectors.append({names[split[1]]: 1.0, "bias": 1.0})  # "no x" present, x absent
    for vector in vectors:
        cited = [(w.feature, w.contribution) for w in scorer.assess_features(vector).top_features]
        assert cited == _reference_top(scorer, vector)


def test_the_strongest_pulls_are_ranked_alike_in_place_or_whole() -> None:
    """``_ranked`` keeps the pulls in the forest's order and ranks only the strongest;
    ranking every whole pull (the way taken where a label names two shares or a number
    of the artifact is not finite) cites the same weights."""
    artifact = shipped_scorer().artifact
    fast, whole = Scorer(artifact), Scorer(artifact)
    whole._in_place = False
    assert fast._in_place
    names = list(artifact.features)
    vectors = [features(CONTEXT), {"bias": 1.0}, {}]
    vectors += [dict.fromkeys(names[start::step], 1.0) for step in (3, 7, 11) for start in (0, 1)]
    vectors += [dict.fromkeys(names[:40], 0.5), dict.fromkeys(artifact.priors, 1.0)]
    for vector in vectors:
        assert fast.assess_features(vector) == whole.assess_features(vector)
        cited = [(w.feature, w.contribution) for w in fast.assess_features(vector).top_features]
        assert cited == _reference_top(fast, vector)


def test_an_artifact_number_that_is_not_finite_ranks_every_pull() -> None:
    artifact = shipped_scorer().artifact
    first = artifact.trees[0]
    broken = first.model_copy(update={"node_value": (math.inf, *first.node_value[1:])})
    scorer = Scorer(artifact.model_copy(update={"trees": (broken, *artifact.trees[1:])}))
    assert not scorer._in_place
    assert (
        scorer.assess_features({"bias": 1.0}).p_real
        == shipped_scorer().assess_features({"bias": 1.0}).p_real
    )


def test_a_prior_named_as_a_splits_label_ranks_every_pull() -> None:
    """A feature with a prior named ``no x``, where ``x`` is split on, has its pull
    added into that split's share: only the whole ranking cites the two as one."""
    artifact = shipped_scorer().artifact
    split = artifact.features[shipped_scorer()._forest.features[-1]]
    label = f"no {split}"
    priors = {**artifact.priors, label: (4.0, 0.0, 0.0)}
    scorer = Scorer(artifact.model_copy(update={"priors": priors}))
    assert not scorer._in_place
    vector = {label: 1.0, "bias": 1.0}
    cited = [(w.feature, w.contribution) for w in scorer.assess_features(vector).top_features]
    assert cited == _reference_top(scorer, vector)
    assert [name for name, _ in cited].count(label) <= 1
