"""What a value is, read before any weight: issue 17's failure classes on clean code."""

from __future__ import annotations

import base64
import json
import secrets

import pytest

from thresher.scoring.features import CandidateContext, features
from thresher.scoring.shape import (
    clean_value,
    der_public,
    file_features,
    jose_header,
    jwt_public_claims,
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
        ("admin:$apr1$abcdefgh$PWIFAL8RsWyGI3jVZtO9Nu", "value_crypt_hash"),
        ("sha1$a1b2c$0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33", "value_crypt_hash"),
        ("bcrypt_sha256$$2b$12$PWIFAL8RsWyGI3jVZtO9Nu8.6jOxzxfZo7c", "value_crypt_hash"),
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
        ("frontend/src/assets/i18n/zh_TW.json", "file_locale"),
        ("app/system/languages/nl_NL/messages.php", "file_locale"),
        ("config/pt_BR.yml", "file_locale"),
        ("core/src/main/resources/hudson/model/Messages_de.properties", "file_locale"),
        ("resources/SecurityRealm/Details/config_nb_NO.properties", "file_locale"),
    ],
)
def test_file_kinds_nobody_deploys(path: str, feature: str) -> None:
    assert file_features(path).get(feature) == 1.0


def test_an_ordinary_config_is_neither_vendored_nor_locale() -> None:
    assert file_features("deploy/docker-compose.yml") == {}


@pytest.mark.parametrize(
    "path",
    [
        "group_vars/all.yml",
        "config/uaa.yml",
        "WEB-INF/cas.properties",
        "src/main/resources/application_prod.properties",  # a profile, not a language
        "src/main/resources/db_xy.properties",  # not a language code
    ],
)
def test_a_short_file_name_is_a_locale_only_when_it_is_a_language_code(path: str) -> None:
    """Any two or three letters used to count: Ansible's ``all.yml`` held real passwords."""
    assert "file_locale" not in file_features(path)


@pytest.mark.parametrize(
    "value", ["API password", "The password for API user ID", "S3 Secret", "Account password"]
)
def test_words_that_describe_a_credential(value: str) -> None:
    assert word_features(value)["value_describes_credential"] == 1.0


@pytest.mark.parametrize("value", ["kitten lesser pooch", "correct-horse-battery", "Passw0rd!"])
def test_a_passphrase_does_not_describe_a_credential(value: str) -> None:
    assert "value_describes_credential" not in word_features(value)


@pytest.mark.parametrize("value", ["somePASSWORD", "mysecret", "test_token", "password123"])
def test_a_value_that_only_names_a_credential(value: str) -> None:
    assert word_features(value)["value_names_credential"] == 1.0


def test_a_made_up_password_names_nothing() -> None:
    assert "value_names_credential" not in word_features("fretcharge7")


def _features(line: str, value: str, path: str = "app/config.py") -> dict[str, float]:
    return features(CandidateContext(value=value, rule_id="generic-token", path=path, line=line))


def test_a_key_written_as_one_word_still_says_what_it_holds() -> None:
    f = _features('"Apitoken": "a8Fq2LmZ0vXw9KpB3nRt",', '"a8Fq2LmZ0vXw9KpB3nRt"')
    assert f["key_token"] == 1.0 and f["credential_words_near"] == 1.0
    assert _features("mysqlrootpwd=Zq81xLm3", "Zq81xLm3")["key_pwd"] == 1.0
    assert "key_key" not in _features("monkey = Zq81xLm3Tr", "Zq81xLm3Tr")


def test_a_json_object_is_no_bracketed_placeholder() -> None:
    value = '{\\"inks\\":\\"dumb\\",\\"cic\\":\\"169d7296a48686e75fea4444ab364049\\"}'
    assert "value_explicit_placeholder" not in _features(f'"Apitoken": "{value}",', value)
    assert _features('password: "{password}"', "{password}")["value_explicit_placeholder"] == 1.0


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("password_hash_method: SHA512-CRYPT", "SHA512-CRYPT"),
        ('public const string OAuthClientId = "0120e057bd645470c1ed";', "0120e057bd645470c1ed"),
    ],
)
def test_a_key_that_names_a_setting_or_an_identifier(line: str, value: str) -> None:
    assert _features(line, value)["key_names_setting"] == 1.0


def test_a_credential_key_names_no_setting() -> None:
    assert "key_names_setting" not in _features("db_password = Zq81xLm3", "Zq81xLm3")


def test_a_path_is_path_like_even_when_it_is_base64_shaped() -> None:
    value = "/var/folders/_6/xbsnn7tx6g9dblyx149nrvbw0000gn/T/plug/"
    assert _features(f'path: "{value}"', value)["value_path_like"] == 1.0


def test_public_der_is_told_from_a_private_key() -> None:
    # SubjectPublicKeyInfo of RSA keys (2048, 512 and 1024 bits): public material.
    assert der_public("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA")
    assert der_public("MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAKHGwq7q2Rmw")
    assert der_public("MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDvsJrd")
    # PKCS#8 and PKCS#1 private keys open with the INTEGER version.
    assert not der_public("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEA")
    assert not der_public("MIIEpAIBAAKCAQEAxK9qZt2WvB8mLr4NxK9qZt2W")
    assert not der_public("not base64 at all, not even close")


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


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _jwt(header: dict[str, str], claims: dict[str, str]) -> str:
    """A token built at test time: structure only, signed by nobody."""
    parts = (json.dumps(header).encode(), json.dumps(claims).encode(), secrets.token_bytes(64))
    return ".".join(_b64url(p) for p in parts)


def test_the_value_is_read_where_it_is_assigned_not_inside_its_key() -> None:
    f = _features('const skipAuthCheckAnnotation = "skipAuthCheck"', "skipAuthCheck")
    assert f["value_repeats_key"] == 1.0 and f["key_auth"] == 1.0
    assert _features("password: password", "password")["key_password"] == 1.0
    # A quote wins over a namespace's colon: the value of x:Key is the quoted one.
    line = '<converter:Minus10Converter x:Key="Minus10Converter" />'
    f = _features(line, "Minus10Converter")
    assert f["value_repeats_on_line"] == 1.0 and f["quoted"] == 1.0


def test_a_key_is_read_through_an_index() -> None:
    line = "$config['password_dovecotpw_method']='SHA512-CRYPT';"
    assert _features(line, "SHA512-CRYPT")["key_names_setting"] == 1.0
    assert _features('ENV["DB_PASSWORD"] = "Zq81xLm3"', "Zq81xLm3")["key_password"] == 1.0


def test_a_nats_jwt_is_public_claims_and_another_jwt_is_not() -> None:
    nats = _jwt({"typ": "JWT", "alg": "ed25519-nkey"}, {"sub": "UABC", "nats": "user"})
    hmac = _jwt({"typ": "JWT", "alg": "HS256"}, {"sub": "42"})
    assert jwt_public_claims(nats)
    assert _features(f"operator = {nats}", nats)["value_public_claims"] == 1.0
    assert not jwt_public_claims(hmac)
    assert not jwt_public_claims("eyJnot.base64.atall!")


def test_a_jose_protected_header_alone_is_public() -> None:
    header = _b64url(json.dumps({"alg": "RSA-OAEP-256", "enc": "A256GCM"}).encode())
    assert jose_header(header)
    assert _features(f"protected: '{header}'", header)["value_jose_header"] == 1.0
    # Any other member, or no algorithm at all, is not a header.
    assert not jose_header(_b64url(json.dumps({"alg": "HS256", "k": "abc"}).encode()))
    assert not jose_header(_b64url(json.dumps({"typ": "JWT"}).encode()))
    assert not jose_header(_b64url(secrets.token_bytes(24)))


@pytest.mark.parametrize(
    ("value", "expected"),
    [("%s\\ncipher=%s\\n", True), ("%(password)s", True), ("Summer2019%", False)],
)
def test_a_format_string_is_filled_at_run_time(value: str, expected: bool) -> None:
    line = f"printf 'password={value}'"
    assert ("value_format_string" in _features(line, value)) is expected


def test_a_key_with_nothing_after_it_is_no_value() -> None:
    assert _features("  users:", "users:", "machine.yaml.tmpl")["value_is_key"] == 1.0
    assert "value_is_key" not in _features("password: users", "users")


def test_digests_in_a_checksum_manifest() -> None:
    assert file_features("modules/apt/checksums.json")["file_checksums"] == 1.0
    assert file_features("dist/app.tar.gz.sha256")["file_checksums"] == 1.0
    digest = "5a5a6586db3010a0876dfa4ee29e3155"
    f = _features(f'"manifests/key.pp": "{digest}",', digest, "modules/apt/checksums.json")
    assert f["lockfile_digest"] == 1.0
    assert "file_checksums" not in file_features("config/settings.json")


@pytest.mark.parametrize(
    ("path", "locale"),
    [
        ("app/system/languages/nl_NL/messages.php", True),
        ("web/pt-BR/app.json", True),
        ("web/xx_YY/app.json", False),  # xx is no language
        ("config/US/app.json", False),
    ],
)
def test_a_directory_named_for_a_locale_holds_translations(path: str, locale: bool) -> None:
    assert ("file_locale" in file_features(path)) is locale


@pytest.mark.parametrize(
    ("value", "path_like"),
    [
        ("conf/ssl/server.key", True),
        ("o5/\\/\\P6$$t7gZ", False),  # a password with slashes
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIB/AAKCAQEA/xK9qZt2W", False),
        ("aGVsbG8/d29ybGQ/Zm9v", False),  # base64 with slashes
    ],
)
def test_only_names_between_slashes_are_a_path(value: str, path_like: bool) -> None:
    assert ("value_path_like" in _features(f'x = "{value}"', value)) is path_like
