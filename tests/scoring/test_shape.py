"""What a value is, read before any weight: issue 17's failure classes on clean code."""

from __future__ import annotations

import pytest

from thresher.scoring.shape import (
    clean_value,
    file_features,
    line_features,
    type_features,
    word_features,
)


@pytest.mark.parametrize(
    ("value", "feature"),
    [
        ("true", "value_boolean"),
        ("Disabled", "value_boolean"),
        ("null", "value_null"),
        ("0x8", "value_number"),
        ("3600", "value_number"),
        ("function", "value_type_name"),
        ("opts.Cluster.Password", "value_member_access"),
        ("get_random_string(50)", "value_call"),
        ("secrets[opts.SecretName]", "value_indexed"),
        ("_EMPTY_", "value_constant_name"),
        ("", "value_empty"),
        ("jjwt-api:0.11.2", "value_version_like"),
        ("1.2.840.113549.1.9.7", "value_dotted_numeric"),
        ("$2a$11$PWIFAL8RsWyGI3jVZtO9Nu8.6jOxzxfZo7c", "value_crypt_hash"),
    ],
)
def test_values_that_are_not_literal_secrets(value: str, feature: str) -> None:
    assert type_features(value, "password: ").get(feature) == 1.0


def test_a_spring_default_inside_an_env_lookup() -> None:
    assert (
        type_features("db-pass", "spring.datasource.password=${DB_PASSWORD:")["value_env_default"]
        == 1.0
    )


def test_a_random_token_has_none_of_those_types() -> None:
    assert type_features("q8Zr2LmT0vXw9KpB", "token = ") == {}


@pytest.mark.parametrize(
    ("value", "feature"),
    [
        ("Summer2019!", "value_human_password"),
        ("correct-horse-battery-staple", "value_passphrase"),
        ("supersecretpassword", "value_lower_word"),
        ("Kennwort", "value_capitalized_word"),
        ("Mot de passe", "pronounceable"),
        ("Contraseña", "value_non_ascii"),
    ],
)
def test_word_shapes(value: str, feature: str) -> None:
    assert word_features(value).get(feature) == 1.0


def test_random_characters_are_not_word_shaped() -> None:
    f = word_features("xK9qZt2WvB8mLr4N")
    assert "value_passphrase" not in f and "value_human_password" not in f
    assert "pronounceable" not in f


@pytest.mark.parametrize(
    ("path", "feature"),
    [
        ("vendor/github.com/x/y/conf.go", "path_third_party"),
        ("web/node_modules/pkg/index.js", "path_third_party"),
        ("api/service.pb.go", "file_generated"),
        ("config/locales/fr.yml", "file_locale"),
        ("resources/lang/de/auth.php", "file_locale"),
        ("app/src/main/res/values-fr/strings.xliff", "file_locale"),
        ("i18n/messages_de.properties", "file_locale"),
    ],
)
def test_file_kinds_nobody_deploys(path: str, feature: str) -> None:
    assert file_features(path).get(feature) == 1.0


def test_an_ordinary_config_is_neither_vendored_nor_locale() -> None:
    assert file_features("deploy/docker-compose.yml") == {}


def test_a_checksum_manifest_key_is_a_file_name() -> None:
    assert (
        line_features('"lib/puppet/type/apt_key.rb": "e638...",', "apt_key.rb")["key_file_name"]
        == 1.0
    )
    assert "key_file_name" not in line_features("db_password: x", "db_password")
    assert line_features("#define SOME_KEY_FLAG 0x8", "SOME_KEY_FLAG")["line_define"] == 1.0


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("zgrmccvzwrbtwkaycqbltmtj \\", "zgrmccvzwrbtwkaycqbltmtj"),
        ("'quoted'", "quoted"),
        ('"s3cr3t",', "s3cr3t"),
        ('my-password"', "my-password"),
        ("l5ly9r')", "l5ly9r"),
        ("(x)", "(x)"),
    ],
)
def test_values_read_as_their_parser_reads_them(raw: str, clean: str) -> None:
    assert clean_value(raw) == clean
