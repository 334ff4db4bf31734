"""The value profile get_finding shows a model: facts about the value, never the value."""

from __future__ import annotations

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
