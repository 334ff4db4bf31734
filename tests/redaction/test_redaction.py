"""The redactor replaces every registered value everywhere it can appear."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from tests.agent_emulator import FACTORS, finding_id, has_results, submission, tools_of
from tests.fakes.servers import OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply
from tests.tokens import github_token, random_secret
from thresher.agents.transcript import TranscriptWriter, read_messages
from thresher.findings.model import Finding, GitHubAlertSource, Location
from thresher.findings.results import (
    AnalysisReport,
    ChallengeOutcome,
    ChallengeResult,
    Classification,
    ConfidenceFactors,
    ConfidenceLabel,
    EvidenceItem,
    JudgeResult,
    RiskLevel,
    Verdict,
)
from thresher.llm.messages import AssistantMessage, TextPart, ToolCallPart, UserMessage
from thresher.redaction.redactor import Redactor, redact_value
from thresher.skills.compliance import Compliance
from thresher.tribunal.decisions import DecidedBy, Decision, DecisionError, ReportCheck, ReportEntry
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus


def test_redacted_form_shows_prefix_tail_and_length_only() -> None:
    token = github_token()
    assert redact_value(token) == f"ghp_…{token[-3:]} (40 chars)"
    assert redact_value("hunter2pass") == "…(11 chars)"
    assert redact_value("AKIA" + "Q" * 16) == "AKIA…QQQ (20 chars)"


def test_text_and_nested_data() -> None:
    a, b = github_token(seed=1), random_secret(seed=2)
    redactor = Redactor([a, b])
    text = redactor.text(f"token={a} and {b}{a}")
    assert a not in text and b not in text
    data = redactor.data({"k": [a, {"deep": (b,)}], "v": a})
    flat = repr(data)
    assert a not in flat and b not in flat


def test_longest_value_wins_when_values_overlap() -> None:
    long, short = "abcd1234efgh5678", "abcd1234"
    redactor = Redactor([short, long])
    assert redactor.text(long) == redact_value(long)


def test_models_are_redacted_field_by_field() -> None:
    token = github_token()
    redactor = Redactor([token])
    message = AssistantMessage(
        parts=(ToolCallPart(id="1", name="grep", arguments={"pattern": token}),)
    )
    clean = redactor.model(message)
    assert token not in clean.model_dump_json()
    assert isinstance(clean, AssistantMessage)
    assert redactor.model(UserMessage(text="nothing")) == UserMessage(text="nothing")


def test_very_short_values_are_not_registered() -> None:
    assert not Redactor(["abc"])


def test_field_names_survive_a_value_that_is_a_common_word() -> None:
    redactor = Redactor(["error"])
    message = AssistantMessage(parts=(ToolCallPart(id="1", name="grep", arguments_error="error"),))
    clean = redactor.model(message)
    assert clean.parts[0].arguments_error == "…(5 chars)"  # type: ignore[union-attr]


def test_a_value_is_a_token_not_part_of_a_longer_word() -> None:
    redactor = Redactor(["passw", "s3cr3t/x"])
    assert redactor.text("load passwords; passw=1") == "load passwords; …(5 chars)=1"
    assert redactor.text("k=s3cr3t/x;") == "k=…(8 chars);"


def test_a_value_equal_to_a_role_or_part_kind_leaves_the_model_valid() -> None:
    # `password = "assistant"` in a scanned repo made every session, and the scan, crash.
    redactor = Redactor(["assistant", "tool_call"])
    message = AssistantMessage(
        parts=(
            TextPart(text="the assistant said tool_call"),
            ToolCallPart(id="1", name="grep", arguments={"pattern": "assistant"}),
        )
    )
    clean = redactor.model(message)
    assert clean.role == "assistant"
    assert [p.kind for p in clean.parts] == ["text", "tool_call"]
    assert clean.text == "the …(9 chars) said …(9 chars)"
    assert clean.parts[1].arguments == {"pattern": "…(9 chars)"}  # type: ignore[union-attr]


def test_transcripts_keep_their_structure_when_a_value_is_a_structural_word(
    tmp_path: Path,
) -> None:
    redactor = Redactor(["assistant", "message"])
    writer = TranscriptWriter(tmp_path / "t.jsonl", redactor)
    writer.message(AssistantMessage(parts=(TextPart(text="a message"),)))
    writer.event("error", message="message lost")
    writer.close()
    messages = read_messages(tmp_path / "t.jsonl")
    assert len(messages) == 1 and isinstance(messages[0], AssistantMessage)
    assert messages[0].text == "a …(7 chars)"
    assert "message lost" not in (tmp_path / "t.jsonl").read_text()


def test_only_exact_public_words_escape_redaction() -> None:
    from thresher.scan.assess import is_public_word

    assert is_public_word("changeme") and is_public_word("Password")
    assert is_public_word("AKIAIOSFODNN7EXAMPLE")  # documented in the bundled skills
    assert not is_public_word("mysupersecretpassword")
    assert not is_public_word("unsecure_session_secret_42")


def test_only_known_provider_prefixes_are_shown() -> None:
    assert redact_value("hunter-secretpass") == "…ass (17 chars)"
    assert redact_value("xoxb-" + "1" * 40).startswith("xoxb-…")
    assert redact_value("sk_live_" + "a" * 24).startswith("sk_live_…")


AGENTS = ("analysis", "challenger", "judge")
RULE = "Secret Keyword"  # detect-secrets' keyword rule: also a value some repos hold
PATH = "deploy/prod.env"


def decision_quoting(token: str) -> Decision:
    """A decision whose structure and free text both hold the run's candidate values."""
    finding = Finding(
        id="s-0123456789ab",
        rule_id=RULE,
        locations=(Location(path=PATH, line=1, commit="c0ffee" * 6),),
        fingerprint="sha256:" + "ab" * 32,
        redacted="…(14 chars)",
        source=GitHubAlertSource(
            repo="octo/app", number=7, url=f"https://github.com/octo/app/{PATH}", state="open"
        ),
    )
    report = AnalysisReport(
        classification=Classification.REAL,
        verdict=Verdict.TRUE_POSITIVE,
        confidence_factors=ConfidenceFactors(**dict.fromkeys(FACTORS, 8)),
        confidence_score=8.0,
        confidence_label=ConfidenceLabel.HIGH,
        risk_level=RiskLevel.HIGH,
        key_finding=f"{RULE} is the value in {PATH}, next to {token}.",
        evidence=(EvidenceItem(claim=f"{PATH} is deployed", ledger_ids=("T1",)),),
    )
    return Decision(
        finding=finding,
        classification=Classification.REAL,
        verdict=Verdict.TRUE_POSITIVE,
        confidence=8.0,
        confidence_label=ConfidenceLabel.HIGH,
        risk_level=RiskLevel.HIGH,
        rationale=f"The value {RULE} in {PATH} ({finding.id}) is live; so is {token}.",
        decided_by=DecidedBy.TRIBUNAL,
        entries=(
            ReportEntry(
                model=RULE,
                report=report,
                compliance=Compliance(applicable=(RULE,), loaded=(RULE,), skipped=(), score=1),
                checks=(ReportCheck(name=RULE, passed=True, detail=f"{RULE} checked"),),
                challenge=ChallengeResult(outcome=ChallengeOutcome.CONFIRMED, reasoning=RULE),
                challenger_model=RULE,
            ),
        ),
        judge=JudgeResult(
            winner_index=0,
            rationale=f"{RULE} wins",
            final_verdict=Verdict.TRUE_POSITIVE,
            final_classification=Classification.REAL,
        ),
        judge_model=RULE,
        validations=(
            ValidationResult(
                validator=RULE,
                kind=CheckKind.PLACEHOLDER,
                status=ValidationStatus.VALID,
                detail=f"{RULE} is no placeholder",
            ),
        ),
        errors=(DecisionError(stage=RULE, error=RULE, message=f"{RULE} failed"),),
    )


def test_redaction_keeps_structure_and_redacts_free_text() -> None:
    token = github_token(seed=5)
    decision = decision_quoting(token)
    finding = decision.finding
    values = [RULE, PATH, finding.id, finding.fingerprint, "c0ffee" * 6, "octo/app", token]
    clean = Redactor(values).model(decision)
    assert clean.finding == finding  # id, rule, path, commit, fingerprint, source, redacted
    assert clean.judge_model == RULE and clean.entries[0].model == RULE
    assert clean.entries[0].challenger_model == RULE
    assert clean.entries[0].compliance == decision.entries[0].compliance
    assert clean.entries[0].checks[0].name == RULE
    assert clean.validations[0].validator == RULE
    assert (clean.errors[0].stage, clean.errors[0].error) == (RULE, RULE)
    free_text = [
        clean.rationale,
        clean.entries[0].report.key_finding,
        clean.entries[0].report.evidence[0].claim,
        clean.entries[0].checks[0].detail,
        clean.entries[0].challenge.reasoning,  # type: ignore[union-attr]
        clean.judge.rationale,  # type: ignore[union-attr]
        clean.validations[0].detail,
        clean.errors[0].message,
    ]
    for text in free_text:
        assert RULE not in text and PATH not in text and token not in text
        assert "…" in text
    assert clean.rationale == (
        f"The value {redact_value(RULE)} in {redact_value(PATH)} ({redact_value(finding.id)}) "
        f"is live; so is {redact_value(token)}."
    )


def quote_in_submissions(server: OpenAIFake, text: str) -> None:
    """Every agent loads its skills, reads the finding, then submits free text that
    quotes ``text`` (as a model that read the file would)."""
    free_text = {"submit_report": "key_finding", "submit_challenge": "reasoning"}

    def respond(request: CapturedRequest, index: int) -> Reply:
        body = request.json()
        tools = tools_of(server, body)
        submit = next(name for name in tools if name.startswith("submit_"))
        if has_results(server, body):
            arguments: dict[str, Any] = submission(submit, "real")
            arguments[free_text.get(submit, "rationale")] = f"It is {text}."
            calls = [("submit", submit, arguments)]
        else:
            skills = tools["skill"]["properties"]["name"]["enum"]
            calls = [(f"s{i}", "skill", {"name": s}) for i, s in enumerate(skills)]
            calls.append(("f", "get_finding", {"finding_id": finding_id(body)}))
        return server.tool_calls([(i, n, json.dumps(a)) for i, n, a in calls])

    server.responder = respond


def test_a_run_keeps_rule_ids_and_paths_equal_to_candidate_values(
    cli: Callable[..., Result],
    tmp_path: Path,
    openai_server: OpenAIFake,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """171 decisions of an evaluation run lost their rule_id this way: the scanned code
    held ``password = "Secret Keyword"``, and every keyword finding was renamed."""
    token = github_token(seed=6)
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / "deploy").mkdir()
    (root / "app/settings.py").write_text(
        f'password = "{RULE}"\napi_secret = "{PATH}"\nTOKEN = "{token}"\n'
    )
    (root / PATH).write_text("DB_PASSWORD=hunter2horse99\n")
    agents = "".join(f'[agents.{a}]\nmodel = "openai:gpt-4.1"\n' for a in AGENTS)
    (tmp_path / "thresher.toml").write_text(
        f'{agents}[providers.openai]\nbase_url = "{openai_server.api_base}"\n'
    )
    monkeypatch.setenv("THRESHER_CONFIG", str(tmp_path / "thresher.toml"))
    monkeypatch.setenv("OPENAI_API_KEY", "loopback-test-key")
    quote_in_submissions(openai_server, f"{RULE} in {PATH}, like {token}")
    result = cli("scan", "--root", str(root), "--escalate", "all")
    assert result.exit_code == 1, result.stderr

    run_dir = next((tmp_path / ".thresher/runs").iterdir())
    report = json.loads((run_dir / "report.json").read_text())
    lines = (run_dir / "decisions.jsonl").read_text().splitlines()
    for decisions in (report["decisions"], [json.loads(line) for line in lines]):
        located = sorted(
            (d["finding"]["rule_id"], d["finding"]["locations"][0]["path"]) for d in decisions
        )
        assert located == [
            ("GitHub Token", "app/settings.py"),
            (RULE, "app/settings.py"),
            (RULE, "app/settings.py"),
            (RULE, PATH),
        ]
        for decision in decisions:
            assert decision["escalated"] and decision["finding"]["id"].startswith("s-")
            assert decision["finding"]["fingerprint"].startswith("sha256:")
            assert decision["entries"][0]["model"] == "openai:gpt-4.1"
            key_finding = decision["entries"][0]["report"]["key_finding"]
            for text in (decision["rationale"], key_finding):
                assert RULE not in text and PATH not in text and token not in text
                assert redact_value(token) in text and redact_value(PATH) in text
    transcripts = [p.read_text() for p in run_dir.glob("transcripts/*.jsonl")]
    assert transcripts and all(RULE not in t and token not in t for t in transcripts)
    results = [
        json.loads(line)["result"]
        for text in transcripts
        for line in text.splitlines()
        if json.loads(line)["type"] == "result"
    ]
    assert results
    for record in results:  # what each agent submitted still validates as its result
        kind = {"key_finding": AnalysisReport, "outcome": ChallengeResult}
        model = next((m for key, m in kind.items() if key in record), JudgeResult)
        assert model.model_validate(record)


def test_values_learned_one_at_a_time_are_all_redacted() -> None:
    """Values added after the automaton was built are matched before and after it is
    rebuilt to hold them (detection learns them one at a time during a run)."""
    values = [random_secret(24, seed=i) for i in range(200)]
    redactor = Redactor(values[:50])
    assert values[0] not in redactor.text(f"x {values[0]} y")  # the main automaton is built
    for i, value in enumerate(values[50:], start=50):
        redactor.add(value)
        text = redactor.text(" ".join(values[: i + 1 : 7]) + f" {value}")
        assert not any(v in text for v in values[: i + 1]), i


def test_model_redaction_copies_only_what_holds_a_value() -> None:
    """A report of thousands of decisions is redacted in one walk: parts with nothing to
    redact come back as they are, numbers and enums are not walked, and text nested in
    tuples, dicts and optional fields still is."""
    from datetime import UTC, datetime
    from enum import StrEnum

    from pydantic import BaseModel, ConfigDict

    value = random_secret(24, seed=5)

    class Kind(StrEnum):
        SECRET = "secret"

    class Part(BaseModel):
        model_config = ConfigDict(frozen=True)
        note: str
        score: float = 0.5

    class Whole(BaseModel):
        model_config = ConfigDict(frozen=True)
        kind: Kind
        when: datetime
        counts: tuple[int, ...]
        parts: tuple[Part, ...]
        extra: dict[str, str]
        maybe: str | None = None

    clean = Part(note="nothing here")
    whole = Whole(
        kind=Kind.SECRET,
        when=datetime(2026, 1, 1, tzinfo=UTC),
        counts=(1, 2),
        parts=(clean, Part(note=f"it is {value}")),
        extra={"k": f"again {value}"},
        maybe=value,
    )
    redactor = Redactor([value, "secret"])
    redacted = redactor.model(whole)
    assert value not in redacted.model_dump_json()
    assert redacted.kind is Kind.SECRET  # an enum member equal to a value stays structure
    assert redacted.parts[0] is clean  # nothing to redact: not copied
    assert redacted.parts[1].note == f"it is {redact_value(value)}"
    assert redacted.maybe == redact_value(value) and redacted.counts == (1, 2)
    assert redactor.model(clean) is clean


def test_subclasses_of_plain_types_are_walked_as_before() -> None:
    """The walk checks exact ``str``, ``int``, ``float``, ``bool`` and ``None`` by
    identity first; a ``str`` subclass is still text, a ``StrEnum`` member is text in
    plain data and structure in a model, and numbers of every kind come back as they are."""
    from enum import IntEnum, StrEnum

    from pydantic import BaseModel, ConfigDict

    value = random_secret(24, seed=9)

    class Text(str):
        pass

    class Kind(StrEnum):
        SAME = "same"

    class Level(IntEnum):
        ONE = 1

    class Holder(BaseModel):
        model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
        items: list[Any]

    redactor = Redactor([value, "same"])
    data: list[Any] = [Text(f"a {value}"), Kind.SAME, Level.ONE, True, 2, 2.5, None, value]
    redacted = redactor.data(data)
    assert redacted[0] == f"a {redact_value(value)}" and redacted[-1] == redact_value(value)
    assert redacted[1] == redact_value("same") and redacted[2:7] == [Level.ONE, True, 2, 2.5, None]
    walked = redactor.model(Holder(items=data)).items
    assert walked[0] == f"a {redact_value(value)}" and walked[-1] == redact_value(value)
    assert walked[1] is Kind.SAME and walked[2:7] == [Level.ONE, True, 2, 2.5, None]
