"""Features of one candidate, as an analyst reads it: the value, its assignment, its
file and its repository.

Every feature is a named number (mostly 0/1 flags), so the shipped model is a
readable table of weights and each decision can cite the features that moved it.
Two rules shape the vocabulary:

- **Robust to the training data.** The dev corpus replaced each labelled real
  and test value with random characters of the same class, while values
  labelled ``not_secret`` kept their text. A feature that reads the *words* of a
  value ("admin", "changeme", dictionary-likeness) would learn "words mean not a
  secret" from that artefact and dismiss every weak real password on code it
  was not tuned for. The value is therefore described only by what scrambling
  keeps: length, character classes, shape, punctuation, reference syntax and
  known prefixes. Words come from the *context* (key names, the line, the path),
  which the corpus left intact.
- **Bounded work on hostile text.** Only a window of the line around the value is
  examined, and every pattern is a simple, anchored or character-class scan, so a
  60 kB minified line costs the same as a short one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from thresher.findings.filekind import FileKind, file_kind, in_test_scope, path_tokens
from thresher.scoring.placement import (
    GENERIC_FEATURE,
    PLACEMENT_FEATURES,
    Placement,
    generic_value,
    placement,
)
from thresher.scoring.references import Referenced
from thresher.scoring.shape import (
    clean_value,
    der_public,
    file_features,
    jose_header,
    jwt_public_claims,
    line_features,
    type_features,
    value_index,
    word_features,
)
from thresher.scoring.vocabulary import (
    AFTER_OPERATOR,
    CLI_FLAG,
    CODE_CHARS,
    COMMENT_START,
    COMPARISON,
    COMPARISON_ENDS,
    CREDENTIAL_WORDS,
    DEFAULT_PASSWORDS,
    DIR_GROUPS,
    EXPLICIT_PLACEHOLDER,
    FLAG_ENDS,
    HASH_KEYS,
    HASH_WORDS,
    I18N_CALL,
    KEY_TOKENS,
    LINE_WORDS,
    OPERATOR_ENDS,
    PROVIDER_PREFIX,
    SETTING_WORDS,
    SUFFIXES,
    TRAILING_COMMENT,
    UI_KEYS,
    URL_CREDS,
    WORD,
    env_access,
    is_reference,
    may_assert,
    name_tokens,
    name_words,
    slug,
)

Features = dict[str, float]
# Only test code names the finding's file: a feature the priors read and the policy
# acts on (``model.Assessment.only_tests_reference``), so it is named once.
TESTS_ONLY_FEATURE = "referenced_by_tests_only"

# How much of the line around the value is read.
_BEFORE, _AFTER = 160, 80
_MAX_VALUE = 4096


@dataclass(frozen=True)
class CandidateContext:
    """Everything the scorer reads about one finding: never leaves the process."""

    value: str = field(repr=False)  # never printed: a traceback must not show it
    rule_id: str
    path: str  # repository-relative, the primary location
    line: str = field(repr=False)  # the text of that line (holds the value)
    paths: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()  # every scanner rule that matched the value
    file_candidates: int = 1  # candidates detected in the primary file
    value_files: int = 1  # files of the repository holding the same value
    copies_in_tests: bool = False  # the same value also sits in test code
    referenced: Referenced = Referenced.UNKNOWN  # how other files name this one
    in_test_block: bool = False  # inside a test function/module of a non-test file
    in_docstring: bool = False  # inside a Python docstring: documentation in source code
    checks: tuple[tuple[str, str], ...] = ()  # (check kind, status) of offline validators
    # The primary location is no file of the tree but text GitHub holds (an issue, a
    # comment, a wiki page): ``path`` is its address, which says nothing about the code.
    outside_tree: bool = False
    # Another location of the same value is neither documentation nor a commented-out
    # line: the value is deployed there, whatever the primary location's text is.
    deployed_elsewhere: bool = False


def key_name(before: str) -> str | None:
    """The identifier the value is assigned to, read backwards from the value:
    ``password = "``, ``"apiKey": "``, ``<password>``, ``--token ``, ``PASS=``,
    ``cfg['password'] = '``."""
    text = before.rstrip(" \t\"'`([")
    if text.endswith(("=>", ":=", "==")):
        text = text[:-2]
    elif text.endswith(("=", ":", ">", ",")):
        text = text[:-1]
    # ``$config['password_method'] = '``, ``ENV["DB_PASSWORD"] = "``: the index names it.
    text = text.rstrip(" \t\"'`").removesuffix("]").rstrip(" \t\"'`")
    end = len(text)
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
        start -= 1
    name = text[start:end].strip("._-")
    return name or None


# Compiled once, and the per-character tests below run as C loops (``map``, set
# operations): every finding is scored, and generators over the value's characters were
# most of the scoring's time on long values. Each gives what the character loop gave.
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_BASE64 = re.compile(r"[A-Za-z0-9+/=_-]+")
_DOTTED = re.compile(r"[A-Za-z0-9_]\.[A-Za-z_]")
_IDENTIFIER = re.compile(r"[a-z]+(?:_[a-z0-9]+)+|[A-Z]+(?:_[A-Z0-9]+)+")
_NOT_NORMAL = re.compile(r"[^a-z0-9]")
_SYMBOL = re.compile(r"[^\w\s]|_")
_PATH = re.compile(r"[~.]{0,2}/*(?:[\w.@%+-]+/+)+[\w.@%+-]*")
_FORMAT = re.compile(r"%(?:\([A-Za-z_]\w*\))?[-+ #0]?\d*[sdqv](?![A-Za-z0-9])")


def _shape(value: str) -> str:
    if _UUID.fullmatch(value):
        return "uuid"
    if value.isdigit():
        return "digits"
    if len(value) >= 16 and _HEX_DIGITS.issuperset(value):
        return "hex"
    if any(map(str.isspace, value.strip())):
        return "words"
    if len(value) >= 20 and _BASE64.fullmatch(value):
        return "base64"
    if value.isalnum():
        return "alphanumeric"
    return "mixed"


def _entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    if not n:
        return 0.0
    # Each count's term worked out once (a value has a few distinct counts, and dozens
    # of characters), then summed in the characters' order as before: the same float.
    terms = {c: c / n * math.log2(c / n) for c in set(counts.values())}
    return -sum(map(terms.__getitem__, counts.values()))


def value_features(value: str, key: str | None) -> Features:
    """What scrambling keeps: size, classes, shape, punctuation, syntax, prefixes."""
    v = value.strip().strip("\"'`")[:_MAX_VALUE]
    f: Features = {}
    n = len(v)
    f["len_log2"] = math.log2(1 + n) / 8
    for low, high in ((0, 5), (5, 8), (8, 12), (12, 20), (20, 32), (32, 64), (64, 10**9)):
        if low <= n < high:
            f[f"len_{low}_{high if high < 10**9 else 'inf'}"] = 1.0
    classes = [
        any(map(str.islower, v)),
        any(map(str.isupper, v)),
        any(map(str.isdigit, v)),
        # All alphanumeric (``isalnum``): no symbol, without the search. ``_SYMBOL`` is
        # exactly "not alphanumeric and not space" (``\w`` is ``isalnum`` or ``_``).
        not v.isalnum() and _SYMBOL.search(v) is not None,
    ]
    for name, present in zip(("lower", "upper", "digit", "symbol"), classes, strict=True):
        if present:
            f[f"has_{name}"] = 1.0
    f[f"classes_{sum(classes)}"] = 1.0
    shape = _shape(v)
    f[f"shape_{shape}"] = 1.0
    if shape == "hex" and n in (32, 40, 56, 64, 96, 128):
        f["hex_digest_length"] = 1.0
    f["entropy_per_char"] = _entropy(v) / math.log2(max(2, min(n, 64))) if n > 1 else 0.0
    if n and len(set(v)) <= 2:
        f["few_distinct_chars"] = 1.0
    if not CODE_CHARS.isdisjoint(v):
        f["value_code_chars"] = 1.0
    if v.endswith(("(", ")", "{", ";", ",")) or v.startswith(("(", ")")):
        f["value_code_edge"] = 1.0
    if _DOTTED.search(v) and not URL_CREDS.match(v):
        f["value_dotted_name"] = 1.0
    if _IDENTIFIER.fullmatch(v):
        f["value_identifier_case"] = 1.0
    if is_reference(v):
        f["value_reference"] = 1.0
    if v.startswith(("$", "%", "@", "#{", "{")):
        f["value_sigil"] = 1.0
    if EXPLICIT_PLACEHOLDER.match(v):
        f["value_explicit_placeholder"] = 1.0
    if URL_CREDS.match(v):
        f["value_url_credentials"] = 1.0
    elif "://" in v:
        f["value_url"] = 1.0
    if (
        v.count("/") >= 2
        and _PATH.fullmatch(v[:512])
        and (shape != "base64" or (v.startswith(("/", "./", "../", "~/")) and v.count("/") >= 3))
    ):
        # A file system path: names between slashes, no spaces, quotes or ``$``. A
        # base64 value has slashes too, but seldom begins with one and holds three or
        # more (``/var/folders/_6/xbsn…/T//plug-1434/``); a PEM body has lines.
        f["value_path_like"] = 1.0
    if "@" in v and "." in v.split("@")[-1] and " " not in v:
        f["value_email_like"] = 1.0
    if PROVIDER_PREFIX.match(v):
        f["value_provider_prefix"] = 1.0
    if v.startswith(("MII", "MFk", "MCow", "MFw")):
        f["value_der_base64"] = 1.0
    if der_public(v):
        f["value_public_der"] = 1.0
    if jose_header(v):
        f["value_jose_header"] = 1.0
    if _FORMAT.search(v):
        # ``printf 'password=%s\n'``, ``"%(password)s"``: a format string the value
        # is filled into at run time.
        f["value_format_string"] = 1.0
    if v.count(".") == 2 and v.startswith("eyJ"):
        f["value_jwt_shape"] = 1.0
        if jwt_public_claims(v):
            f["value_public_claims"] = 1.0
    if "PRIVATE KEY" in v or "BEGIN" in v:
        f["value_pem_marker"] = 1.0
    if key is not None:
        norm_v = _NOT_NORMAL.sub("", v.lower())
        norm_k = _NOT_NORMAL.sub("", key.lower())
        if norm_v and len(norm_v) >= 3 and (norm_v == norm_k or norm_v in norm_k):
            f["value_repeats_key"] = 1.0
    return f


def assignment_features(line: str, value: str) -> tuple[Features, str | None]:
    """How the value sits in its line: literal or expression, comment, UI string,
    environment lookup, CLI flag, assertion; and the tokens of its key name."""
    f: Features = {}
    index = value_index(line, value)
    if index < 0:
        index = value_index(line, value.strip())
    if index < 0:
        f["value_not_on_line"] = 1.0
        before, after = line[:_BEFORE], ""
    else:
        before = line[max(0, index - _BEFORE) : index]
        after = line[index + len(value) : index + len(value) + _AFTER]
    key = key_name(before)
    known: list[str] = []
    if key is None:
        f["key_none"] = 1.0
    else:
        tokens = name_tokens(key)
        known = [t for t in tokens if t in KEY_TOKENS]
        for token in set(known):
            f[f"key_{token}"] = 1.0
        if not known:
            f["key_unknown_words"] = 1.0
        if any(t in UI_KEYS for t in tokens):
            f["key_ui"] = 1.0
        if any(t in HASH_KEYS for t in tokens):
            f["key_hash"] = 1.0
        words_of_key = name_words(key)
        if len(words_of_key) > 1 and words_of_key[-1] in SETTING_WORDS:
            # ``password_method``, ``passwdqc_options``, ``OAuthClientId``: the key names
            # a setting or an identifier about a credential, not the credential itself.
            f["key_names_setting"] = 1.0
    stripped_before = before.rstrip()
    quote_before = stripped_before[-1:] in ("'", '"', "`")
    if quote_before:
        f["quoted"] = 1.0
    if stripped_before.endswith(("=", ":", "=>", ":=")):
        f["assigned_bare"] = 1.0
    if quote_before and stripped_before[:-1].rstrip().endswith(("=", ":", "=>", ":=", ",", "(")):
        f["assigned_literal"] = 1.0
    # Each pattern below ends at the end of ``stripped_before`` (which ends in no blank):
    # its last character is tested first, and most lines are not searched at all.
    last = stripped_before[-1:]
    if not quote_before and last in OPERATOR_ENDS and AFTER_OPERATOR.search(stripped_before):
        f["unquoted_after_operator"] = 1.0
    if COMMENT_START.match(line):
        f["line_comment"] = 1.0
    unquoted = stripped_before.rstrip("\"'`")
    if unquoted.rstrip().endswith("(") and I18N_CALL.search(unquoted):
        f["i18n_call"] = 1.0
    if env_access(before[-80:]) or env_access(after[:40]):
        f["env_lookup_near"] = 1.0
    if may_assert(before):
        f["assertion_before"] = 1.0
    if last in COMPARISON_ENDS and COMPARISON.search(stripped_before):
        f["comparison_before"] = 1.0
    if last in FLAG_ENDS and CLI_FLAG.search(stripped_before):
        f["cli_flag"] = 1.0
    if after.lstrip().startswith(("(", ".", "[")):
        f["followed_by_call"] = 1.0
    if after.lstrip().startswith(("+", "||", "&&", "?")):
        f["followed_by_operator"] = 1.0
    if len(value) >= 6 and line.count(value) >= 2:
        # The same text twice on one line names something (``<c:Minus10Converter
        # x:Key="Minus10Converter"/>``); a secret seldom repeats beside itself.
        f["value_repeats_on_line"] = 1.0
    if TRAILING_COMMENT.match(after):
        f["trailing_comment"] = 1.0
    if "<" in before[-40:] and ">" in before[-40:] and "</" in after[:60]:
        f["xml_text"] = 1.0
    window = WORD.findall(before[-120:] + " " + after[:60])
    words = {w.lower() for w in window}
    key_words = set(known)
    if (key_words | (words & LINE_WORDS)) & CREDENTIAL_WORDS:
        f["credential_words_near"] = 1.0
    for word in words & LINE_WORDS:
        f[f"line_{word}"] = 1.0
    if {t for w in window for t in name_tokens(w)} & HASH_WORDS:
        f["line_hash_words"] = 1.0
    if len(line) > 400:
        f["long_line"] = 1.0
    return f, key


def path_features(path: str, paths: Iterable[str]) -> Features:
    f = dict(_path_features(path))
    test = [in_test_scope(p) for p in list(paths) or [path]]
    if all(test):
        f["all_locations_test"] = 1.0
    elif any(test):
        f["some_locations_test"] = 1.0
    return f


@lru_cache(maxsize=1 << 16)
def _path_features(path: str) -> tuple[tuple[str, float], ...]:
    """What the path alone says (its kind, directories, suffix, depth): once a file."""
    f: Features = {}
    f[f"file_{file_kind(path).value}"] = 1.0
    tokens = set(path_tokens(path))
    for group, names in DIR_GROUPS.items():
        if tokens & names:
            f[f"path_{group}"] = 1.0
    name = path.rsplit("/", 1)[-1].lower()
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    if suffix in SUFFIXES:
        f[f"ext_{suffix}"] = 1.0
    if name.startswith(".env") or name.endswith(".env"):
        f["ext_env"] = 1.0
    f["depth"] = min(path.count("/"), 8) / 8
    return tuple(f.items())


def rule_features(rule_id: str, rules: Iterable[str]) -> Features:
    return dict(_rule_features(rule_id, tuple(rules)))


@lru_cache(maxsize=1 << 12)
def _rule_features(rule_id: str, rules: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """``rule_features`` of one combination of rules: a few recur over a whole scan."""
    f: Features = {f"rule_{slug(rule_id)}": 1.0}
    others = {slug(r) for r in rules} - {slug(rule_id)}
    for other in others:
        f[f"also_{other}"] = 1.0
    return tuple(f.items())


def features(ctx: CandidateContext) -> Features:
    """The full feature vector of one candidate."""
    line = ctx.line[: 64 * 1024]
    assignment, key = assignment_features(line, ctx.value)
    f: Features = {"bias": 1.0}
    value = clean_value(ctx.value[:_MAX_VALUE])
    f.update(value_features(value, key))
    raw = ctx.value[:_MAX_VALUE].strip()
    if not any(q in raw for q in "\"'`") and raw.endswith(("(", ")", "{", ";", ",")):
        # A bare value that ends in code punctuation (``if (password) {``) is a code
        # fragment; a quoted one dragged a closing quote along and was cleaned above.
        f["value_code_edge"] = 1.0
    f.update(assignment)
    index = value_index(line, value)
    if value and index >= 0 and line[index + len(value) :].strip() == ":":
        # ``passwd:`` then ``users:`` on the next line: the scanner took the next key
        # for the value; a key with nothing after it holds no literal.
        f["value_is_key"] = 1.0
    f.update(type_features(value, line[max(0, index - _BEFORE) : index] if index > 0 else ""))
    where = placement(
        ctx.path,
        line,
        index,
        deployed_elsewhere=ctx.deployed_elsewhere,
        outside_tree=ctx.outside_tree,
        docstring=ctx.in_docstring,
    )
    if where is not Placement.DEPLOYMENT:
        # Documentation or a commented-out line: read by people, loaded by nothing. The
        # policy never calls a generic value there ``real`` offline (``policy.py``).
        f[PLACEMENT_FEATURES[where]] = 1.0
    if generic_value(ctx.rule_id, ctx.rules):
        f[GENERIC_FEATURE] = 1.0
    f.update(word_features(value))
    f.update(line_features(line, key))
    if ctx.outside_tree:
        f[f"file_{FileKind.TEXT.value}"] = 1.0
    else:
        f.update(file_features(ctx.path))
        f.update(path_features(ctx.path, ctx.paths))
    f.update(rule_features(ctx.rule_id, ctx.rules))
    # Combinations an analyst reads as one signal.
    if not f.get("credential_words_near") and not f.get("value_provider_prefix"):
        f["no_credential_context"] = 1.0
        if f.get("rule_hex_high_entropy_string") or f.get("rule_base64_high_entropy_string"):
            # An entropy hit with no word of credentials around it: a digest, an id, a
            # fixture far more often than a key.
            f["entropy_only"] = 1.0
            if f.get("hex_digest_length"):
                # 32, 40 or 64 hex characters with no word of credentials anywhere
                # near: a commit, a digest or a fingerprint (``node: 9f90…`` in a
                # ``.git_archival.txt``), far more often than a key.
                f["digest_without_context"] = 1.0
    if f.get("key_hash") and (f.get("shape_hex") or f.get("shape_base64")):
        f["hash_named_digest"] = 1.0
    if f.get("key_ui") and f.get("shape_words"):
        f["ui_text"] = 1.0
    if (f.get("file_lockfile") or f.get("file_checksums")) and (
        f.get("shape_hex") or f.get("shape_base64")
    ):
        # A digest in a lockfile or a checksum manifest (``checksums.json``).
        f["lockfile_digest"] = 1.0
    if f.get("file_template") and (
        f.get("value_explicit_placeholder") or value.lower() in DEFAULT_PASSWORDS
    ):
        # ``changeme`` deployed is a weak real password; in a ``.dist`` or ``.example``
        # template it is the instruction to replace it.
        f["template_default"] = 1.0
    code = f.get("file_source") or f.get("file_test")
    shaped_as_code = (
        f.get("value_dotted_name")
        or f.get("value_code_chars")
        or f.get("value_identifier_case")
        or f.get("followed_by_call")
    )
    if code and f.get("unquoted_after_operator") and shaped_as_code:
        f["expression_value"] = 1.0
    for kind, status in ctx.checks:
        f[f"check_{kind}_{status}"] = 1.0
    places = len(ctx.paths) or 1
    f["places_log2"] = min(math.log2(places), 6) / 6
    f["value_files_log2"] = min(math.log2(max(1, ctx.value_files)), 6) / 6
    if ctx.value_files > 1:
        f["several_files"] = 1.0
    if ctx.copies_in_tests:
        # Learned, not assumed: a deployable value that test code reuses is, in the
        # training data, more often shared fixture data than a live secret.
        f["copies_in_tests"] = 1.0
    f["file_candidates_log2"] = min(math.log2(max(1, ctx.file_candidates)), 8) / 8
    if ctx.file_candidates >= 10:
        f["dense_file"] = 1.0
    if ctx.in_test_block:
        f["in_test_block"] = 1.0
    # Text GitHub holds (outside the tree) is no file that other files could reference.
    if not ctx.outside_tree and ctx.referenced is Referenced.TESTS_ONLY:
        f[TESTS_ONLY_FEATURE] = 1.0
    elif not ctx.outside_tree and ctx.referenced is Referenced.CODE:
        f["referenced_by_code"] = 1.0
    # Sorted: the scorer sums in this order, and floating-point sums must not depend on
    # the order sets happened to iterate in.
    return dict(sorted(f.items()))


__all__ = ["CandidateContext", "Features", "FileKind", "features", "file_kind", "key_name"]
