"""What kind of value a candidate holds, read as an analyst reads it: a literal at all
(a boolean, a null, a number, a type name, an expression), and if so whether it reads
as a word, a passphrase, a human-made password or random characters.

Why these features exist: on code nobody tuned for, most false `real` calls were not
secrets at all (``disablePasswordAuthentication: true``, ``Password = _EMPTY_``,
``users:``), and the dev corpus keeps the *shape* of every value (words are replaced
by words, guessable defaults are kept), so the shape of a value is learnable. The
words themselves are not the originals, so no feature here names a word of the
value: only its type and its shape.

Every test is a character-class scan or an anchored pattern over a value capped in
length by the caller, so hostile text costs no more than a short value.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
from functools import lru_cache
from pathlib import PurePosixPath

from thresher.findings.filekind import path_tokens, words
from thresher.validators.der import SEQUENCE, read_header
from thresher.validators.jwt import b64url_json

Features = dict[str, float]

_BOOLEANS = words("true false yes no on off enabled disabled enable disable")
_NULLS = words("null none nil undefined empty blank n/a na")
# Type and keyword names a key is compared with or declared as, never a credential.
_TYPE_NAMES = words(
    """
    function string object number boolean bool int integer str bytes array list dict map
    char float double long text password secret token required optional
    """
)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+|\.\d+)")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_MEMBER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|->|::)[A-Za-z_$][A-Za-z0-9_$]*)+")
_CALL = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.]*\(.*\)")
_INDEXED = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.]*\[[^\]]*\]")
_CONSTANT = re.compile(r"_*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_*")
_LETTER_RUNS = re.compile(r"[A-Za-z]+")
_DIGIT_RUNS = re.compile(r"[0-9]+")
_HUMAN = re.compile(
    r"[A-Za-z]{3,}[0-9]{1,6}[^A-Za-z0-9\s]{0,3}|[A-Za-z]{3,}[^A-Za-z0-9\s][0-9]{1,6}"
)
_PASSPHRASE = re.compile(r"[A-Za-z]{3,}(?:[-_ .][A-Za-z]{3,}){1,7}[-_ .]?[0-9]{0,4}")
_CAMEL_WORDS = re.compile(r"(?:[A-Z]?[a-z]{2,}){2,5}[0-9]{0,4}[^A-Za-z0-9\s]{0,2}")
_VOWELS = frozenset("aeiouyAEIOUY")
_CONSONANT_RUN = re.compile(r"[b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]{4,}")
_VERSION = re.compile(r"(?:^|[:@=v-])\d{1,4}\.\d{1,4}\.\d{1,6}(?:$|[-.+:])")
_DOTTED_NUMBERS = re.compile(r"\d+(?:\.\d+)+")
# Password hashes in crypt(3) and framework formats: what a system stores, not a secret.
# Django writes ``algorithm$salt$hash`` (``sha1$``, ``md5$``, ``bcrypt_sha256$``); an
# htpasswd line puts ``user:`` before the hash.
_CRYPT_PREFIXES = (
    "$2a$", "$2b$", "$2y$", "$1$", "$5$", "$6$", "$argon2", "pbkdf2_", "$apr1$",
    "sha1$", "md5$", "bcrypt$", "bcrypt_sha256$", "argon2$", "scrypt$",
)  # fmt: skip
# A credential named in prose; kept apart from the key vocabulary (``key`` and ``pass``
# are too common in real passphrases to count).
_DESCRIBING = words(
    "password passwords passwd passphrase secret secrets token tokens credential credentials"
    " apikey username"
)
_NOT_LETTER = re.compile(r"[^A-Za-z]+")
_NAMES_CREDENTIAL = re.compile(
    r"(?:some|my|your|the|a|test|example|sample|dummy|fake|demo|default|super|top|new|old)?"
    r"(?:password|passwd|pass|pwd|secret|token|apikey|key|credential)s?"
)
_ENV_DEFAULT = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_.]*:-?$")


def clean_value(value: str) -> str:
    """The value as the file's own parser would read it: quotes, a shell line
    continuation and a trailing separator left by the scanner's extraction removed."""
    v = value.strip()
    if v.endswith("\\"):
        v = v[:-1].rstrip()
    if v.endswith((",", ";")) and v[:-1].endswith(('"', "'", "`")):
        v = v[:-1]  # a separator after the closing quote
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'`":
        v = v[1:-1]
    # What a pattern's extraction dragged along from the syntax around the value: a
    # closing quote or parenthesis with no opening one, a trailing separator.
    for _ in range(4):
        last = v[-1:]
        if (
            (last in "\"'`" and v.count(last) % 2)
            or (last == ")" and v.count(")") > v.count("("))
            or (last in (",", ";", ":") and len(v) > 1)
        ):
            v = v[:-1]
        else:
            break
    return v.strip("\"'`")


# Shapes a whole value has when it is no literal: each pattern must match all of it.
_WHOLE_VALUE_TYPES = (
    (_NUMBER, "value_number"),
    (_MEMBER, "value_member_access"),
    (_CALL, "value_call"),
    (_INDEXED, "value_indexed"),
    (_DOTTED_NUMBERS, "value_dotted_numeric"),
)


def _htpasswd_hash(value: str) -> bool:
    """``user:$apr1$...``: an htpasswd line, a user name and the hash of a password."""
    user, colon, rest = value[:256].partition(":")
    return bool(colon) and bool(user) and "$" not in user and rest.startswith(_CRYPT_PREFIXES)


def type_features(value: str, before: str) -> Features:
    """Is it a literal secret at all: booleans, nulls, numbers, type names, member
    access, calls, constants, an env lookup's default."""
    f: Features = {}
    v = value
    low = v.lower()
    if not v:
        f["value_empty"] = 1.0
        return f
    if low in _BOOLEANS:
        f["value_boolean"] = 1.0
    if low in _NULLS or v in ("''", '""', "~", "-"):
        f["value_null"] = 1.0
    for pattern, name in _WHOLE_VALUE_TYPES:
        if pattern.fullmatch(v):
            f[name] = 1.0
    if low in _TYPE_NAMES:
        f["value_type_name"] = 1.0
    if _CONSTANT.fullmatch(v) and "_" in v:
        f["value_constant_name"] = 1.0
    if _ENV_DEFAULT.search(before[-80:]):
        f["value_env_default"] = 1.0
    if _VERSION.search(v):
        f["value_version_like"] = 1.0
    if v.startswith(_CRYPT_PREFIXES) or _htpasswd_hash(v):
        f["value_crypt_hash"] = 1.0
    return f


def word_features(value: str) -> Features:
    """Does it read as a word, words run together, a passphrase, a human-made password
    (``Summer2019!``) or random characters."""
    f: Features = {}
    v = value[:256]
    n = len(v)
    if not n:
        return f
    letters = sum(map(str.isalpha, v))  # each a C loop: a value runs to 256 characters
    runs = _LETTER_RUNS.findall(v)
    digit_runs = _DIGIT_RUNS.findall(v)
    f["letter_share"] = letters / n
    f["letter_runs"] = min(len(runs), 8) / 8
    f["digit_runs"] = min(len(digit_runs), 8) / 8
    if letters:
        vowels = sum(map(_VOWELS.__contains__, v))
        share = vowels / letters
        f["vowel_share"] = share
        if 0.25 <= share <= 0.6 and not _CONSONANT_RUN.search(v):
            f["pronounceable"] = 1.0
    if v.isalpha():
        f["value_letters_only"] = 1.0
        if v.islower():
            f["value_lower_word"] = 1.0
        elif v[0].isupper() and v[1:].islower():
            f["value_capitalized_word"] = 1.0
    longest = max((len(r) for r in runs), default=0)
    f["longest_letter_run"] = min(longest, 24) / 24
    if _HUMAN.fullmatch(v):
        f["value_human_password"] = 1.0
    if _PASSPHRASE.fullmatch(v):
        f["value_passphrase"] = 1.0
    if _CAMEL_WORDS.fullmatch(v):
        f["value_camel_words"] = 1.0
    if not v.isascii():
        f["value_non_ascii"] = 1.0
    squashed = _NOT_LETTER.sub("", v).lower()
    if _NAMES_CREDENTIAL.fullmatch(squashed):
        # ``somePASSWORD``, ``mysecret``, ``test_token``, ``password123``: the value
        # names what should be there; the weak-default prior is the trees' to learn.
        f["value_names_credential"] = 1.0
    spaced = v.split()
    if len(spaced) >= 2 and any(w.strip(".,:;!?()'\"").lower() in _DESCRIBING for w in spaced[:12]):
        # "API password", "The password for API user ID", "S3 Secret": words that
        # describe a credential, a label or a prompt, not one.
        f["value_describes_credential"] = 1.0
    f["case_flips"] = min(_case_flips(v), 16) / 16
    return f


# ASCII letters by case (``l``, ``u``), anything else ``.``: a case flip is ``lu`` or
# ``ul`` (neither can overlap itself, so ``str.count`` finds every one).
_CASES = str.maketrans(
    {chr(c): "l" if chr(c).islower() else "u" if chr(c).isupper() else "." for c in range(128)}
)


def _case_flips(v: str) -> int:
    """Adjacent letters of different case. An ASCII value is counted in C; any other
    letter (a cased or uncased Unicode one) goes the one-pair-at-a-time way."""
    if v.isascii():
        cases = v.translate(_CASES)
        return cases.count("lu") + cases.count("ul")
    return sum(
        1
        for a, b in itertools.pairwise(v)
        if a.isalpha() and b.isalpha() and a.isupper() != b.isupper()
    )


# Where code nobody wrote by hand, or text nobody deploys, lives.
_THIRD_PARTY = words(
    """
    vendor vendored third thirdparty third_party node_modules bower_components external
    extern externals deps godeps site-packages dist-packages
    """
)
_LOCALE_DIRS = words("i18n locale locales lang langs language languages translations l10n nls")
_LOCALE_SUFFIXES = frozenset({".po", ".pot", ".xliff", ".xlf", ".resx", ".strings", ".arb", ".ftl"})
# ISO 639-1 language codes: a file named ``de.json`` or ``pt_BR.yml`` is a translation;
# ``all.yml``, ``uaa.yml`` or ``cas.properties`` is not (any two or three letters were).
_LANGUAGES = words(
    """
    aa ab af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu
    cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he
    hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko
    kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd
    ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se
    sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty
    ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
    """
)
_LOCALE_STEM = re.compile(
    r"(?:messages[-_.])?(?P<language>[a-z]{2})(?:[-_](?:[A-Za-z]{2}|[A-Z][a-z]{3}|\d{3}))*"
)
# A directory named for a locale with its region (``nl_NL``, ``pt-BR``): the files under
# it are translations whatever their own names (``languages/nl_NL/messages.php``).
_LOCALE_DIR = re.compile(r"(?P<language>[a-z]{2})[-_][A-Z]{2}")
# A Java resource bundle's translation: ``Messages_de.properties``,
# ``config_nb_NO.properties`` (the bundle's name, then the locale's language and region).
_BUNDLE_STEM = re.compile(r".+_(?P<language>[a-z]{2})(?:_[A-Z]{2})?")
# Checksum manifests: every value is a digest of the file its key names.
_CHECKSUM_FILES = words(
    "checksums checksum sha256sums sha1sums sha512sums md5sums shasums sums digests"
)
_CHECKSUM_SUFFIXES = frozenset({".sha256", ".sha1", ".sha512", ".md5", ".sum"})
_GENERATED = re.compile(r"(?:\.pb\.|_pb2|\.generated\.|_generated\b|\.g\.|\.min\.|\.bundle\.)")


@lru_cache(maxsize=1 << 16)
def vendored_or_generated(path: str) -> bool:
    """Another project's code copied in, or a file a tool wrote (``file_features``).
    Asked for every finding of a file by the placement rule after the features read the
    same path: each path is tokenised once."""
    f = file_features(path)
    return "path_third_party" in f or "file_generated" in f


@lru_cache(maxsize=1 << 16)
def translation_catalog(path: str) -> bool:
    """A locale or translation file by its path (``file_features``' ``file_locale``)."""
    return "file_locale" in file_features(path)


def file_features(path: str) -> Features:
    """Vendored or generated code, locale and translation files, checksum manifests."""
    return dict(_file_features(path))


@lru_cache(maxsize=1 << 16)
def _file_features(path: str) -> tuple[tuple[str, float], ...]:
    """``file_features`` of a path, read once however many findings its file holds."""
    f: Features = {}
    posix = PurePosixPath(path)
    parts = {p.lower() for p in posix.parts[:-1]}
    if parts & _THIRD_PARTY:
        f["path_third_party"] = 1.0
    name = posix.name.lower()
    if _GENERATED.search(name) or "generated" in path_tokens(path):
        f["file_generated"] = 1.0
    locale_dir = bool(parts & _LOCALE_DIRS) or any(
        (m := _LOCALE_DIR.fullmatch(p)) is not None and m["language"] in _LANGUAGES
        for p in posix.parts[:-1]
    )
    stem = name.split(".", 1)[0]
    if stem in _CHECKSUM_FILES or posix.suffix.lower() in _CHECKSUM_SUFFIXES:
        f["file_checksums"] = 1.0
    if (
        posix.suffix.lower() in _LOCALE_SUFFIXES
        or (
            (
                locale_dir
                or posix.suffix.lower() in (".yml", ".yaml", ".json", ".properties", ".php")
            )
            and (match := _LOCALE_STEM.fullmatch(posix.name.split(".", 1)[0])) is not None
            and match["language"] in _LANGUAGES
        )
        or locale_dir
        or (
            posix.suffix.lower() == ".properties"
            and (bundle := _BUNDLE_STEM.fullmatch(posix.name.split(".", 1)[0])) is not None
            and bundle["language"] in _LANGUAGES
        )
    ):
        f["file_locale"] = 1.0
    return tuple(f.items())


_FILE_SUFFIXES = words(
    """
    rb py js ts pp go java json yml yaml xml md txt sh c h cc cpp php html css erb lock gz
    tar zip jar war exe dll so png jpg svg rs kt swift cs vue jsx tsx scss less
    """
)
_CONSTANT_DECL = re.compile(
    r"(?:export\s+)?(?:const|final|static|readonly|public\s+static|private\s+static)\b"
)


@lru_cache(maxsize=1 << 16)
def _names_a_file(key: str) -> bool:
    """A key that is a file name (a checksum manifest's): a path, or a known suffix."""
    return "/" in key or PurePosixPath(key).suffix.lower()[1:] in _FILE_SUFFIXES


def line_features(line: str, key: str | None) -> Features:
    """The declaration around the value: a C macro, a constant, a key that is a file
    name (a checksum manifest), a key with nothing after it."""
    f: Features = {}
    head = line.lstrip()[:40]
    if head.startswith(("#define", "# define")):
        f["line_define"] = 1.0
    if _CONSTANT_DECL.match(head):
        f["line_constant"] = 1.0
    if key is not None:
        if _names_a_file(key):
            f["key_file_name"] = 1.0
        if key.isupper() and "_" in key:
            f["key_env_style"] = 1.0
        if "." in key.strip("."):
            f["key_dotted"] = 1.0
    return f


def der_public(value: str) -> bool:
    """Is a base64 DER value public material: a SubjectPublicKeyInfo (``MIIBIjANBg…``,
    ``MFwwDQYJ…``) or an X.509 certificate, not a private key?

    After the outer SEQUENCE's header, a public key or a certificate opens another
    SEQUENCE (the algorithm, or the to-be-signed certificate); PKCS#1 and PKCS#8
    private keys open with the INTEGER version. Only the first 24 characters are
    decoded, so the cost is fixed whatever the value's length."""
    head = value[:24]
    if len(head) < 24 or not head.startswith("M"):
        return False
    try:
        data = base64.b64decode(head, validate=True)
        tag, _, start = read_header(data)
        inner, _, _ = read_header(data, start)
    except (binascii.Error, ValueError):  # DerError is a ValueError
        return False
    return tag == SEQUENCE and inner == SEQUENCE


_NKEY_ALGORITHMS = frozenset({"ed25519-nkey", "ed25519"})
# Header parameters of JWS and JWE (RFC 7515 §4.1, RFC 7516 §4.1, RFC 7518 §4.6-4.8).
_JOSE_HEADER = words(
    "alg enc zip jku jwk kid x5u x5c x5t x5t#S256 typ cty crit epk apu apv iv tag p2s p2c b64"
)


def _json_segment(segment: str) -> dict[str, object] | None:
    """One base64url JSON object of a JOSE value, or None; the length is bounded."""
    if len(segment) > 1024:
        return None
    try:
        decoded = b64url_json(segment)
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        return None
    return decoded if isinstance(decoded, dict) else None


def jwt_public_claims(value: str) -> bool:
    """Is a JWT a NATS operator, account or user JWT (header ``alg`` ed25519-nkey)?

    Those are signed public claims, published to servers and resolvers; what grants
    access is the nkey seed beside them (``SU…`` in a ``.creds`` file), which a rule of
    its own finds. Only the header is decoded."""
    if not value.startswith("eyJ") or value.count(".") != 2:
        return False
    header = _json_segment(value[: value.index(".")])
    return header is not None and header.get("alg") in _NKEY_ALGORITHMS


def jose_header(value: str) -> bool:
    """Is a base64url value a JOSE protected header alone (``eyJhbGciOi…`` decoding to
    ``{"alg": …, "enc": …}``)? It says which algorithms protect a token, and travels in
    the clear in front of every one."""
    if not value.startswith("eyJ") or "." in value:
        return False
    header = _json_segment(value)
    return (
        header is not None
        and bool(header.keys() & {"alg", "enc"})
        and header.keys() <= _JOSE_HEADER
    )


_QUOTES = ("'", '"', "`")
_ASSIGNED_AFTER = ("=", ":", "=>", "(", ",")
_MAX_OCCURRENCES = 8


def value_index(line: str, value: str) -> int:
    """Where the value sits in its line: the first occurrence that follows a quote, else
    one that follows an operator or an opening parenthesis, else the first one (-1 when
    absent). A quote wins: in ``<c:Minus10Converter x:Key="Minus10Converter" />`` the
    first occurrence follows a namespace's colon.

    The first occurrence alone is often inside the key: ``password: password`` or
    ``const skipAuthCheckAnnotation = "skipAuthCheck"`` read as having no key, or the
    keyword ``const`` as their key."""
    if not value:
        return -1
    first = line.find(value)
    for openers in (_QUOTES, _ASSIGNED_AFTER):
        index = first
        for _ in range(_MAX_OCCURRENCES):
            if index < 0:
                break
            if line[:index].rstrip().endswith(openers):
                return index
            index = line.find(value, index + 1)
    return first
