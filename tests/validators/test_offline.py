"""Offline validators on tokens generated at test time."""

from __future__ import annotations

import pytest

from tests.tokens import github_token
from thresher.findings import Finding
from thresher.validators import ValidationStatus, ValidatorRegistry
from thresher.validators.offline import base62


def finding(rule: str = "GitHub Token") -> Finding:
    return Finding.model_validate(
        {
            "id": "f",
            "rule_id": rule,
            "fingerprint": "x",
            "redacted": "r",
            "locations": [{"path": "a", "line": 1}],
        }
    )


def statuses(value: str, rule: str = "GitHub Token") -> dict[tuple[str, str], str]:
    results = ValidatorRegistry.default().validate(value, finding(rule))
    return {(r.validator, r.kind.value): r.status.value for r in results}


def test_base62_encoding() -> None:
    assert base62(0) == "000000"
    assert base62(61) == "00000z"
    assert base62(62) == "000010"


@pytest.mark.parametrize("prefix", ["ghp", "gho", "ghu", "ghs", "ghr"])
def test_generated_github_token_passes_its_checksum(prefix: str) -> None:
    result = statuses(github_token(prefix))
    assert result[("github-token-format", "checksum")] == "valid"
    assert result[("placeholder", "placeholder")] == "valid"


def test_wrong_checksum_is_invalid() -> None:
    result = statuses(github_token(valid_checksum=False))
    assert result[("github-token-format", "checksum")] == "invalid"


def test_wrong_shape_is_invalid() -> None:
    assert statuses("ghp_short")[("github-token-format", "format")] == "invalid"


@pytest.mark.parametrize(
    "value",
    ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
)
def test_documentation_values_are_recognised_as_documentation(value: str) -> None:
    # Hard evidence, whatever scanner rule flagged the value.
    result = statuses(value, "Secret Keyword")
    assert result == {("placeholder", "documentation"): "invalid"}


@pytest.mark.parametrize(
    "value",
    [
        "<your-api-key>",
        "xxxxxxxxxxxxxxxx",
        "aaaaaaaaaaaa",
        "your_api_key_here",
        "changeme",
    ],
)
def test_placeholders_are_recognised(value: str) -> None:
    # Placeholder patterns are soft evidence: never reported as documentation values.
    assert statuses(value, "Secret Keyword") == {("placeholder", "placeholder"): "invalid"}


@pytest.mark.parametrize("value", ["${GITHUB_TOKEN}", "{{ secrets.TOKEN }}"])
def test_a_whole_value_interpolation_is_syntax(value: str) -> None:
    # Hard evidence: the value is the file's own reference syntax, no literal at all.
    assert statuses(value, "Secret Keyword") == {("placeholder", "syntax"): "invalid"}


def test_type_specific_validators_apply_only_to_their_type() -> None:
    registry = ValidatorRegistry.default()
    names = [v.name for v in registry.applicable(finding("Secret Keyword"))]
    assert names == ["placeholder"]
    assert ValidationStatus.UNKNOWN.value == "unknown"
