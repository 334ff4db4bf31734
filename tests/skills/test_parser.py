"""Every frontmatter rule, good and bad, as ``skills validate`` reports it."""

from __future__ import annotations

from pathlib import Path

import pytest

from thresher.findings import SecretType
from thresher.skills.parser import parse_skill_text

P = Path("skills/x/SKILL.md")


def parse(front: str, body: str = "# T\n") -> object:
    return parse_skill_text(f"---\n{front}\n---\n{body}", P)


def messages(parsed: object) -> list[str]:
    return [p.message for p in parsed.problems]  # type: ignore[attr-defined]


def test_a_complete_standard_skill_has_no_problems() -> None:
    parsed = parse(
        "name: github-tokens\n"
        "description: Checks GitHub tokens.\n"
        "license: Apache-2.0\n"
        "compatibility: Needs git history.\n"
        "allowed-tools: read_file grep\n"
        "metadata:\n"
        "  agent: analysis\n"
        "  phase: 3-verification\n"
        '  required: "true"\n'
        "  secret-type: github-token"
    )
    assert parsed.problems == () and parsed.strict_problems == ()
    assert parsed.name == "github-tokens"
    assert parsed.required is True
    assert parsed.phase == "3-verification"
    assert parsed.secret_types == (SecretType.GITHUB_TOKEN,)
    assert parsed.allowed_tools == "read_file grep"


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("a", True),
        ("aws-keys", True),
        ("x" * 64, True),
        ("x" * 65, False),
        ("AWS-keys", False),
        ("-aws", False),
        ("aws-", False),
        ("aws--keys", False),
        ("aws_keys", False),
        ("aws keys", False),
    ],
)
def test_name_rules(name: str, ok: bool) -> None:
    parsed = parse(f"name: '{name}'\ndescription: d")
    assert (not parsed.problems) is ok, messages(parsed)


def test_missing_and_empty_name_are_reported() -> None:
    assert "missing required key 'name'" in messages(parse("description: d"))
    assert "'name' must be a non-empty string" in messages(parse("name: ''\ndescription: d"))


@pytest.mark.parametrize(("length", "ok"), [(1, True), (1024, True), (1025, False)])
def test_description_length(length: int, ok: bool) -> None:
    parsed = parse(f"name: a\ndescription: {'d' * length}")
    assert (not parsed.problems) is ok


def test_missing_description_is_reported_with_the_line() -> None:
    parsed = parse("name: a")
    assert parsed.problems[0].line == 2
    assert "missing 'description'" in parsed.problems[0].message


def test_description_section_loads_leniently_and_fails_strict() -> None:
    parsed = parse(
        "name: a", body="# A\n\n## Description\n\nFinds things.\nWhen needed.\n\n## Steps\n"
    )
    assert parsed.problems == ()
    assert parsed.description == "Finds things. When needed."
    assert any("## Description" in p.message for p in parsed.strict_problems)


def test_thresher_keys_at_top_level_load_but_fail_strict() -> None:
    parsed = parse(
        "name: a\ndescription: d\nphase: 1-initialization\nrequired: true\n"
        "secret-type: jwt\nagent: analysis"
    )
    assert parsed.problems == ()
    assert parsed.required is True
    assert parsed.secret_types == (SecretType.JWT,)
    assert parsed.agent == "analysis"
    assert {p.message.split("'")[1] for p in parsed.strict_problems} == {
        "phase",
        "required",
        "secret-type",
        "agent",
    }
    assert [p.line for p in parsed.strict_problems] == [4, 5, 6, 7]


def test_unknown_top_level_key_is_an_error_with_its_line() -> None:
    parsed = parse("name: a\ndescription: d\nauthor: me")
    assert parsed.problems[0].line == 4
    assert "unknown frontmatter key 'author'" in parsed.problems[0].message


def test_invalid_yaml_names_the_line() -> None:
    parsed = parse("name: a\ndescription: [unclosed")
    assert "invalid YAML frontmatter" in parsed.problems[0].message
    assert parsed.problems[0].line >= 3


def test_missing_and_unclosed_frontmatter() -> None:
    assert "missing YAML frontmatter" in parse_skill_text("# no front\n", P).problems[0].message
    unclosed = parse_skill_text("---\nname: a\n", P)
    assert "not closed" in unclosed.problems[0].message


def test_frontmatter_must_be_a_mapping() -> None:
    assert messages(parse("- a\n- b")) == ["frontmatter must be a YAML mapping"]


@pytest.mark.parametrize(
    ("meta", "problem"),
    [
        ('  required: "maybe"', "required must be true or false"),
        ("  phase: Verification", "phase 'Verification'"),
        ("  secret-type: github-token, gitlab-token", "unknown secret-type 'gitlab-token'"),
        ("  nested:\n    a: b", "metadata 'nested' must be a string"),
    ],
)
def test_bad_thresher_metadata(meta: str, problem: str) -> None:
    parsed = parse(f"name: a\ndescription: d\nmetadata:\n{meta}")
    assert any(problem in m for m in messages(parsed)), messages(parsed)


def test_secret_type_list_forms() -> None:
    comma = parse("name: a\ndescription: d\nmetadata:\n  secret-type: jwt, password")
    listed = parse("name: a\ndescription: d\nsecret-type:\n  - jwt\n  - password")
    assert comma.secret_types == listed.secret_types == (SecretType.JWT, SecretType.PASSWORD)


def test_compatibility_limit() -> None:
    assert parse(f"name: a\ndescription: d\ncompatibility: {'c' * 501}").problems
    assert not parse(f"name: a\ndescription: d\ncompatibility: {'c' * 500}").problems


def test_allowed_tools_list_is_lenient_only() -> None:
    parsed = parse("name: a\ndescription: d\nallowed-tools:\n  - read_file\n  - grep")
    assert parsed.problems == ()
    assert parsed.allowed_tools == "read_file grep"
    assert parsed.strict_problems


def test_yaml_1_1_booleans_stay_strings_like_the_standard_reads_them() -> None:
    parsed = parse("name: off\ndescription: yes\nmetadata:\n  required: true")
    assert parsed.problems == ()
    assert (parsed.name, parsed.description, parsed.required) == ("off", "yes", True)
