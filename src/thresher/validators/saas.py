"""Slack tokens and webhooks, Stripe keys: structure of the formats the vendors issue."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from thresher.findings import Finding, SecretType
from thresher.validators.base import CheckKind, ValidationResult, Validator

_SEQUENTIAL = "01234567890123456789"

# One pattern per Slack token family; numeric segments are team/user/app ids.
_SLACK_TOKENS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^xoxb-(\d{8,14})(?:-(\d{8,14}))?-[A-Za-z0-9]{24,32}$"), "xoxb bot token"),
    (
        re.compile(r"^xoxp-(\d{8,14})-(\d{8,14})-(\d{8,14})-[a-f0-9]{32}$"),
        "xoxp user token",
    ),
    (
        re.compile(r"^xoxa-(?:2-)?(\d{8,14})-(\d{8,14})-(\d{8,14})-[a-f0-9]{32,64}$"),
        "xoxa workspace app token",
    ),
    (
        re.compile(r"^xoxr-(?:\d-)?(\d{8,14})-(\d{8,14})-(?:(\d{8,14})-)?[A-Za-z0-9]{24,64}$"),
        "xoxr refresh token",
    ),
    (re.compile(r"^xoxe\.xox[bp]-1-[A-Za-z0-9_-]{40,400}$"), "xoxe rotating access token"),
    (re.compile(r"^xoxe-1-[A-Za-z0-9_-]{40,400}$"), "xoxe refresh token (token rotation)"),
    (
        re.compile(r"^xapp-1-A[A-Z0-9]{8,12}-(\d{8,14})-[a-f0-9]{64}$"),
        "xapp app-level token",
    ),
)
_SLACK_PREFIX = re.compile(r"^(xox[abprse]|xapp)[-.]")
_WEBHOOK_PATH = re.compile(r"^/services/(T[A-Z0-9]{8,12})/(B[A-Z0-9]{8,12})/([A-Za-z0-9]{24})$")


def _made_up_digits(segment: str) -> bool:
    return len(set(segment)) == 1 or segment in _SEQUENTIAL or segment in _SEQUENTIAL[::-1]


class SlackTokenValidator(Validator):
    name = "slack-token-format"
    description = (
        "Slack xoxb/xoxp/xoxa/xoxr/xoxe/xapp token structure (numeric team and user "
        "segments) and incoming webhook URL structure"
    )
    secret_types = frozenset({SecretType.SLACK_TOKEN})

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        value = value.strip()
        if value.lower().startswith(("https://", "http://")):
            return self._webhook(value)
        for pattern, kind in _SLACK_TOKENS:
            match = pattern.match(value)
            if match:
                digits = [g for g in match.groups() if g]
                if digits and all(_made_up_digits(g) for g in digits):
                    return [
                        self.invalid(
                            CheckKind.PLACEHOLDER,
                            f"{kind} whose numeric ids are repeated or sequential digits: "
                            "made up, not issued by Slack",
                        )
                    ]
                return [self.valid(CheckKind.FORMAT, f"well-formed Slack {kind}")]
        prefix = _SLACK_PREFIX.match(value)
        if prefix:
            return [
                self.invalid(
                    CheckKind.FORMAT,
                    f"Slack {prefix.group(1)} prefix but the segments do not have the shape "
                    f"Slack issues ({value.count('-')} dashes, {len(value)} characters)",
                )
            ]
        return [self.invalid(CheckKind.FORMAT, "not the shape of any Slack token or webhook")]

    def _webhook(self, value: str) -> list[ValidationResult]:
        try:
            parts = urlsplit(value)
        except ValueError:
            return [self.invalid(CheckKind.FORMAT, "not a parseable URL")]
        if parts.hostname != "hooks.slack.com":
            return [self.invalid(CheckKind.FORMAT, "a URL, but not on the Slack webhook host")]
        if parts.scheme != "https":
            return [self.invalid(CheckKind.FORMAT, "Slack webhooks are https only")]
        if parts.path.startswith("/workflows/"):
            return [self.valid(CheckKind.FORMAT, "Slack workflow webhook URL")]
        match = _WEBHOOK_PATH.match(parts.path)
        if not match:
            return [
                self.invalid(
                    CheckKind.STRUCTURE,
                    "Slack webhook host but the path is not services, team id, channel id "
                    "and a 24-character secret: truncated or altered",
                )
            ]
        team, channel, secret = match.groups()
        if all(len(set(part[1:])) == 1 for part in (team, channel)) or len(set(secret)) <= 2:
            return [
                self.invalid(
                    CheckKind.PLACEHOLDER,
                    "webhook ids or secret are filler (zeros or X's, as in Slack's docs)",
                )
            ]
        return [
            self.valid(
                CheckKind.STRUCTURE,
                "well-formed Slack incoming webhook URL (team id, channel id, 24-character secret)",
            )
        ]


_STRIPE = re.compile(r"^(sk|rk|pk)_(live|test)_([0-9A-Za-z]{10,247})$")
_WHSEC = re.compile(r"^whsec_([A-Za-z0-9+/=]{24,128})$")
_STRIPE_KIND = {"sk": "secret key", "rk": "restricted key", "pk": "publishable key"}


class StripeKeyValidator(Validator):
    name = "stripe-key-format"
    description = (
        "Stripe keys: secret/restricted (sk_/rk_) live or test mode, publishable (pk_, not "
        "a secret), webhook signing secrets (whsec_)"
    )
    secret_types = frozenset({SecretType.STRIPE_KEY})

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        value = value.strip()
        if _WHSEC.match(value):
            return [self.valid(CheckKind.FORMAT, "well-formed Stripe webhook signing secret")]
        match = _STRIPE.match(value)
        if not match:
            return [self.invalid(CheckKind.FORMAT, "not the shape of any Stripe key")]
        kind, mode, body = match.groups()
        label = _STRIPE_KIND[kind]
        if kind == "pk":
            return [
                self.invalid(
                    CheckKind.STRUCTURE,
                    f"Stripe {mode}-mode publishable key: public by design (shipped to "
                    "browsers), not a secret",
                )
            ]
        if len(body) < 24:
            return [
                self.invalid(
                    CheckKind.FORMAT,
                    f"Stripe {mode}-mode {label} prefix but the body is too short "
                    f"({len(body)} characters; Stripe issues 24 or more)",
                )
            ]
        if mode == "live":
            detail = f"well-formed Stripe live-mode {label}: can move real money"
        else:
            detail = f"well-formed Stripe test-mode {label}: sandbox only, no real money"
        return [self.valid(CheckKind.FORMAT, detail)]
