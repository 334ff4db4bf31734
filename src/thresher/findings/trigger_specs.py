"""The prefilter's triggers: for each detect-secrets plugin, what every line it can
report on must hold (see ``triggers``, which reads this table)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from detect_secrets.plugins import keyword as keyword_plugin


@dataclass(frozen=True)
class _Spec:
    """One trigger. ``exact`` (with the plugin's own flags) is checked on a
    single line; ``fast`` is what the whole-text pass searches — in the folded
    text when ``lowered`` — and must hit wherever ``exact`` does."""

    exact: str
    flags: int = 0
    fast: str | None = None
    lowered: bool = False


def _ci(lower_pattern: str, exact: str | None = None) -> _Spec:
    """A case-insensitive trigger written in lower case."""
    return _Spec(exact or lower_pattern, re.IGNORECASE, lower_pattern, lowered=True)


_KEY_OR_PASS = "(?:key|pwd|pw|password|pass|token)"
_KEYWORDS = "|".join(keyword_plugin.DENYLIST)
_ID_RUN = r"[a-z0-9_\-]"
# The look-behind lets the engine try each run once, from its start: the
# maximal run around any 44 such characters starts after a character outside it.
_ID_RUN_44 = _ci(f"(?<!{_ID_RUN}){_ID_RUN}{{44}}", "[a-zA-Z0-9_\\-]{44}")

_DISCORD = r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"

# plugin class -> (fingerprint of its regexes, triggers). Each comment names the
# part of the plugin's pattern that every match must contain.
_REGEX_PLUGINS: dict[str, tuple[str, tuple[_Spec, ...]]] = {
    # (?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}... and ...AP[\dABCDEF][a-zA-Z0-9]{8,}...
    "ArtifactoryDetector": ("03ca10aeff554ff6", (_Spec(r"AKC|AP[\dABCDEF]"),)),
    # (?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)... and (?i)aws.{0,20}?key...
    "AWSKeyDetector": ("42e52c23842e43b7", (_Spec("A3T|ABIA|ACCA|AKIA|ASIA"), _ci("aws"))),
    "AzureStorageKeyDetector": ("b4ac01445d8a6681", (_Spec("AccountKey="),)),
    # ://[^reserved\s]+:([^reserved\s]+)@ : the plugin's own regex, which cannot
    # cross a newline; reused verbatim below.
    "BasicAuthDetector": ("f8c9e6adef0cd7ca", ()),
    # (?i) (?:cloudant|cl|clou)(?:_|-|)(?:api|)<key-or-pass>... and https?://...cloudant\.com
    "CloudantDetector": (
        "7f086fa0fa87ebc1",
        (_ci(f"cloudant|cl(?:ou)?(?:_|-|)(?:api|){_KEY_OR_PASS}"),),
    ),
    # [MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}: the whole-text pass
    # searches its tail from the first dot, where the automaton can skip ahead.
    "DiscordBotTokenDetector": (
        "e8cc08c35f53130c",
        (_Spec(_DISCORD, 0, r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),),
    ),
    "GitHubTokenDetector": ("c06412cd4c3599b5", (_Spec("(?:ghp|gho|ghu|ghs|ghr)_"),)),
    "GitLabTokenDetector": (
        "3734982b6a72add4",
        (_Spec("gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-"), _Spec("GR1348941")),
    ),
    # (?i) ...([a-zA-Z0-9_\-]{44}(?![a-zA-Z0-9_\-])): a run of 44 such characters.
    "IbmCloudIamDetector": ("fc0bf3786c5eb2a1", (_ID_RUN_44,)),
    # (?i) ...([a-f0-9]{48}(?![a-f0-9])): 48 hex digits are also a run of 44 of
    # [a-z0-9_-], so the whole-text pass shares the trigger above.
    "IbmCosHmacDetector": (
        "59503c343fe889d3",
        (_Spec("[a-f0-9]{48}", re.IGNORECASE, _ID_RUN_44.fast, lowered=True),),
    ),
    # four dot-separated groups of one to three ASCII digits
    "IPPublicDetector": ("3ad9c91a5b1d5faa", (_Spec(r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]"),)),
    "JwtTokenDetector": ("90f09773dba97319", (_Spec("eyJ"),)),
    "MailchimpDetector": ("dee1cfb51abb80c2", (_Spec("-us[0-9]"),)),
    "NpmDetector": ("98490516304a893f", (_Spec("/:_authToken="),)),
    "OpenAIDetector": ("86f831ee4d4281f5", (_Spec("T3BlbkFJ"),)),
    "PrivateKeyDetector": ("490a13217fabbd41", (_Spec("PRIVATE KEY|PuTTY-User-Key-File-2"),)),
    "PypiTokenDetector": ("b7c6ecf08d7f5d4d", (_Spec("pypi-AgE"),)),
    "SendGridDetector": ("4dfd257ab90f16da", (_Spec(r"SG\."),)),
    "SlackDetector": (
        "af6560b9c2879517",
        (_ci(r"xox(?:a|b|p|o|s|r)-"), _ci(r"hooks\.slack\.com/services/")),
    ),
    # (?i) both regexes end in ([a-z0-9]{64}): also a run of 44 of [a-z0-9_-].
    "SoftlayerDetector": (
        "876d92a124202e12",
        (_Spec("[a-z0-9]{64}", re.IGNORECASE, _ID_RUN_44.fast, lowered=True),),
    ),
    "SquareOAuthDetector": ("71af0e102c08dd03", (_Spec("sq0csp-"),)),
    "StripeDetector": ("fd51cbb18180f5e4", (_Spec("k_live_"),)),
    # \d{8,10}:... ends in eight digits and a colon; the fast form starts at the
    # colon so the engine can skip ahead to it.
    "TelegramBotTokenDetector": ("b3a83412d0c30407", (_Spec(r"\d{8}:", 0, r":(?<=\d{8}:)"),)),
    "TwilioKeyDetector": ("52c2441e378ffbf1", ()),  # verbatim: no newline possible
}
_VERBATIM = {"BasicAuthDetector", "TwilioKeyDetector"}

# Plugins whose triggers are searched as one RE2 union, one pass over the text instead of
# one per trigger: short literal-led triggers, and the two quoted runs. A line the
# union hits is checked with the exact regexes of every plugin in it, and each of those
# hits only where its own trigger does, so the lines kept are the same. (The slow
# passes left alone would make a union slower than they are apart.)
_SHARED_PASSES: dict[str, frozenset[str]] = {
    "tokens": frozenset(
        {
            "ArtifactoryDetector",
            "AWSKeyDetector",
            "AzureStorageKeyDetector",
            "GitHubTokenDetector",
            "GitLabTokenDetector",
            "IPPublicDetector",
            "JwtTokenDetector",
            "MailchimpDetector",
            "NpmDetector",
            "OpenAIDetector",
            "PrivateKeyDetector",
            "PypiTokenDetector",
            "SendGridDetector",
            "SquareOAuthDetector",
            "StripeDetector",
            "TwilioKeyDetector",
        }
    ),
    "quoted": frozenset({"Base64HighEntropyString", "HexHighEntropyString"}),
}
