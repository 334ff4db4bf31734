"""The screen's judgements: what a key means and what a value is (see ``findings.screen``).

A detection is judged on its ``Context``: the value, the line it sits on, and the key
it is assigned to when the text just before the value is ``key <op>`` (``=``, ``:``,
``:=``, ``=>``, ``(``). Two kinds of judgement, each with its ``DropReason``:

- what the value is, whatever its key: a version pin, a type annotation, a pointer
  into a secret store, a YAML block of text, a UUID that is a mapping's own key, an
  index or call expression in code;
- what the key means, when there is one: a secret word only inside another word or
  negated, a count or a code, a value published by design, a commit id.

A secret word names a credential when it is a whole word of the key (``db_password``,
``clientSecret``, ``API_KEY``) or the end of a run-together compound (``dbpassword``,
``apikey``) not negated (``notoken``), plural, numbered or carried (``tokens``,
``password2``, ``secretvalue``). It is only part of another word when more letters
follow it (``secretary``, ``passwordless``, ``tokenizer``, ``author``): English puts a
compound's head last, and the head is what the key names.

Every check is plain string work or RE2 on a bounded window, and a value or key too
long for a shape is left alone: the screen fails open, never closed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from itertools import pairwise
from typing import Any

from thresher.findings.re2_classes import RE2Set, compile_re2, hits, searchable
from thresher.findings.rules.values import STOP_BEFORE, key_words


class DropReason(StrEnum):
    """Why a detection is not a candidate: the closed vocabulary ``ScanStats`` counts by."""

    # The secret word is part of another word (``secretary``, ``passwordless``) or
    # negated (``notoken``): the key does not name a credential.
    SECRET_WORD_IN_OTHER_WORD = "secret_word_in_other_word"
    # A number under a key that names a count or a code (``max_tokens = 1000``,
    # ``ERR_PASSWORD_EXPIRED = 1330``), not the credential itself.
    COUNT_OR_CODE = "count_or_code"
    VERSION_PIN = "version_pin"  # ``somepkg==2.3``, ``>=1.0,<2``
    TYPE_ANNOTATION = "type_annotation"  # ``int | None``, ``Optional[str]``
    BLOCK_TEXT = "block_text"  # a YAML block scalar holding lines or words of text
    STORE_REFERENCE = "store_reference"  # ``vault-path:password``: where a secret is kept
    PUBLIC_CONSTANT = "public_constant"  # the key says public or magic: published by design
    COMMIT_ID = "commit_id"  # hex under a version, rev, commit or ref key
    UUID_MAP_KEY = "uuid_map_key"  # a UUID that is itself a mapping's key: an identifier
    # In code, unquoted: an index or a call (``exprTok1[char]``, ``Str::random(10)``), or
    # a variable named for the credential (``cfg.Password = passwordFlag``).
    EXPRESSION = "expression"
    TIMESTAMP = "timestamp"  # a date or a date and time (``2006-01-02T15:04:05Z``)

    @property
    def label(self) -> str:
        """The words a person reads ("2 version pin")."""
        return self.value.replace("_", " ")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WINDOW = 256  # characters of the line read before the value for its key
_AFTER = 16  # characters read after it (a mapping key's colon)
_MAX_KEY = 128
_OCCURRENCES = 8  # occurrences of a value on its line tried for the one after its key
_MAX_SHAPE = 160  # longer values are no pin, annotation, reference or expression
_QUOTES = "\"'`"
_OPERATORS = (":=", "=>", "===", "==", "!=", "=", ":", "(")
_KEY_CHARS = frozenset("_.-$")

# Words that name a credential when whole (or as a compound's head).
_STEMS = (
    "password", "passwd", "passwort", "passphrase", "passcode", "pword", "pswd", "pwrd",
    "pwd", "pass", "secret", "token", "apikey", "key", "credential", "cred", "auth",
    "authorization", "bearer", "contrasena", "contraseña", "salt", "nonce", "seed", "pin",
)  # fmt: skip
# What may follow a secret word in one word and still name it: a plural, a number, or
# a word that carries the credential itself (``secretvalue``, ``tokenstr``).
_PLURALS = ("s", "es")
_CARRIERS = _words("value val str string data text raw plain b64 base64 hex bytes")
_NEGATIONS = ("no", "non", "not", "without")
# Words that make a number under a credential's key a count or a measure of it.
_MEASURES = _words("max min num number count total limit len length size")
_PUBLIC = frozenset({"public", "magic"})
_REVISIONS = _words("version rev revision commit ref tag sha")
# Last words of a key whose value says where a credential is kept: its name.
_PASSWORDS = _words("password passwords passwd pwd pass passphrase")
_HOLDERS = _words("key name ref secretname secretref keyref")
_HEX = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")
# Names that make a value a type: builtins of Python, TypeScript, Go and typing's forms.
_TYPE_WORDS = _words(
    "int float complex str bytes bool none any object list dict tuple set frozenset "
    "optional union literal sequence mapping iterable iterator callable type "
    "string number boolean undefined null unknown never void array record "
    "uint byte rune error interface map char long short double decimal"
)
_TYPE_CHARS = frozenset("[]|,() '\".")


@cache
def _programs() -> dict[str, Any]:
    """The value shapes, compiled once per process (RE2: linear in the value)."""
    # PEP 440 and semver releases: 2.3, 1.0.*, 2.0rc1, 1.0.post1, 1.2.3-beta.1+build
    suffix = r"(?:\.?(?:a|b|c|rc|alpha|beta|pre|post|dev)[0-9]*)*(?:[-+][A-Za-z0-9.]+)?"
    version = rf"v?[0-9]+(?:\.(?:[0-9]+|\*|x))*{suffix}"
    dotted = rf"v?[0-9]+(?:\.(?:[0-9]+|\*|x))+{suffix}"
    # The first constraint is unmistakable: a two-character operator, or a dotted
    # version after ``<``, ``>``, ``^``, ``~`` (``I<3C3H8`` is a password).
    first = rf"(?:(?:===|==|~=|!=|>=|<=)\s*{version}|(?:>|<|\^|~)\s*{dotted})"
    constraint = rf"(?:===|==|~=|!=|>=|<=|>|<|\^|~)\s*{version}"
    name = r"[A-Za-z0-9][A-Za-z0-9._\-]*(?:\[[A-Za-z0-9,._\- ]*\])?"
    stores = (
        "vault|secretsmanager|secrets-manager|ssm|parameter-store|keyvault|key-vault|"
        "azurekeyvault|gcpsm|sops|doppler|infisical|onepassword|keyring|env|"
        "arn:aws:secretsmanager|arn:aws:ssm"
    )
    hexes = "[0-9a-fA-F]"
    ident = r"[A-Za-z_$][A-Za-z0-9_$]*"
    chain = rf"{ident}(?:(?:\.|::|->){ident})*"
    return {
        "pin": compile_re2(
            rf"^(?:{name}\s*)?{first}(?:\s*(?:,|\|\||\s)\s*{constraint})*(?:\s*;.*)?$"
        ),
        # ``vault-path:x``, ``ssm:/prod/db``, ``op://vault/item`` (1Password)
        "store": compile_re2(rf"(?i)^(?:(?:{stores})(?:[-_][a-z0-9]+)*:(?://)?|op://)[^\s]+$"),
        "uuid": compile_re2(
            rf"^{hexes}{{8}}-{hexes}{{4}}-{hexes}{{4}}-{hexes}{{4}}-{hexes}{{12}}$"
        ),
        "expression": compile_re2(rf"^{chain}[\[(]"),
        "name": compile_re2(rf"^{chain}[!?]?$"),
        "key_name": compile_re2(r"^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+$"),
        "timestamp": compile_re2(
            r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?"
            r"(?:Z|[+\-][0-9]{2}:?[0-9]{2})?)?$"
        ),
        "block": compile_re2(r"^[|>][0-9+\-]{0,3}$"),
    }


@dataclass(frozen=True, slots=True)
class Context:
    """A value and what surrounds it on its line. ``on_line`` is False when a format
    parser read the value from lines below (a YAML block scalar); ``key`` is the name
    the value is assigned to, or "" when the text before it is no ``key <op>``."""

    value: str = field(repr=False)
    line: str = field(repr=False)
    on_line: bool
    quoted: bool = False
    key: str = ""
    after: str = field(default="", repr=False)

    @classmethod
    def of(cls, line: str, value: str) -> Context:
        at = _value_at(line, value)
        if at < 0:
            return cls(value, line, on_line=False)
        before = line[max(0, at - _WINDOW) : at]
        after = line[at + len(value) : at + len(value) + _AFTER]
        # Quoted, or inside a string that opened earlier on the line (a URL's query):
        # either way a literal, never an expression.
        quoted = before[-1:] in tuple(_QUOTES) and before[-1:] != ""
        inside = any(before.count(quote) % 2 for quote in _QUOTES)
        return cls(value, line, True, quoted or inside, _key_before(before), after)


def _value_at(line: str, value: str) -> int:
    """Where the value sits on the line: the first of its occurrences (at most
    ``_OCCURRENCES``) that follows a ``key <op>`` or a quote, else the first one
    (``password: 'password'`` names the key first, then holds the value)."""
    first = line.find(value) if value else -1
    at = first
    for _ in range(_OCCURRENCES):
        if at < 0:
            break
        before = line[max(0, at - _WINDOW) : at]
        if (before[-1:] and before[-1] in _QUOTES) or _key_before(before):
            return at
        at = line.find(value, at + 1)
    return first


def _key_before(before: str) -> str:
    """The key in ``key = `` / ``"key": `` / ``key(`` at the end of ``before``."""
    head = before.rstrip()
    if head[-1:] and head[-1] in _QUOTES:
        head = head[:-1].rstrip()
    head = head.removesuffix("@")
    for operator in _OPERATORS:
        if head.endswith(operator):
            head = head[: -len(operator)].rstrip()
            break
    else:
        return ""
    head = head.rstrip("\"'`]").rstrip()
    start = len(head)
    while start > 0 and len(head) - start < _MAX_KEY:
        char = head[start - 1]
        if not (char.isalnum() or char in _KEY_CHARS):
            break
        start -= 1
    return head[start:]


def judge(context: Context, *, code: bool, keyed: bool) -> DropReason | None:
    """Why this value cannot be a credential, or None when it may be one. ``keyed``:
    the detector found the value by its key (a keyword, a generic rule), so what the
    key means decides; an entropy detector found it by its characters, and only a key
    that says the value is public or a revision speaks against it."""
    value = context.value
    if not context.on_line:
        return DropReason.BLOCK_TEXT if _block_text(context) else None
    found = _value_shape(value, context, code=code)
    if found is not None or not context.key:
        return found
    return _key_meaning(key_words(context.key), value, keyed=keyed)


def _block_text(context: Context) -> bool:
    """``key: |`` (or ``>-``) with lines or words of text below: a script, a document."""
    text = context.line.split(" #", 1)[0].rstrip()
    indicator = text.rsplit(":", 1)[-1].strip() if ":" in text else ""
    if not indicator or not hits(_programs()["block"], indicator):
        return False
    return any(char.isspace() for char in context.value.strip())


def _value_shape(value: str, context: Context, *, code: bool) -> DropReason | None:
    if len(value) > _MAX_SHAPE:
        return None
    text = searchable(value.strip())
    shaped = _Shapes(text)
    if shaped.has("pin"):
        return DropReason.VERSION_PIN
    if _type_annotation(text):
        return DropReason.TYPE_ANNOTATION
    if shaped.has("store"):
        return DropReason.STORE_REFERENCE
    if shaped.has("uuid") and _map_key(context):
        return DropReason.UUID_MAP_KEY
    if shaped.has("timestamp"):
        return DropReason.TIMESTAMP
    if code and not context.quoted and _expression(shaped):
        return DropReason.EXPRESSION
    return None


# The value shapes asked of every value the screen reads, answered together (``_Shapes``).
_SHAPES = ("pin", "store", "uuid", "timestamp", "expression", "name")


@cache
def _shape_set() -> RE2Set:
    """``_SHAPES`` as one RE2 set (one call answers all), compiled as ``compile_re2``
    compiled each."""
    programs = _programs()
    return RE2Set(programs[name].pattern for name in _SHAPES)


class _Shapes:
    """Which of ``_SHAPES`` a value holds: one pass of ``_shape_set`` over it, where each
    shape's own search was a call into RE2 of its own. When the set cannot answer
    (RE2 ran out of memory), each shape's program is asked, as before."""

    __slots__ = ("_found", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        found = _shape_set().which(text)
        self._found = None if found is None else {_SHAPES[i] for i in found}

    def has(self, name: str) -> bool:
        if self._found is None:
            return hits(_programs()[name], self.text)
        return name in self._found


def _expression(shaped: _Shapes) -> bool:
    """Unquoted in code: an index or a call, or a name (a variable, a member) that
    itself names a credential: what holds the credential, not the credential. A bare
    random token is left to the scorer."""
    if shaped.has("expression"):
        return True
    if not shaped.has("name"):
        return False
    return any(_names(word) is not None for word in key_words(shaped.text))


def _type_annotation(value: str) -> bool:
    """``int | None``, ``Optional[str]``, ``dict[str, int]``, ``str``: every name a type's
    (a builtin or a capitalised class name), at least one a builtin's."""
    if not value or any(not (c.isalnum() or c == "_" or c in _TYPE_CHARS) for c in value):
        return False
    names = "".join(" " if c in _TYPE_CHARS else c for c in value).split()
    if not names:
        return False
    known = [_base_type(name) in _TYPE_WORDS for name in names]
    if not any(known):
        return False
    classes = all(k or name[:1].isupper() for k, name in zip(known, names, strict=True))
    structured = len(names) == 1 or any(c in value for c in "[|")
    return classes and structured


def _base_type(name: str) -> str:
    """``int64`` -> ``int``, ``typing.Optional`` -> ``optional``."""
    return name.rsplit(".", 1)[-1].rstrip("0123456789").lower()


def _map_key(context: Context) -> bool:
    """The value is followed by what makes it a mapping's key: ``:``, ``=>``, ``]``."""
    after = context.after
    if context.quoted and after[:1] in _QUOTES:
        after = after[1:]
    after = after.lstrip()
    return after.startswith((":", "=>", "]")) and not after.startswith("::")


def _key_meaning(words: tuple[str, ...], value: str, *, keyed: bool) -> DropReason | None:
    if _PUBLIC.intersection(words):
        return DropReason.PUBLIC_CONSTANT
    if _REVISIONS.intersection(words) and 7 <= len(value) <= 64 and set(value) <= _HEX:
        return DropReason.COMMIT_ID
    if not keyed:
        return None
    if _pointer(words, value):
        return DropReason.STORE_REFERENCE
    naming = [_names(word) for word in words]
    mentions = [any(stem in word for stem in _STEMS) for word in words]
    if any(mentions) and not any(n is not None for n in naming):
        return DropReason.SECRET_WORD_IN_OTHER_WORD
    if value and len(value) <= 20 and set(value) <= _DIGITS and _counts(words, naming):
        return DropReason.COUNT_OR_CODE
    return None


def _pointer(words: tuple[str, ...], value: str) -> bool:
    """The key names where a credential is kept, not the credential: an existing
    secret (``existingSecretPasswordKey``), or the name of a key, a secret or a
    reference holding a credential's name (``passwordKey: admin-password``)."""
    # Helm's and operators' ``existingSecret...``: the name of a Kubernetes Secret.
    if any(a == "existing" and b in ("secret", "secrets") for a, b in pairwise(words)):
        return True
    if not words or words[-1] not in _HOLDERS or len(value) > _MAX_SHAPE:
        return False
    # An api key, a secret key, an access key is the credential; a password's key
    # (``adminPasswordKey``) is where one is kept.
    if words[-1] == "key" and not _PASSWORDS.intersection(words[:-1]):
        return False
    if not hits(_programs()["key_name"], searchable(value)):
        return False
    return _names(key_words(value)[-1]) is not None


def _names(word: str) -> bool | None:
    """Whether a key's word names a credential: None when not, else whether it is a
    plural (``tokens``: a count or a collection, never one credential)."""
    found: bool | None = None
    for stem in _STEMS:
        start = word.find(stem)
        while start >= 0:
            prefix, rest = word[:start], word[start + len(stem) :]
            if prefix not in _NEGATIONS:
                if rest in _PLURALS:
                    found = found or False
                elif not rest or rest.isdigit() or rest in _CARRIERS:
                    return True
            start = word.find(stem, start + 1)
    return found


def _counts(words: tuple[str, ...], naming: list[bool | None]) -> bool:
    """A number under this key is a count or a code: the key's last word (numbers
    aside) is not a singular credential word, or a measure or a word such as ``error``
    or ``invalid`` qualifies it (``max_tokens``, ``ERR_PASSWORD_EXPIRED``,
    ``ERROR_INVALID_PASSWORD``)."""
    significant = [i for i, word in enumerate(words) if not word.isdigit()]
    if not significant:
        return False
    last = significant[-1]
    if naming[last] is not True:
        return True
    earlier = set(words[:last])
    return bool(_MEASURES.intersection(earlier) or STOP_BEFORE.intersection(earlier))
