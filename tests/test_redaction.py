"""The redactor replaces every registered value everywhere it can appear."""

from __future__ import annotations

from pathlib import Path

from tests.tokens import github_token, random_secret
from thresher.agents.transcript import TranscriptWriter, read_messages
from thresher.llm.messages import AssistantMessage, TextPart, ToolCallPart, UserMessage
from thresher.redaction import Redactor, redact_value


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
    from thresher.run import is_public_word

    assert is_public_word("changeme") and is_public_word("Password")
    assert is_public_word("AKIAIOSFODNN7EXAMPLE")  # documented in the bundled skills
    assert not is_public_word("mysupersecretpassword")
    assert not is_public_word("unsecure_session_secret_42")


def test_only_known_provider_prefixes_are_shown() -> None:
    assert redact_value("hunter-secretpass") == "…ass (17 chars)"
    assert redact_value("xoxb-" + "1" * 40).startswith("xoxb-…")
    assert redact_value("sk_live_" + "a" * 24).startswith("sk_live_…")
