"""Slack tokens and webhooks, Stripe keys: structures built at test time."""

from __future__ import annotations

import random
import string

import pytest

from tests.validators.helpers import run, summary
from thresher.findings import SecretType
from thresher.validators import ValidationResult
from thresher.validators.saas import SlackTokenValidator, StripeKeyValidator

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits


def chars(alphabet: str, count: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(count))


def digits(count: int, seed: int) -> str:
    return str(random.Random(seed).randint(1, 9)) + chars(string.digits, count - 1, seed + 100)


WEBHOOK_PUBLIC = ("https://", "http://", "hooks.slack.com", "/services/")


def slack(value: str) -> list[ValidationResult]:
    return run(SlackTokenValidator(), value, SecretType.SLACK_TOKEN, WEBHOOK_PUBLIC)


def stripe(value: str) -> list[ValidationResult]:
    return run(StripeKeyValidator(), value, SecretType.STRIPE_KEY)


def webhook(team: str | None = None, channel: str | None = None, secret: str | None = None) -> str:
    team = team or "T" + chars(UPPER, 10, 1)
    channel = channel or "B" + chars(UPPER, 10, 2)
    secret = secret or chars(ALNUM, 24, 3)
    return f"https://hooks.slack.com/services/{team}/{channel}/{secret}"


SLACK_GOOD = {
    "bot": f"xoxb-{digits(12, 1)}-{digits(13, 2)}-{chars(ALNUM, 24, 3)}",
    "legacy bot": f"xoxb-{digits(11, 4)}-{chars(ALNUM, 24, 5)}",
    "user": f"xoxp-{digits(12, 6)}-{digits(12, 7)}-{digits(12, 8)}-"
    f"{chars('0123456789abcdef', 32, 9)}",
    "workspace app": f"xoxa-2-{digits(12, 10)}-{digits(12, 11)}-{digits(12, 12)}-"
    f"{chars('0123456789abcdef', 64, 13)}",
    "refresh": f"xoxr-{digits(12, 14)}-{digits(12, 15)}-{chars(ALNUM, 40, 16)}",
    "rotating": f"xoxe.xoxp-1-{chars(ALNUM + '-_', 150, 17)}",
    "rotation refresh": f"xoxe-1-{chars(ALNUM + '-_', 140, 18)}",
    "app-level": f"xapp-1-A{chars(UPPER, 10, 19)}-{digits(13, 20)}-"
    f"{chars('0123456789abcdef', 64, 21)}",
}


@pytest.mark.parametrize("kind", sorted(SLACK_GOOD))
def test_well_formed_slack_tokens(kind: str) -> None:
    [result] = slack(SLACK_GOOD[kind])
    assert (result.kind, result.status) == ("format", "valid")
    assert result.detail.startswith("well-formed Slack")


@pytest.mark.parametrize(
    "value",
    [
        f"xoxb-abc-{digits(12, 1)}-{chars(ALNUM, 24, 3)}",
        f"xoxb-{digits(12, 1)}-{digits(13, 2)}-{chars(ALNUM, 10, 3)}",
        f"xoxp-{digits(12, 6)}-{chars('0123456789abcdef', 32, 9)}",
        f"xapp-2-{chars(ALNUM, 30, 1)}",
    ],
)
def test_malformed_slack_tokens(value: str) -> None:
    assert summary(slack(value))["format"] == "invalid"


def test_made_up_numeric_ids_are_placeholders() -> None:
    value = f"xoxb-123456789012-1111111111111-{chars(ALNUM, 24, 3)}"
    assert summary(slack(value)) == {"placeholder": "invalid"}


def test_unrelated_value_is_not_slack() -> None:
    assert summary(slack(chars(ALNUM, 40, 1)))["format"] == "invalid"


def test_webhook_url() -> None:
    [result] = slack(webhook())
    assert (result.kind, result.status) == ("structure", "valid")


@pytest.mark.parametrize(
    "value",
    [
        webhook()[:-5],
        webhook(team="t" + chars(UPPER, 10, 1)),
        webhook().replace("hooks.slack.com", "hooks.slack.com.evil.test"),
        webhook().replace("https://", "http://"),
    ],
)
def test_bad_webhook_urls(value: str) -> None:
    assert "invalid" in summary(slack(value)).values()


def test_documentation_webhook_is_placeholder() -> None:
    value = webhook("T00000000", "B00000000", "X" * 24)
    assert summary(slack(value)) == {"placeholder": "invalid"}


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (f"sk_live_{chars(ALNUM, 99, 1)}", ("live-mode", "secret key", "real money")),
        (f"rk_live_{chars(ALNUM, 99, 2)}", ("live-mode", "restricted key")),
        (f"sk_test_{chars(ALNUM, 24, 3)}", ("test-mode", "sandbox")),
        (f"rk_test_{chars(ALNUM, 99, 4)}", ("test-mode", "restricted key")),
    ],
)
def test_stripe_secret_keys_name_their_mode(value: str, words: tuple[str, ...]) -> None:
    [result] = stripe(value)
    assert (result.kind, result.status) == ("format", "valid")
    assert all(word in result.detail for word in words)


@pytest.mark.parametrize("mode", ["live", "test"])
def test_publishable_keys_are_not_secrets(mode: str) -> None:
    [result] = stripe(f"pk_{mode}_{chars(ALNUM, 99, 5)}")
    assert result.status == "invalid" and "publishable" in result.detail
    assert "not a secret" in result.detail


def test_webhook_signing_secret() -> None:
    [result] = stripe(f"whsec_{chars(ALNUM, 32, 6)}")
    assert result.status == "valid" and "webhook signing secret" in result.detail


@pytest.mark.parametrize(
    "value",
    [f"sk_live_{chars(ALNUM, 12, 7)}", f"sk_prod_{chars(ALNUM, 40, 8)}", "whsec_short", "sk_live_"],
)
def test_malformed_stripe_keys(value: str) -> None:
    assert summary(stripe(value))["format"] == "invalid"
