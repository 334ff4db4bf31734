"""The RE2 stand-ins report exactly what detect-secrets' own plugins report.

Every stand-in is compared with its original on lines generated to match each of the
plugin's regexes, on those lines spiced with the characters where Python's ``re`` and
RE2 disagree by default (Unicode blanks and digits, letters Python folds to ASCII), and
on random lines built from the plugins' own vocabulary.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from detect_secrets.core.potential_secret import PotentialSecret
from detect_secrets.plugins.keyword import KeywordDetector
from detect_secrets.settings import get_plugins
from detect_secrets.util.code_snippet import get_code_snippet

from tests.findings.test_triggers import _FILENAMES, _regexes, _variants
from thresher.findings import allowlist_re2
from thresher.findings.engine import detect_secrets_session
from thresher.findings.plugins_re2 import line_checks, stand_ins, translate
from thresher.findings.profile import without_trailer

# Where Python's re and RE2 differ unless the rewrite spells Python's classes out.
_TRICKY = ["\xa0", "\u2028", "\x1c", "\x0b", "\u0663", "\u00bd", "\u0130", "\u0131", "\u017f",
           "\u212a", "\u0345", "\u00e9", "\u00f1", "\u00d1", "\t", " "]  # fmt: skip
_ATOMS = [
    "password", "PassWord", "secret", "api_key", "db_pass", "contraseña", "pwd", "=", "==",
    "!==", ":", ":=", "=>", ";", ",", '"', "'", "`", "(", ")", "[", "]", "[12]", "@",
    ".assign", "x", "Z9", "_", "-", "eyJ", ".", "//", "/:_authToken=", "npm_", "sk-",
    "T3BlbkFJ", "clkey", "ibm_key", "cos_secret_key", "sl_key", "AKC", "AP1", "://", "user",
    "@host", "ghp_", "AccountKey=", "SG.", "sq0csp-", "sk_live_", "123456789:", "AC", "SK",
    "pypi-AgEIcHlwaS5vcmc", "0123456789abcdef", "ABCDEFGHIJKLMNOPQRST", "   ", "\t",
]  # fmt: skip


def _found(plugin: Any, filename: str, line: str) -> set[tuple[str, str | None]]:
    secrets: set[PotentialSecret] = plugin.analyze_line(filename=filename, line=line)
    return {(s.type, s.secret_value) for s in secrets}


def _spice(line: str, rng: random.Random) -> str:
    chars = list(line)
    for _ in range(rng.randint(1, 3)):
        chars.insert(rng.randint(0, len(chars)), rng.choice(_TRICKY))
    return "".join(chars)


@pytest.mark.slow
def test_every_stand_in_reports_what_its_plugin_reports() -> None:
    rng = random.Random(2024)
    compared = matched = 0
    with detect_secrets_session():
        plugins = get_plugins()
        replacements = stand_ins(plugins)
        # The plugins whose regexes backtrack all have one.
        names = {type(p).__name__ for p in plugins if id(p) in replacements}
        assert {"KeywordDetector", "JwtTokenDetector", "NpmDetector", "OpenAIDetector"} <= names
        assert {"CloudantDetector", "IbmCloudIamDetector", "SoftlayerDetector"} <= names
        # The entropy plugins' stand-ins only answer early where no value can pass.
        assert {"Base64HighEntropyString", "HexHighEntropyString"} <= names
        for plugin in plugins:
            stand_in = replacements.get(id(plugin))
            if stand_in is None:
                continue
            assert isinstance(stand_in, type(plugin))
            assert stand_in.secret_type == plugin.secret_type
            lines: list[str] = []
            for pattern in _regexes(plugin):
                variants = _variants(pattern, rng, 60)
                lines += variants + [_spice(line, rng) for line in variants]
            for _ in range(600):
                line = "".join(rng.choice(_ATOMS) for _ in range(rng.randint(1, 12)))
                lines += [line, _spice(line, rng)]
            names_ = _FILENAMES if isinstance(plugin, KeywordDetector) else _FILENAMES[:1]
            for line in lines:
                for filename in names_:
                    want = _found(plugin, filename, line)
                    assert _found(stand_in, filename, line) == want, (type(plugin), line)
                    compared += 1
                    matched += bool(want)
    assert compared > 20_000
    assert matched > 3_000


def test_the_line_checks_pass_every_line_their_plugin_reports_on() -> None:
    # The prefilter asks these checks instead of the plugins' triggers (a run of 44
    # identifier characters, four dotted numbers): a line a plugin (or its stand-in)
    # reports on must pass; the hashes and versions the triggers pass need not.
    rng = random.Random(26)
    reported = 0
    with detect_secrets_session():
        plugins = get_plugins()
        replacements = stand_ins(plugins)
        checks = line_checks(plugins, replacements)
        assert set(checks) == {
            "IbmCloudIamDetector", "IbmCosHmacDetector", "SoftlayerDetector", "IPPublicDetector",
            "Base64HighEntropyString", "HexHighEntropyString",
        }  # fmt: skip
        for plugin in plugins:
            check = checks.get(type(plugin).__name__)
            if check is None:
                continue
            runner = replacements.get(id(plugin), plugin)
            lines: list[str] = []
            for pattern in _regexes(plugin):
                variants = _variants(pattern, rng, 80)
                lines += variants + [_spice(line, rng) for line in variants]
                lines += [line.replace(" ", "     ") for line in variants]  # long blank runs
            for _ in range(400):
                line = "".join(rng.choice(_ATOMS) for _ in range(rng.randint(1, 12)))
                lines += [line, _spice(line, rng), line + "a" * 44, line + " 10.2.3.4"]
            for line in lines:
                if _found(runner, "a.py", line):
                    reported += 1
                    assert check.search(line), (type(plugin).__name__, line)
        hashes = "sha512-" + "Ab0_" * 16
        assert not checks["IbmCloudIamDetector"].search(f'"integrity": "{hashes}"')
        assert not checks["SoftlayerDetector"].search("commit " + "0a" * 32)
        assert not checks["IPPublicDetector"].search("version 1.2.3.45678")
        assert checks["IbmCloudIamDetector"].search("ibm_key \u00e9" + "x" * 44)  # not ASCII
    assert reported > 300


def _pragma_line(rng: random.Random) -> str:
    def pick(*options: str) -> str:
        return rng.choice(options)

    line = (
        pick("", "x = 1 ", "  ", "\t")
        + pick("#", "//", "/*", "'", "--", "<!--", "<!--#", "")
        + pick("", " ", "  ", "\t", "\xa0")
        + pick("pragma:", "pragma: ", "pragma:  ", "Pragma: ")
        + pick("allowlist", "whitelist", "allow list")
        + pick(" ", "-", "")
        + pick("", "nextline ", "nextline-")
        + pick("secret", "secrets", "Secret")
        + pick("", " */", "*/", " -->", "-->", " ", "\t", " trailing")
    )
    chars = list(line)
    if rng.random() < 0.3:
        chars.insert(rng.randint(0, len(chars)), rng.choice(["\u2028", " ", "\n", "#", "*"]))
    return "".join(chars)


@pytest.mark.slow
def test_the_pragma_filter_on_re2_agrees_with_detect_secrets() -> None:
    from detect_secrets.filters.allowlist import is_line_allowlisted

    rng = random.Random(7)
    agreed = 0
    with detect_secrets_session():
        for _ in range(10_000):
            line = _pragma_line(rng)
            previous = _pragma_line(rng) + rng.choice(["", "\n"])
            snippet = get_code_snippet([previous, line], 2)
            for filename in ("a.py", "a.yaml", "a.sql"):
                want = is_line_allowlisted(filename, line, snippet)
                got = allowlist_re2.is_line_allowlisted(filename, line, snippet)
                assert got == want, (filename, line, previous)
                agreed += want
    assert agreed > 300


def test_patterns_re2_cannot_match_the_same_way_are_left_to_python() -> None:
    assert translate(r"a(?=b)") is None
    assert translate(r"\bkey") is None
    assert translate(r"(a)\1") is None
    assert translate(r"[\W]") is None
    rewritten = translate(r"x\d[\s\w-]")
    assert rewritten is not None and "\\x{660}-\\x{669}" in rewritten  # Arabic-Indic digits


def test_the_trailer_strip_agrees_with_the_regex_it_replaces() -> None:
    rng = random.Random(11)
    atoms = [" ", "\t", "\n", "#", "\\", "a", "b", " #", "\xa0", "\u2028", "# x"]
    for _ in range(50_000):
        value = "".join(rng.choice(atoms) for _ in range(rng.randint(0, 12))).strip()
        assert without_trailer(value) == re.sub(r"\s+(\\|#.*)$", "", value), repr(value)


def test_entropy_plugins_run_as_they_are_under_another_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The entropy stand-ins answer early only for the source they were proved against:
    another detect-secrets release runs its own plugins unchanged."""
    from thresher.findings import plugins_re2

    entropy = ("Base64HighEntropyString", "HexHighEntropyString")
    with detect_secrets_session():
        plugins = list(get_plugins())
        names = {type(p).__name__ for p in plugins if id(p) in stand_ins(plugins)}
        assert set(entropy) <= names
        plugins_re2._known_entropy_sources.cache_clear()
        monkeypatch.setattr(plugins_re2, "_ENTROPY_SOURCES", ("another", "release"))
        try:
            names = {type(p).__name__ for p in plugins if id(p) in stand_ins(plugins)}
        finally:
            plugins_re2._known_entropy_sources.cache_clear()
    assert not set(entropy) & names


def test_entropy_stand_ins_agree_on_values_with_few_distinct_characters() -> None:
    # The stand-ins pass over a value with fewer distinct characters than the length
    # whose log2 reaches the limit; around that count they must still agree.
    rng = random.Random(41)
    alphabet = "0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz+/="
    with detect_secrets_session():
        plugins = [p for p in get_plugins() if "HighEntropy" in type(p).__name__]
        replacements = stand_ins(plugins)
        assert len(plugins) == 2
        reported = 0
        for plugin in plugins:
            stand_in = replacements[id(plugin)]
            for distinct in range(4, 30):
                for length in (distinct, distinct + 3, 40, 90):
                    chosen = rng.sample(alphabet, distinct)
                    value = "".join(chosen[i % distinct] for i in range(max(length, distinct)))
                    for line in (f'x = "{value}"', f"k: '{value}' # c", f'"{value}" "{value[:5]}"'):
                        want = _found(plugin, "a.py", line)
                        assert _found(stand_in, "a.py", line) == want, (type(plugin), line)
                        reported += bool(want)
        assert reported > 50


def test_entropy_stand_ins_answer_each_line_asked_again_and_in_turn() -> None:
    # The prefilter asks ``search`` of a line and ``analyze_line`` asks it again; the
    # stand-in keeps its last answer and recent entropies. Lines asked in turn, twice
    # in a row and after another, get the plugin's own answers every time.
    rng = random.Random(43)
    alphabet = "0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz+/="
    values = ["".join(rng.choice(alphabet) for _ in range(rng.randint(8, 48))) for _ in range(60)]
    lines = [f'x = "{value}"' for value in values] + ['y = "aaaaaaaaaaaaaaaaaaaaaaaa"', ""]
    with detect_secrets_session():
        plugins = [p for p in get_plugins() if "HighEntropy" in type(p).__name__]
        replacements = stand_ins(plugins)
        reported = 0
        for plugin in plugins:
            stand_in = replacements[id(plugin)]
            for line in [*lines, *lines[::-1], *[line for line in lines for _ in range(2)]]:
                want = _found(plugin, "a.py", line)
                assert stand_in.search(line) or not want  # the early answer never hides one
                assert _found(stand_in, "a.py", line) == want, (type(plugin), line)
                reported += bool(want)
        assert reported > 20
