"""From matched text to a candidate value: read it as its syntax's parser would, then
decide whether it can be a credential at all.

A generic rule sees ``password: "hunter2"  # old``, ``PASSWORD=hunter2``,
``'password' => 'hunter2',`` and ``<password>hunter2</password>``; in each the
credential is ``hunter2``, and it is what the vault must hold, what the scorer must
read and what must merge with detect-secrets' report of the same value. The filters
drop what no parser would hand a program as a literal secret -- a reference to
another variable (``${DB_PASSWORD}``, ``$PASS``, ``{{ pass }}``, ``%(pass)s``), a
boolean or null, the key's own name, code -- and keep short and word-like passwords,
which detect-secrets drops although they are real leaks.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import zlib
from collections import Counter
from functools import lru_cache
from itertools import pairwise

from thresher.findings.rules.book import Check

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_QUOTES = {'"': '"', "'": "'", "`": "`"}
# Files whose unquoted values are literal text (configuration, documents, shells'
# assignments); in source code an unquoted value is an expression.
_LITERAL_SUFFIXES = (
    ".yml", ".yaml", ".env", ".ini", ".cfg", ".conf", ".cnf", ".properties", ".toml",
    ".txt", ".md", ".rst", ".adoc", ".sh", ".bash", ".zsh", ".ps1", ".bat", ".cmd",
    ".npmrc", ".pypirc", ".netrc", ".tf", ".tfvars", ".hcl", ".j2", ".tpl", ".example",
    ".sample", ".dist", ".template", ".xml", ".config", ".service", ".desktop", ".htpasswd",
    ".html", ".htm", ".csv", ".log",
)  # fmt: skip
_LITERAL_NAMES = ("dockerfile", ".env", "makefile", "procfile", ".npmrc", ".netrc", ".pypirc")

# Patterns used per match, compiled once (``re``'s own cache is a lookup per call).
_COMMENT_TAIL = re.compile(r"\s+[#;]|\s+//|\s+\\$")
_TOKEN_END = re.compile(r"[\s,;)}\]&'\"<>]")
_NOT_ALNUM = re.compile(r"[^a-z0-9]")
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]+")
_CASE_BREAK = re.compile(r"([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])")
_WORD_BREAK = re.compile(r"[^a-z0-9]+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WORDLESS = _words(
    "true false null none nil undefined yes no on off empty blank required optional "
    "string str int integer bool boolean object any char bytes"
)
_REFERENCE = re.compile(
    r"""^(?:
        \$\{[^}]*\}                     # ${VAR}, ${VAR:-x}: a shell or template reference
      | \$\(.*\)                        # $(command)
      | \$[A-Za-z_][A-Za-z0-9_]*        # $VAR
      | \{\{.*\}\}                      # {{ var }}
      | \{%.*%\}                        # {% tag %}
      | <%.*%>                          # <%= erb %>
      | %\([A-Za-z0-9_]+\)[sd]          # %(var)s
      | %[A-Za-z_][A-Za-z0-9_]*%        # %VAR%
      | @[A-Za-z_][A-Za-z0-9_.]*@       # @VAR@ (Maven, autoconf)
      | \#\{[^}]*\}                     # #{ruby}
      | <[A-Za-z_][A-Za-z0-9_ .\-]*>    # <password>: a placeholder
      | \[[A-Za-z_][A-Za-z0-9_ .\-]*\]  # [password]: a placeholder
      | [*xX.\-_#]{3,}                  # ****, xxxx, ...
      | (?:process\.env|os\.environ|env|ENV|System\.getenv|getenv|settings|config)\b.*
    )$""",
    re.VERBOSE,
)
# An unquoted value that is an expression in code: a name, a dotted path, a call.
_EXPRESSION = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:[(\[{<].*)?")
_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]+")  # a measure (0.75, 1.5): never a password
_INTERPOLATION = re.compile(r"\$\{[^}]+\}|\{\{[^}]*\}\}|#\{[^}]+\}|<%.*%>|%\([a-zA-Z_]+\)[sd]")
_TYPE_HINT = re.compile(r"^(?:string|str|char\s*\*|const|var|let|val)\s+", re.IGNORECASE)


def literal_file(path: str) -> bool:
    """Whether an unquoted value in this file is text rather than an expression (a file
    without an extension is configuration or a script far more often than code)."""
    lower = path.lower()
    name = lower.rsplit("/", 1)[-1]
    return lower.endswith(_LITERAL_SUFFIXES) or name.startswith(_LITERAL_NAMES) or "." not in name


def read_value(rest: str, *, literal: bool) -> tuple[str, bool]:
    """The value at the start of ``rest`` (what follows ``key =``), and whether it was
    quoted. Quoted: up to the matching quote (backslash escapes kept as written).
    Unquoted in a literal file: to the end of the line, without a trailing comment or
    a shell line continuation. Unquoted in code: one token."""
    rest = _TYPE_HINT.sub("", rest.lstrip(), count=1)
    if not rest:
        return "", False
    quote = _QUOTES.get(rest[0])
    if quote is not None:
        end = _closing(rest, quote)
        return (rest[1:end], True) if end > 0 else ("", True)
    if literal and not rest.startswith(("[", "{", "(")):
        text = _COMMENT_TAIL.split(rest, maxsplit=1)[0].strip()
        # More than one word unquoted: prose, a table, a shell command; the value is
        # its first word (``INWX_PASSWORD=v \``, ``pass: v -> next``).
        text = text.split()[0] if text else text
        return text.rstrip(",;"), False
    token = _TOKEN_END.split(rest, maxsplit=1)[0]
    return token, False


def _closing(text: str, quote: str) -> int:
    index = 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == quote:
            return index
        index += 1
    return -1


def plausible(value: str, *, key: str = "", quoted: bool, literal: bool) -> bool:
    """Whether a value read from an assignment can be a credential (see the module
    docstring): not empty, not a reference or placeholder, not a boolean, null or type,
    not the key's own name, and -- unquoted in code -- not an expression."""
    stripped = value.strip()
    if len(stripped) < 3 or len(stripped) > 4096:
        return False
    lower = stripped.lower()
    if lower in _WORDLESS or _REFERENCE.match(stripped) or _DECIMAL.fullmatch(stripped):
        return False
    if key and _squash(lower) == _squash(key.lower()):
        return False
    if _sentence(stripped) or _INTERPOLATION.search(stripped):
        return False  # prose, or text with a reference inside (``Bearer ${t}``)
    if not quoted and not literal and _EXPRESSION.fullmatch(stripped) and not _random(stripped):
        return False
    if (not quoted and stripped[0] in "([{") or stripped.endswith(("(", "=>")):
        return False
    return not stripped.startswith(("http://", "https://", "/", "./", "~/"))


def placeholder(value: str) -> bool:
    """Whether a value is no literal at all: a reference to another variable or a
    template (``${VAR}``, ``{{ .Values.x }}``, text holding one), a placeholder
    (``<password>``, ``****``) or a boolean, null or type name."""
    stripped = value.strip()
    return (
        stripped.lower() in _WORDLESS
        or _REFERENCE.match(stripped) is not None
        or _INTERPOLATION.search(stripped) is not None
    )


def _sentence(text: str) -> bool:
    """Four or more words, most of them plain words: a message, not a credential."""
    tokens = text.split()
    if len(tokens) < 4:
        return False
    plain = sum(1 for token in tokens if token.rstrip(".,:;!?").isalpha())
    return plain * 5 >= len(tokens) * 3


def _random(text: str) -> bool:
    """A bare word that reads as a generated value, not a name a programmer wrote."""
    return (
        len(text) >= 12
        and any(c.isdigit() for c in text)
        and any(c.isalpha() for c in text)
        and entropy(text) >= 3.2
    )


def unquote(text: str) -> str:
    """``"v"`` / ``'v'`` -> ``v``: the quotes a shell or an attribute puts around it."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in _QUOTES:
        return text[1:-1]
    return text


def _squash(text: str) -> str:
    return _NOT_ALNUM.sub("", text)


@lru_cache(maxsize=4096)
def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def passes(check: Check, value: str) -> bool:
    """Whether ``value`` has the property the provider defines (see ``Check``)."""
    match check:
        case Check.GITHUB_CRC32 | Check.NPM_CRC32:
            body = value.split("_", 1)[-1]
            if len(body) != 36:
                return False
            return _crc32_base62(body[:30]) == body[30:]
        case Check.BASE64:
            return _b64(value) is not None
        case Check.RANDOM:
            return _generated(value)
        case Check.BASE64_PRIVATE_KEY:
            decoded = _b64(value[: len(value) - len(value) % 4] if len(value) > 4096 else value)
            return decoded is not None and b"PRIVATE KEY-----" in decoded[:200]
        case Check.BASE64_DER:
            # 0x30 (SEQUENCE), then 0x82-0x84: a length of 2-4 bytes, what a keystore
            # of a few kilobytes has; the whole value must be strict base64 too.
            head = _b64(value[:8])
            return (
                head is not None
                and head[:1] == b"\x30"
                and 0x82 <= head[1] <= 0x84
                and (_b64(value) is not None)
            )
        case Check.BASIC_AUTH:
            decoded = _b64(value)
            if decoded is None or b":" not in decoded[1:]:
                return False
            return all(32 <= byte < 127 for byte in decoded)


def _generated(value: str) -> bool:
    """Reads as generated, not written: no blank, a run of 12+ letters and digits, and
    digits among letters or case changing as often as chance would have it (not
    ``Access-Control-Allow-Origin``, not ``ComboBoxTextMarginConverter``)."""
    if any(c.isspace() for c in value):
        return False
    if max((len(run) for run in _ALNUM_RUN.findall(value)), default=0) < 12:
        return False
    letters = [c for c in value if c.isalpha()]
    if any(c.isdigit() for c in value) and letters:
        return True
    changes = sum(1 for a, b in pairwise(letters) if a.isupper() != b.isupper())
    return changes > len(letters) * 0.4


def _b64(value: str) -> bytes | None:
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _crc32_base62(text: str) -> str:
    number = zlib.crc32(text.encode("ascii", "replace")) & 0xFFFFFFFF
    digits = ""
    while number:
        number, remainder = divmod(number, 62)
        digits = _BASE62[remainder] + digits
    return digits.rjust(6, "0")


# Keys longer than this are not remembered: the caches hold what they were asked about.
REMEMBERED_KEY = 128  # the longest key whose words (and a rule's answer) are remembered


def key_words(key: str) -> tuple[str, ...]:
    """A key's words, lower-case: ``dbPassword`` -> (db, password), ``API_KEY`` -> (api,
    key), ``spring.datasource.password`` -> (spring, datasource, password). The rules
    and the screen ask about the same keys again and again: an ordinary key's words
    are remembered."""
    return _split(key) if len(key) <= REMEMBERED_KEY else _words_of(key)


@lru_cache(maxsize=16384)
def _split(key: str) -> tuple[str, ...]:
    return _words_of(key)


def _words_of(key: str) -> tuple[str, ...]:
    # A key equal to its lower case holds no capital to break a word at.
    spaced = key if key == key.lower() else _CASE_BREAK.sub(r"\1\3 \2\4", key).lower()
    return tuple(w for w in _WORD_BREAK.split(spaced) if w)


# Words that, after the credential word, make the key name something else: its
# length, its type, where it is read from, the field that asks for it.
# Words that, before the credential word, make the key a user interface string's.
STOP_BEFORE = _words(
    "label lbl title msg message text placeholder hint error errors tooltip description "
    "desc help caption button btn heading prompt confirm forgot reset invalid wrong missing "
    "new old show hide toggle enter change not no non is has use uses require requires "
    "needs with without"
)
STOP_AFTER = _words(
    "length len size count min max minimum maximum type types url uri endpoint path file "
    "dir name names label field fields id ids prompt placeholder hint title policy regex "
    "pattern format header headers enabled enable disabled required reset expiry expires "
    "expiration ttl timeout age lifetime validity valid strength error errors message "
    "msg input form ref env var variable key_name mode method location store hash hashed "
    "salt algorithm algo provider class service manager handler helper util utils "
    "generator validator changed change confirm confirmation visible toggle icon secret_name "
    "char chars rules rule rounds iterations cost version prefix suffix options option config "
    "cfg conf configuration settings setting cache callback request response result status "
    "info scheme schemes host hostname port user username email namespace mechanism view "
    "widget dialog screen page button label"
)


def key_holds(words: tuple[str, ...], wanted: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the key's words hold one of ``wanted`` (each a run of words), no word
    after the run renames the key (``password_length``, ``auth_api_endpoint``) and no
    word before it makes it a label's (``label_password``, ``title_auth_token``)."""
    joined = "".join(words)
    held = set(words)
    for run in wanted:
        size = len(run)
        # A run starts at a word equal to its first (or, for one long word, ending so).
        if run[0] in held or (size == 1 and len(run[0]) >= 5):
            for start in range(len(words) - size + 1):
                here = words[start : start + size]
                if here == run or (size == 1 and len(run[0]) >= 5 and here[0].endswith(run[0])):
                    before, after = words[:start], words[start + size :]
                    if not STOP_BEFORE.intersection(before) and not STOP_AFTER.intersection(after):
                        return True
        if size > 1 and joined.endswith("".join(run)):
            return True
    return False


def key_named(key: str, wanted: tuple[tuple[str, ...], ...]) -> bool:
    """Whether ``key`` names one of ``wanted`` (``key_holds`` of its words). Each rule
    remembers its answers per key (``matcher._named``)."""
    return key_holds(key_words(key), wanted)
