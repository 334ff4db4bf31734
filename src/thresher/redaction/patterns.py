"""What a secret looks like, as RE2 patterns: the tables behind ``thresher.redaction.detector``.

Three sources, so that redaction recognises at least what the scanner reports and
what the providers issue:

- detect-secrets' own plugins. Their regular expressions are used as they are when
  RE2 accepts them; look-around (which RE2 lacks) is dropped, which only widens a
  pattern: for redaction that errs on the safe side. The keyword plugin contributes
  its list of secret-sounding names, the entropy plugins their alphabet, limit and
  entropy measure.
- Provider formats, each written to take the whole token (an open-ended tail rather
  than the exact length), so no end of a longer token survives a match.
- Values given away by where they sit: a URL's userinfo, an ``Authorization``
  header (actions/checkout writes ``AUTHORIZATION: basic <base64>`` into
  ``.git/config``), an assignment to a secret-sounding name.

Every pattern runs on RE2, whose matching time is linear in the text whatever the
pattern: the text comes from an untrusted repository.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, cast


class Kind(Enum):
    """Where a rule's value sits in its match, and what makes it a secret."""

    FORMAT = "format"  # a provider's own shape: the match (or group ``v``) is the secret
    RANDOM = "random"  # a generic prefix (``sk-``, ``Bearer``): the value must hold a digit
    PLUGIN = "plugin"  # a detect-secrets regex: its first capture inside the match, else it
    CUSTOM = "custom"  # a custom rule: its ``secret`` group, or the match
    ASSIGNED = "assigned"  # a URL's password or a header's credential: not a reference
    KEYWORD = "keyword"  # assigned to a secret-sounding name: not a reference or a plain word
    BASE64_ENTROPY = "base64-entropy"  # a quoted string above the plugin's entropy limit
    HEX_ENTROPY = "hex-entropy"  # the same in hex, except the lengths of git object ids


@dataclass(frozen=True)
class Rule:
    """One pattern (RE2 syntax, matched against UTF-8 bytes) and its redaction slug."""

    slug: str
    pattern: str
    kind: Kind


@dataclass(frozen=True)
class Entropy:
    """An entropy plugin's alphabet, limit and measure (detect-secrets' own method)."""

    charset: str
    limit: float
    plugin: Any

    def passes(self, value: str) -> bool:
        return bool(self.plugin.calculate_shannon_entropy(value) > self.limit)


_TAIL = "[A-Za-z0-9_-]"
# Provider formats. Each ends in an open tail so a longer token is taken whole.
FORMATS: tuple[Rule, ...] = (
    Rule("github-token", rf"gh[pousr]_{_TAIL}{{30,}}|github_pat_{_TAIL}{{30,}}", Kind.FORMAT),
    Rule(
        "gitlab-token",
        rf"(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas)-{_TAIL}{{20,}}"
        rf"|GR1348941{_TAIL}{{20,}}",
        Kind.FORMAT,
    ),
    Rule("aws-access-key", r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16,}", Kind.FORMAT),
    Rule(
        "slack-token", r"xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}", Kind.FORMAT
    ),
    Rule(
        "stripe-key",
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,}",
        Kind.FORMAT,
    ),
    Rule("google-api-key", rf"AIza{_TAIL}{{30,}}", Kind.FORMAT),
    Rule("anthropic-key", rf"sk-ant-{_TAIL}{{20,}}", Kind.FORMAT),
    Rule("openai-key", rf"\bsk-(?:proj-|svcacct-|admin-)?{_TAIL}{{20,}}", Kind.RANDOM),
    Rule("npm-token", r"\bnpm_[A-Za-z0-9]{30,}", Kind.FORMAT),
    Rule("pypi-token", rf"\bpypi-{_TAIL}{{50,}}", Kind.FORMAT),
    Rule("sendgrid-key", rf"SG\.{_TAIL}{{16,}}\.{_TAIL}{{16,}}", Kind.FORMAT),
    Rule("jwt", rf"\beyJ{_TAIL}{{5,}}\.{_TAIL}{{5,}}(?:\.{_TAIL}*)?", Kind.FORMAT),
    # base64("x-access-token:"), 15 bytes: the same 20 characters whatever follows, so a
    # checkout token stays recognisable once encoded for a Basic header.
    Rule("basic-auth-credentials", r"eC1hY2Nlc3MtdG9rZW46[A-Za-z0-9+/]*={0,2}", Kind.FORMAT),
    # A PEM private key, whole: header, base64 lines (also in a diff, indented in YAML,
    # or with escaped newlines in a JSON string), the footer when it is there. Without
    # a footer (a cut output, a broken key) the base64 lines that follow still go.
    Rule(
        "private-key",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?:\r?\n|\\r?\\n|[ \t])[ \t\"'+]*-?"
        r"(?:[A-Za-z0-9+/=]+|[A-Za-z][A-Za-z-]{0,30}: ?[^\r\n\\]*)[ \t\"',+]*)*"
        r"(?:(?:\r?\n|\\r?\\n|[ \t])[ \t\"'+-]*"
        r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
        Kind.FORMAT,
    ),
    Rule(
        "private-key",
        r"PuTTY-User-Key-File-[0-9]: [^\r\n]*"
        r"(?:\r?\n(?:[A-Za-z][A-Za-z-]{0,30}: [^\r\n]*|[A-Za-z0-9+/=]+))*",
        Kind.FORMAT,
    ),
)

# Credentials given away by their place rather than their shape.
_HEADER_VALUE = "[A-Za-z0-9+/=._~-]"
ASSIGNMENTS: tuple[Rule, ...] = (
    Rule(
        "url-password",
        r"(?i:\b[a-z][a-z0-9+.-]{1,30}://)[^\s:/?#@\"'<>\[\]]+:(?P<v>[^\s/?#@\"'<>\[\]]+)@",
        Kind.ASSIGNED,
    ),
    Rule(
        "authorization-header",
        r"(?i:\b(?:proxy-)?authorization)[\"'\]]{0,2}[ \t]*[:=][ \t]*[\"']?"
        rf"(?i:basic|bearer|token|digest|bot|apikey|key)[ \t]+(?P<v>{_HEADER_VALUE}+)",
        Kind.ASSIGNED,
    ),
    Rule("bearer-token", rf"(?i:\bbearer)[ \t]+(?P<v>{_HEADER_VALUE}{{16,}})", Kind.RANDOM),
    Rule("authorization-header", r"(?i:\bbasic)[ \t]+(?P<v>[A-Za-z0-9+/]{16,}={0,2})", Kind.RANDOM),
)

# Added to detect-secrets' keyword list: names its plugin leaves to other plugins but
# that hold credentials in .env and CI files all the same.
_EXTRA_KEYWORDS = ("token", "access_?key", "secret_?key", "credentials?", "passphrase")
_PASSWORD_WORDS = ("pass", "pwd", "contrase")
# Every slug ``keyword_slug`` gives (``thresher.redaction.hiding`` reads them).
KEYWORD_SLUGS = ("password", "secret", "token", "credential", "key")


def keyword_slug(keyword: str) -> str:
    """The slug for a value assigned to ``keyword`` (``DB_PASSWORD`` -> ``password``)."""
    word = keyword.lower()
    if any(p in word for p in _PASSWORD_WORDS):
        return "password"
    for slug in KEYWORD_SLUGS[1:-1]:  # "password" is the words above; "key" the rest
        if slug in word:
            return slug
    return "key"


def is_password_keyword(keyword: str) -> bool:
    return keyword_slug(keyword) == "password"


def keyword_rule() -> Rule:
    """Assignments to secret-sounding names, in code, .env, YAML, INI and JSON.

    The value is quoted (escapes allowed) or bare; after a bare value, ``call`` says a
    call or an index follows (``get_password()``) and ``more`` that prose goes on
    (``password: must be long``), which the detector uses to tell a value from a word.
    """
    from detect_secrets.plugins.keyword import DENYLIST

    names = "|".join((*DENYLIST, *_EXTRA_KEYWORDS))
    return Rule(
        "secret-keyword",
        rf"(?i:[a-z0-9_.-]{{0,40}}?(?P<kw>{names})[a-z0-9_.-]{{0,40}})[\"'\]]{{0,2}}[ \t]*"
        r"(?::=|=>|::|=|:)[ \t]*"
        r"(?:\"(?P<v>(?:[^\"\\\r\n]|\\.)+)\"|'(?P<v2>(?:[^'\\\r\n]|\\.)+)'"
        r"|(?P<v3>[^\s\"'`(){}\[\]<>]+)(?P<call>[(\[]?)(?P<more>[ \t]+[A-Za-z])?)",
        Kind.KEYWORD,
    )


def entropy_rule(entropy: Entropy, kind: Kind, slug: str) -> Rule:
    """Quoted runs of the plugin's alphabet long enough to pass its limit at all.

    The plugin's own regex needs a backreference to pair the quotes; two alternatives
    do the same in RE2. Shannon entropy of n characters is at most log2(n), so a
    shorter run can never pass and is not matched.
    """
    shortest = max(1, math.ceil(2**entropy.limit - 1e-9))
    members = "".join("\\" + c if c in "\\]^-[" else c for c in entropy.charset)
    run = f"[{members}]{{{shortest},}}"
    return Rule(slug, rf"\"(?P<v>{run})\"|'(?P<v2>{run})'", kind)


# Plugins whose findings other rules redact, or that find no secret, and why.
PLUGINS_ELSEWHERE: dict[str, str] = {
    "KeywordDetector": "its list of names drives the keyword rule",
    "Base64HighEntropyString": "its alphabet, limit and measure drive the entropy rule",
    "HexHighEntropyString": "its alphabet, limit and measure drive the entropy rule",
    "PrivateKeyDetector": "it reports the header line; the private-key rule takes the block",
    "IPPublicDetector": "an address is not a credential, and it is what a model reads "
    "to tell a documentation host from a production one",
}


def slugify(name: str) -> str:
    """``AWS Access Key`` -> ``aws-access-key``: the form a redaction token carries."""
    return "-".join(re.findall(r"[a-z0-9]+", name.lower())) or "secret"


_LINE_ANCHORS = {"\\A": "^", "\\Z": "$"}


def widen_for_re2(pattern: str) -> str:
    r"""The pattern without look-around, and repeat bounds RE2 accepts.

    RE2 has no look-around. Dropping an assertion only removes a condition, so the
    result matches everything the original did and maybe more: for redaction, the
    safe direction. RE2 also caps counted repetition at 1000; a larger upper bound is
    left open for the same reason.

    The scanner runs these patterns on one line at a time, where ``\A`` and ``\Z``
    mean the line's start and end; here they run on whole texts in multi-line mode,
    where ``^`` and ``$`` mean that.
    """
    out: list[str] = []
    i, depth_skip = 0, 0
    in_class = False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if not depth_skip:
                escape = pattern[i : i + 2]
                out.append(_LINE_ANCHORS.get(escape, escape))
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith(("[]", "[^]"), i):  # a leading ] is a member
                step = 2 if pattern[i + 1] == "]" else 3
                if not depth_skip:
                    out.append(pattern[i : i + step])
                i += step
                continue
        elif char == "(":
            if depth_skip or pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
                depth_skip += 1
        elif char == ")" and depth_skip:
            depth_skip -= 1
            i += 1
            continue
        if not depth_skip:
            out.append(char)
        i += 1
    widened = "".join(out)
    return re.sub(
        r"\{(\d+),(\d+)\}",
        lambda m: f"{{{m[1]},}}" if int(m[2]) > 1000 else m[0],
        widened,
    )


def plugin_patterns() -> Iterator[tuple[str, str, str | None]]:
    """(secret type, plugin class, RE2 pattern or None) for every detect-secrets
    plugin; None for a plugin covered elsewhere (``PLUGINS_ELSEWHERE``) or whose
    pattern RE2 cannot run even widened (listed by ``Detector.uncovered``)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    classes: dict[str, type[Any]] = dict(get_mapping_from_secret_type_to_class())
    for secret_type, cls in sorted(classes.items()):
        name = cls.__name__
        if name in PLUGINS_ELSEWHERE:
            continue
        plugin: Any = cast(Any, cls)()  # every plugin has defaults for its arguments
        denylist = getattr(plugin, "denylist", None)
        if not denylist:
            yield secret_type, name, None
            continue
        for regex in denylist:
            yield secret_type, name, _as_re2(regex)


def _as_re2(regex: re.Pattern[str]) -> str | None:
    """The plugin's pattern with its flags inline, widened for RE2; None when its
    flags cannot be carried over (a verbose pattern that uses whitespace or comments)."""
    pattern = widen_for_re2(regex.pattern)
    if regex.flags & re.VERBOSE and re.search(r"[\s#]", pattern):
        return None
    # Multi-line always: the scanner runs the pattern line by line (see widen_for_re2).
    flags = "m" + "".join(
        letter for flag, letter in ((re.IGNORECASE, "i"), (re.DOTALL, "s")) if regex.flags & flag
    )
    return f"(?{flags}:{pattern})"


@cache
def entropy_plugins() -> tuple[Entropy, Entropy]:
    """detect-secrets' base64 and hex entropy plugins, with their default limits."""
    from detect_secrets.plugins.high_entropy_strings import (
        Base64HighEntropyString,
        HexHighEntropyString,
    )

    b64, hexa = Base64HighEntropyString(), HexHighEntropyString()
    return Entropy(b64.charset, b64.entropy_limit, b64), Entropy(
        hexa.charset, hexa.entropy_limit, hexa
    )
