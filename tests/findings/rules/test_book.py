"""The rule book: data that must compile, and errors that name the rule at fault."""

from __future__ import annotations

import time

import pytest

from thresher.errors import ExitCode
from thresher.findings import SecretType, secret_type_for_rule
from thresher.findings.rules.book import Rule, RuleError, builtin_rules, parse_book
from thresher.findings.rules.matcher import Rulebook
from thresher.validators import offline_validators


def test_builtin_book_loads_with_unique_ids_and_lower_case_keywords() -> None:
    rules = builtin_rules()
    ids = [rule.id for rule in rules]
    assert len(ids) == len(set(ids)) >= 70
    assert all(word == word.lower() for rule in rules for word in rule.keywords)
    assert all(rule.description for rule in rules)


def test_every_named_validator_exists() -> None:
    names = {validator.name for validator in offline_validators()}
    named = {rule.validator for rule in builtin_rules() if rule.validator}
    assert named <= names


def test_a_pattern_re2_refuses_names_the_rule() -> None:
    book = {"rule": [{"id": "ok", "pattern": "a"}, {"id": "look-back", "pattern": "(?<=a)b"}]}
    with pytest.raises(RuleError) as caught:
        for rule in parse_book(book, "mine.toml"):
            rule.compiled()
    assert "'look-back'" in caught.value.message
    assert "RE2" in caught.value.message
    assert caught.value.exit_code is ExitCode.USAGE


def test_a_missing_group_and_a_duplicate_id_are_errors() -> None:
    with pytest.raises(RuleError, match=r"value_group 'v' is not a group"):
        Rule(id="x", pattern="a(b)", value_group="v").compiled()
    with pytest.raises(RuleError, match="defined twice"):
        parse_book({"rule": [{"id": "x", "pattern": "a"}, {"id": "x", "pattern": "b"}]}, "b")
    with pytest.raises(RuleError, match=r"rule 'x'.*keywords"):
        parse_book({"rule": [{"id": "x", "pattern": "a", "keywords": [""]}]}, "b")


def test_custom_rule_defaults_match_the_old_custom_rules() -> None:
    """A rule of only id and pattern reports the named group ``secret``, else the match."""
    named = Rulebook([Rule(id="int", pattern="INT-(?P<secret>[A-Z0-9]{8})")])
    whole = Rulebook([Rule(id="any", pattern="ZZ[0-9]{4}")])
    lines = ["key INT-ABCD1234 and ZZ1234"]
    assert [h.value for h in named.scan("a.txt", lines, range(1))] == ["ABCD1234"]
    assert [h.value for h in whole.scan("a.txt", lines, range(1))] == ["ZZ1234"]


def test_path_limits_a_rule_to_matching_files() -> None:
    book = Rulebook([Rule(id="p", pattern="secret=(?P<secret>\\w+)", path="\\.cfg$")])
    assert book.scan("a.cfg", ["secret=abc"], range(1))
    assert not book.scan("a.txt", ["secret=abc"], range(1))


def test_hostile_lines_stay_linear() -> None:
    """Every keyword on every position of a long line: the gate hits everywhere, and
    RE2 still takes time linear in the text."""
    book = Rulebook(builtin_rules())
    line = "password=key:token-" * 50_000  # ~1 MB, keywords all along
    blanks = "a" + " " * 500_000 + "=" + "b"
    started = time.perf_counter()
    book.scan("x.yml", [line, blanks, "://" * 100_000], range(3))
    assert time.perf_counter() - started < 20


def test_one_rule_reads_a_bounded_number_of_matches_per_line() -> None:
    book = Rulebook([rule for rule in builtin_rules() if rule.id == "generic-password"])
    line = " ".join(f"password={i:06d}x" for i in range(2000))
    found = book.scan("a.env", [line], range(1))
    assert 0 < len(found) <= 256
    assert found[0].value == "000000x"


def test_each_rule_types_its_findings_as_its_book_says() -> None:
    """The rule book states each rule's secret type; findings derive it from the rule id."""
    for rule in builtin_rules():
        expected = rule.secret_type or SecretType.GENERIC
        assert secret_type_for_rule(rule.id) is expected, rule.id
