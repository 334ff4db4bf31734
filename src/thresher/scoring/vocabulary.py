"""The fixed vocabularies and patterns the scorer's features read.

Kept apart from the feature code so the words an analyst looks for can be read and
reviewed in one place. Every pattern here runs only on a bounded window of
repository text (see ``features``) and is written to stay linear on it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from thresher.findings.filekind import words
from thresher.findings.profile import may_hold

KEY_TOKENS = words(
    """
    password passwd pwd pass passphrase secret secrets token tokens key keys api apikey auth
    authorization access private client id salt hash sha md5 digest checksum integrity
    signature sig keyid nonce iv uuid guid session cookie csrf bearer jwt cert certificate
    pem public pub user username login email host url uri endpoint label placeholder title
    text message hint description name field ref rev commit version example test mock dummy
    fake default old new confirm encrypted encoded credential credentials cred creds
    database db mysql postgres redis smtp mail aws github slack stripe google azure app
    consumer oauth webhook master root admin seed nkey verifier code pin otp license serial
    hmac encryption signing refresh type format path file dir lang i18n msg error prompt
    value
    """
)
# Words around a value that say it is a digest or a revision, not a credential.
HASH_WORDS = words(
    """
    sha sha1 sha256 sha512 md5 hash digest checksum integrity commit rev revision oid etag
    fingerprint keyid sig signature
    """
)
# Key and line words that say "this is a credential"; without any of them a random-looking
# string is more often a digest, an id or test data than a secret.
CREDENTIAL_WORDS = words(
    """
    password passwd pwd pass passphrase secret secrets token key keys apikey auth
    authorization access private credential credentials cred creds bearer session cookie
    jwt pem cert seed nkey otp pin hmac signing encryption login client consumer webhook
    """
)
UI_KEYS = words(
    """
    label placeholder title text message hint description prompt caption tooltip msg error
    help heading
    """
)
HASH_KEYS = words(
    """
    hash sha md5 digest checksum integrity signature sig keyid fingerprint etag commit rev
    revision sum ref nonce salt iv
    """
)
# The last word of a key that names a setting or an identifier, not a secret value
# (``password_method``, ``token_type``, ``client_id``, ``secret_name``).
SETTING_WORDS = words(
    """
    id ids uuid guid identifier name names alias method methods type types format mode
    options option policy policies length size count algorithm alg scheme field fields
    param params parameter attribute attr column header action enabled required url uri
    endpoint path file filename dir location provider expiry expires ttl timeout prefix
    suffix version
    """
)
PROVIDER_PREFIX = re.compile(
    r"^(gh[pousr]_|github_pat_|AKIA|ASIA|xox[abposr]-|sk_live_|sk_test_|rk_live_|rk_test_|SG\.|"
    r"AIza|npm_|pypi-|glpat-|sk-|hf_|dop_v1_|shpat_|shpss_|EAA|ya29\.|AC[0-9a-f]{32}|SK[0-9a-f]{32})"
)
REFERENCE = re.compile(
    r"\$\{|\$\(|^\$[A-Za-z_]|%\([A-Za-z_]+\)[sd]|\{\{|\}\}|\{%|^%[A-Za-z_]+%$|^<%|"
    r"^\{[A-Za-z_][A-Za-z0-9_.]*\}$|^<[A-Za-z_][^<>]*>$|^\[[A-Za-z_ -]+\]$|^ENC\(|^vault:|"
    r"^#\{|^@[A-Za-z_]+@$|^__[A-Z_]+__$"
)
# Text that every branch of ``REFERENCE`` needs: a value holding none of it is no
# reference, without the pattern's pass over it (its anchored branches are retried at
# every position of a long value).
_REFERENCE_NEEDS = ("$", "%", "{", "}", "<", "[", "@", "ENC(", "vault:", "__")


def is_reference(value: str) -> bool:
    """Whether ``REFERENCE`` finds a reference in ``value``."""
    return any(part in value for part in _REFERENCE_NEEDS) and REFERENCE.search(value) is not None


ENV_ACCESS = re.compile(
    r"getenv|environ|process\.env|System\.getenv|ENV\[|env\(|secrets\.|config\[|settings\.",
    re.IGNORECASE,
)
CODE_CHARS = frozenset("(){};")
COMMENT_START = re.compile(r"^\s*(#|//|/\*|\*|<!--|--|;|rem\s|')", re.IGNORECASE)
I18N_CALL = re.compile(r"(?:\b_|\bt|gettext|translate|i18n|__|trans|lang)\s*\(\s*$")
ASSERTION = re.compile(r"assert|expect\(|should|\.to(Be|Equal)|mock|stub|fake", re.IGNORECASE)
COMPARISON = re.compile(r"(===?|!==?|\.equals\(|\bis\b|\bcase\b)\s*[\"'`]?$")
CLI_FLAG = re.compile(r"(?:^|\s)(-p|--password|--pass|--token|--secret|-P|--api-key|-u)[ =]?$")
AFTER_OPERATOR = re.compile(r"[=:]\s*(?:\(\s*)?$")
TRAILING_COMMENT = re.compile(r"\s*(//|#|/\*)")
# The last character the patterns above that end at ``$`` can end a blank-free text
# with: a text ending otherwise is not searched.
OPERATOR_ENDS = frozenset("=:(")
COMPARISON_ENDS = frozenset("=(se\"'`")  # ``==``, ``.equals(``, ``is``, ``case``, a quote
FLAG_ENDS = frozenset("pdsntPyu=")  # ``-p``, ``--password``, ... ``-u``, then ``=``
# Text every match of ``ENV_ACCESS`` and ``ASSERTION`` holds, lower-cased.
_ENV_NEEDS = (
    "getenv",
    "environ",
    "process.env",
    "env[",
    "env(",
    "secrets.",
    "config[",
    "settings.",
)
_ASSERTION_NEEDS = ("assert", "expect(", "should", ".tobe", ".toequal", "mock", "stub", "fake")


def env_access(text: str) -> bool:
    """``ENV_ACCESS.search(text)``, skipped where it provably finds nothing."""
    return may_hold(text, _ENV_NEEDS) and ENV_ACCESS.search(text) is not None


def may_assert(text: str) -> bool:
    """``ASSERTION.search(text)``, skipped where it provably finds nothing."""
    return may_hold(text, _ASSERTION_NEEDS) and ASSERTION.search(text) is not None


# Filler nobody deploys. ``changeme`` is deliberately not here: it is the default
# password most often left in deployed configs, and the corpus labels it real outside
# test code every time it appears there.
EXPLICIT_PLACEHOLDER = re.compile(
    # ``<password>``, ``[token]``, ``{secret}``: a name in brackets, not a JSON object or
    # an XML element holding a value.
    r"^(x{3,}|X{3,}|\*{3,}|\.{3,}|-{3,}|_{3,}|0{6,}|<[^<>\"':=,]*>|\[[^\[\]\"':=,]*\]|"
    r"\{[^{}\"':=,]*\}|your[_-].*|.*[_-]here|"
    r"replace[_-]?me|todo|tbd|redacted|placeholder)$",
    re.IGNORECASE,
)
# Default passwords that ship as instructions: real when deployed, filler in a template.
DEFAULT_PASSWORDS = words("changeme change_me change-me changeit")
URL_CREDS = re.compile(r"^[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]*@", re.IGNORECASE)
SPLIT = re.compile(r"[^0-9a-z]+")
CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
LINE_WORDS = words(
    """
    example sample test dummy fake mock todo fixme default demo your replace change here
    password secret token key export set env docker compose deploy prod production staging
    dev local localhost assert expect label placeholder
    """
)


DIR_GROUPS: dict[str, frozenset[str]] = {
    "docs": frozenset({"doc", "docs", "documentation", "wiki", "guide", "guides", "tutorial"}),
    "vendor": frozenset({"vendor", "third", "node", "modules", "bower", "dist", "min", "lib"}),
    "certs": frozenset({"cert", "certs", "ssl", "tls", "pki", "keys", "keystore", "ca"}),
    "deploy": frozenset(
        {
            "deploy",
            "deployment",
            "k8s",
            "kubernetes",
            "helm",
            "charts",
            "ansible",
            "roles",
            "terraform",
            "docker",
            "compose",
            "playbooks",
            "inventory",
            "ops",
            "infra",
        }
    ),
    "config": frozenset({"config", "configs", "conf", "settings", "etc", "env", "environments"}),
    "i18n": frozenset({"i18n", "locale", "locales", "lang", "translations", "l10n", "messages"}),
    "template": frozenset({"template", "templates", "tpl", "skeleton", "scaffold", "boilerplate"}),
}
SUFFIXES = words(
    """
    py js ts go java rb php cs kt scala rs c cpp h swift sh bash ps1 yml yaml json toml ini
    cfg conf properties xml env md rst txt html vue jsx tsx sql tf gradle lock ipynb pem key
    crt example sample dist template tpl j2 erb
    """
)


def name_words(text: str) -> list[str]:
    """Lower-case words of a name, in order (``OAuthClientId`` -> o, auth, client, id)."""
    return [t for t in SPLIT.split(CAMEL.sub(" ", text).lower()) if t]


@lru_cache(maxsize=1 << 16)
def name_tokens(text: str) -> tuple[str, ...]:
    """Lower-case words of a name; a word ending in digits also counts without them
    (``sha2``, ``password1``), so a numbered key still says what it holds. Cached: the
    same key names and the same words around values recur across a repository."""
    tokens = name_words(text)
    tokens += [b for t in tokens if (b := t.rstrip("0123456789")) and b != t]
    return (*tokens, *(part for t in tokens if t not in KEY_TOKENS for part in _compound(t)))


# Credential words that end a compound written in one case (``apitoken``,
# ``mysqlrootpwd``, ``secretkey``). ``key`` and ``pass`` end ordinary words too
# (``monkey``, ``bypass``), so they split only after a word of the key vocabulary.
_AFTER_ANY_WORD = ("password", "passwd", "passphrase", "pwd", "secret", "token", "credentials")
_AFTER_A_KEY_WORD = ("key", "pass", "auth")


def _compound(token: str) -> list[str]:
    for suffix in _AFTER_ANY_WORD:
        if token.endswith(suffix) and len(token) > len(suffix) + 1:
            return [suffix, token[: -len(suffix)]]
    for suffix in _AFTER_A_KEY_WORD:
        prefix = token[: -len(suffix)]
        if token.endswith(suffix) and prefix in KEY_TOKENS:
            return [suffix, prefix]
    return []


_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """A rule's name as a feature names it (``rule_<slug>``)."""
    return _NOT_SLUG.sub("_", text.lower()).strip("_") or "custom"
