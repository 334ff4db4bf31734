"""The value profile get_finding shows a model: facts about the value, never the value."""

from __future__ import annotations

import time

from thresher.findings.profile import key_name, profile_value

VALUE = "qX9vLm2Rt7Kp4Zw8"


def test_key_name_on_an_ordinary_line() -> None:
    assert key_name(f'DB_PASSWORD = "{VALUE}"', VALUE) == "DB_PASSWORD"


def test_key_name_at_the_end_of_a_minified_line() -> None:
    """Only the text just before the value is read, so a 60 kB bundle line is cheap and
    the name right before the value is still found."""
    line = "var a=" + "x.y(z)," * 9000 + f'apiKey:"{VALUE}"'
    assert key_name(line, VALUE) == "apiKey"
    profile = profile_value(VALUE, line)
    assert profile["key_name_length"] == len("apiKey")
    assert VALUE not in str(profile)


def test_profiling_a_hostile_value_on_a_60_kb_line_is_fast() -> None:
    """A value a custom rule or a keyword can report in full: a long blank run (the
    trailer strip was quadratic in it) or repeated template braces."""
    values = ["a" + " " * 60_000 + "x", "{{" * 30_000, "${" * 30_000, "my" * 30_000]
    started = time.perf_counter()
    for value in values:
        profile = profile_value(value, f'var k="{value}";' + "x" * 1000)
        assert profile["length"] == len(value)
    assert time.perf_counter() - started < 10.0


def test_the_profile_keeps_its_answers_on_ordinary_values() -> None:
    assert profile_value("changeme # set in prod")["placeholder_word"]
    assert profile_value("${DB_PASSWORD}")["reference"]
    assert profile_value("qX9vLm2Rt7Kp4Zw8 \\")["length"] == len("qX9vLm2Rt7Kp4Zw8 \\")
    assert profile_value("Your API key here")["descriptive_text"]
