"""The screen's judgements, one shape at a time: each dropped shape beside a
credential of a close shape that must stay. Credentials are generated at test time."""

from __future__ import annotations

import random
import string
import uuid

import pytest

from tests.tokens import random_secret
from thresher.findings.screen_rules import Context, DropReason, judge


def _hex(length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("0123456789abcdef") for _ in range(length))


def _crypt_base(length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(string.ascii_letters + string.digits + "./") for _ in range(length))


def judged(line: str, value: str, *, code: bool = True, keyed: bool = True) -> DropReason | None:
    return judge(Context.of(line, value), code=code, keyed=keyed)


TOKEN = random_secret(32, seed=101)
PASSWORD = random_secret(14, seed=102)


# ------------------------------------------------------------------- what the key means


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ('secretary_name = "{v}"', TOKEN),
        ('passwordless_login = "{v}"', TOKEN),
        ("py3.11-foo-notoken-v1: {v}", TOKEN),
        ('tokenizer_path: "{v}"', TOKEN),
    ],
)
def test_a_secret_word_inside_another_word_or_negated_is_no_credential_key(
    line: str, value: str
) -> None:
    assert judged(line.format(v=value), value) is DropReason.SECRET_WORD_IN_OTHER_WORD


@pytest.mark.parametrize(
    "key",
    [
        "db_password",
        "apiKey",
        "SECRET_KEY",
        "clientSecret",
        "dbpassword",
        "apikey",
        "authtoken",
        "password2",
        "secretValue",
        "tokens",
        "X-Auth-Token",
        "Authorization",
    ],
)
def test_a_secret_word_as_a_whole_word_or_a_compound_head_is_kept(key: str) -> None:
    assert judged(f'{key} = "{TOKEN}"', TOKEN) is None
    assert judged(f"{key}: {PASSWORD}", PASSWORD, code=False) is None


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("max_tokens = 1000", "1000"),
        ("max_tokens: 100000000", "100000000"),
        ("ERR_PASSWORD_EXPIRED = 1330", "1330"),
        ("ERROR_INVALID_PASSWORD = 86", "86"),
        ("max_token = 4096", "4096"),
    ],
)
def test_a_number_under_a_count_or_a_code_is_dropped(line: str, value: str) -> None:
    assert judged(line, value) is DropReason.COUNT_OR_CODE


@pytest.mark.parametrize(
    "line",
    ["password = 12345678", "DB_PASSWORD=12345678", "pin: 12345678", "db_password_2 = 12345678"],
)
def test_a_number_that_is_the_credential_itself_is_kept(line: str) -> None:
    assert judged(line, "12345678") is None


def test_key_meaning_does_not_judge_what_an_entropy_detector_found() -> None:
    # Found by its characters: the key's words say nothing against it.
    assert judged(f'secretary_id = "{TOKEN}"', TOKEN, keyed=False) is None
    assert judged("max_tokens = 12345678", "12345678", keyed=False) is None


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("Culture=neutral, PublicKeyToken={v}", _hex(16, 1)),
        ('MagicCookieValue: "{v}",', _hex(64, 2)),
        ('public_key = "{v}"', TOKEN),
    ],
)
def test_a_value_the_key_calls_public_or_magic_is_dropped(line: str, value: str) -> None:
    reason = judged(line.format(v=value), value, keyed=False)
    assert reason is DropReason.PUBLIC_CONSTANT


def test_a_private_key_beside_a_public_one_is_kept() -> None:
    assert judged(f'private_key = "{TOKEN}"', TOKEN) is None
    assert judged(f'CookieSecret: "{_hex(64, 3)}"', _hex(64, 3), keyed=False) is None


@pytest.mark.parametrize("key", ["rev", "version", "commit", "commit_sha", "ref"])
def test_a_commit_id_under_a_revision_key_is_dropped(key: str) -> None:
    sha = _hex(40, 4)
    assert judged(f'{key}: "{sha}"', sha, keyed=False) is DropReason.COMMIT_ID


def test_hex_under_a_credential_key_is_kept() -> None:
    sha = _hex(40, 5)
    assert judged(f'api_secret: "{sha}"', sha) is None
    # Not hex: a revision key does not make a random token a commit.
    assert judged(f'version_token: "{TOKEN}"', TOKEN) is None


# --------------------------------------------------------------------- what the value is


@pytest.mark.parametrize(
    "value",
    [
        "somepkg==2.3",
        ">=1.0,<2",
        "somepkg[extra]~=2.3.1",
        "^1.2.3",
        "django>=4.2; python_version>'3.8'",
    ],
)
def test_a_version_pin_is_dropped(value: str) -> None:
    line = f"py3.11-foo-token-v2: {value}"
    assert judged(line, value, code=False) is DropReason.VERSION_PIN


@pytest.mark.parametrize(
    "value", [PASSWORD, "Pa==word", "dGVzdA==", "abc==Xyz123", "I<3C3H8", "abc<5", "x>9Yz"]
)
def test_a_password_with_equals_signs_is_no_version_pin(value: str) -> None:
    assert judged(f"token: {value}", value, code=False) is None


@pytest.mark.parametrize(
    "value",
    ["int | None", "Optional[str]", "dict[str, int]", "str", "Optional[SecretStr]", "int64"],
)
def test_a_type_annotation_is_dropped(value: str) -> None:
    line = f'    input_tokens: "{value}"'
    assert judged(line, value) is DropReason.TYPE_ANNOTATION


@pytest.mark.parametrize("value", [TOKEN, "Str|Ng[9]", "Hunter|Two", "MyPassword"])
def test_a_credential_is_no_type_annotation(value: str) -> None:
    assert judged(f'api_token: "{value}"', value) is None


@pytest.mark.parametrize(
    "value",
    [
        "vault-path:password",
        "vault:secret/data/db#password",
        "ssm:/prod/db/password",
        "env:DB_PASS",
    ],
)
def test_a_pointer_into_a_secret_store_is_dropped(value: str) -> None:
    assert judged(f"REGISTRY_PASS={value}", value, code=False) is DropReason.STORE_REFERENCE


@pytest.mark.parametrize(
    "value",
    [
        PASSWORD,
        "admin:" + PASSWORD,
        "envoy" + PASSWORD,
        "opaque:" + PASSWORD,
        "vaulted:" + PASSWORD,
    ],
)
def test_a_password_with_a_colon_is_no_store_reference(value: str) -> None:
    assert judged(f"REGISTRY_PASS={value}", value, code=False) is None


def test_a_yaml_block_of_text_is_dropped_but_a_one_token_block_is_kept() -> None:
    script = "export A=1\nexport B=2\n"
    assert judged("  ci_secrets: |", script, code=False) is DropReason.BLOCK_TEXT
    assert judged("  note_secret: >-  # folded", "a folded text", code=False) is (
        DropReason.BLOCK_TEXT
    )
    assert judged("  db_password: |", PASSWORD + "\n", code=False) is None
    # Not a block indicator: a value read from elsewhere is left alone.
    assert judged("  db_password: ", "two words", code=False) is None


def test_a_uuid_as_a_mapping_key_is_dropped_but_a_uuid_value_is_kept() -> None:
    key = str(uuid.UUID(int=random.Random(6).getrandbits(128), version=4))
    assert judged(f'    "{key}": "name",', key, keyed=False) is DropReason.UUID_MAP_KEY
    assert judged(f"  {key} => 'name',", key, keyed=False) is DropReason.UUID_MAP_KEY
    assert judged(f'api_key = "{key}"', key) is None


def test_an_index_or_call_expression_in_code_is_dropped() -> None:
    assert judged("\ttoken = exprTok1[char]", "exprTok1[char") is DropReason.EXPRESSION
    assert judged("token := exprTok2[char-exprPrivate]", "exprTok2[char-exprPrivate") is (
        DropReason.EXPRESSION
    )


def test_a_bracketed_value_quoted_or_in_configuration_is_kept() -> None:
    value = "Ab3[xY9" + PASSWORD
    assert judged(f'token = "{value}"', value) is None  # quoted: a literal
    assert judged(f"token: {value}", value, code=False) is None  # configuration: text


def test_context_reads_the_key_before_the_value() -> None:
    assert Context.of(f'  "db_password": "{PASSWORD}",', PASSWORD).key == "db_password"
    assert Context.of(f"$config['api_key'] = '{TOKEN}';", TOKEN).key == "api_key"
    assert Context.of(f'setPassword("{PASSWORD}")', PASSWORD).key == "setPassword"
    assert Context.of(f'if "{PASSWORD}" == password:', PASSWORD).key == ""
    assert not Context.of("password: |", PASSWORD).on_line


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("\tcfg.Password = passwordFlag", "passwordFlag"),
        ("\tpassword = mmpassword", "mmpassword"),
        ("    password := c.cfg.Password", "c.cfg.Password"),
        ("'remember_token' => Str::random(10),", "Str::random(10"),
        ("$this->password = $request->password;", "$request->password"),
        ("    password = fetch_password!", "fetch_password!"),
        ('cluster_auth_base64 = try(time_sleep.this[0].triggers["x"], "")', "try(time_sleep"),
    ],
)
def test_a_variable_or_a_call_in_code_is_an_expression(line: str, value: str) -> None:
    assert judged(line, value) is DropReason.EXPRESSION


def test_a_random_token_unquoted_in_code_or_quoted_is_kept() -> None:
    assert judged(f"\tpassword = {TOKEN}", TOKEN) is None
    assert judged(f'\tpassword = "passwordFlag{TOKEN}"', f"passwordFlag{TOKEN}") is None
    # Inside a string opened earlier on the line: a literal, not a name.
    assert judged("$uri = 'tcp://h:6400?password=secret';", "secret") is None


def test_the_value_is_read_after_its_key_not_where_the_key_repeats_it() -> None:
    assert judged("    password: 'password',", "password") is None
    assert Context.of("password: 'password'", "password").quoted


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ('existingSecretPasswordKey: "etcd-root-password"', "etcd-root-password"),
        ("existingSecret: my-release-auth", "my-release-auth"),
        ("passwordsSecretTruststoreKey: truststore-password", "truststore-password"),
        ("adminPasswordKey: admin-password", "admin-password"),
    ],
)
def test_a_key_that_points_at_where_a_credential_is_kept_is_dropped(line: str, value: str) -> None:
    assert judged(line, value, code=False) is DropReason.STORE_REFERENCE


@pytest.mark.parametrize(
    "line",
    [
        f"adminPassword: {PASSWORD}",
        f"apiKey: {TOKEN}",
        "password: admin-password",
        "secret_access_key = prod-access-key",
        "existing_password = hunter2-hunter2",
        "SecretAccessKey: prod-secret-key",
    ],
)
def test_a_credential_under_its_own_key_is_no_pointer(line: str) -> None:
    value = line.replace(" = ", ": ").split(": ", 1)[1]
    assert judged(line, value, code=False) is None


@pytest.mark.parametrize(
    "value", ["2006-01-02T15:04:05Z", "2019-02-15", "2024-03-01 10:20:30+02:00"]
)
def test_a_date_or_time_is_dropped(value: str) -> None:
    line = f'## argocdServerAdminPasswordMtime: "{value}"'
    assert judged(line, value, code=False) is DropReason.TIMESTAMP


def test_digits_and_dashes_that_are_no_date_are_kept() -> None:
    assert judged("password: 2006-01-02x15", "2006-01-02x15", code=False) is None


def test_hostile_lines_cost_what_ordinary_ones_do() -> None:
    """Bounded windows and RE2: a 64 kB line of keys, quotes and brackets is judged fast."""
    import time

    started = time.perf_counter()
    for filler in ("password=" * 7000, '"' * 60000, "a[" * 30000, "int | " * 10000):
        line = filler + "password = " + filler
        for value in (filler[:4096], filler, "password"):
            judged(line, value)
            judged(line, value, code=False, keyed=False)
    assert time.perf_counter() - started < 2.0


def test_the_value_shapes_answered_together_are_each_programs_own() -> None:
    import random
    import string

    from thresher.findings import screen_rules
    from thresher.findings.re2_classes import hits, searchable

    programs = screen_rules._programs()
    values = [
        "1.2.3", ">=1.0, <2", "requests==2.31.0", "vault:secret/data/x", "ssm:/prod/db",
        "op://vault/item", "123e4567-e89b-12d3-a456-426614174000", "2024-01-01T10:00:00Z",
        "foo.bar(", "self.password", "x[1]", "hunter2", "int | None", "", " ", "\u00e9$\u00fc",
    ]  # fmt: skip
    rng = random.Random(5)
    alphabet = string.ascii_letters + string.digits + ".-_:/|()[]<>=!~^*, $\u00e9\u4e2d"
    values += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(5000)
    ]
    told = 0
    for value in values:
        text = searchable(value.strip())
        shaped = screen_rules._Shapes(text)
        told += shaped._found is not None
        for name in screen_rules._SHAPES:
            assert shaped.has(name) == hits(programs[name], text), (value, name)
    assert told == len(values)  # the set answered every time: the comparison is real


def test_value_shapes_without_their_set_ask_each_program(monkeypatch: pytest.MonkeyPatch) -> None:
    from thresher.findings import screen_rules
    from thresher.findings.re2_classes import RE2Set

    unready = RE2Set(["("])  # does not compile: it never answers
    assert not unready.ready
    monkeypatch.setattr(screen_rules, "_shape_set", lambda: unready)
    assert screen_rules._Shapes("requests==2.31.0").has("pin")
    assert not screen_rules._Shapes("hunter2").has("pin")
