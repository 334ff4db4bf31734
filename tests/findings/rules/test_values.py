"""Values are read as each syntax's parser reads them, and filtered to credentials."""

from __future__ import annotations

import random

import pytest

from tests.tokens import random_secret
from thresher.findings.rules.book import Check
from thresher.findings.rules.book import builtin_rules as rules
from thresher.findings.rules.matcher import Rulebook
from thresher.findings.rules.values import (
    STOP_AFTER,
    STOP_BEFORE,
    key_holds,
    key_words,
    passes,
    plausible,
    read_value,
)

SECRET = random_secret(16, seed=3)


def generic(path: str, line: str) -> set[str]:
    """The values the generic rules find on one line of a file named ``path``."""
    book = Rulebook(rule for rule in rules() if rule.provider == "generic")
    return {hit.value for hit in book.scan(path, [line], range(1))}


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("settings.py", f'password = "{SECRET}"'),
        ("settings.py", f"PASSWORD := '{SECRET}';"),
        ("config.yml", f"password: {SECRET}   # old one"),
        ("config.yml", f'  db_password: "{SECRET}"'),
        ("config.json", f'{{"password": "{SECRET}"}}'),
        ("app.properties", f"spring.datasource.password={SECRET}"),
        ("settings.ini", f"password = {SECRET} ; set by ops"),
        (".env", f"export DB_PASS={SECRET}"),
        ("config.php", f"'password' => '{SECRET}',"),
        ("pom.xml", f"<db.password>{SECRET}</db.password>"),
        ("server.xml", f'<Connector password="{SECRET}" port="8443"/>'),
        ("Dockerfile", f"ENV POSTGRES_PASSWORD={SECRET}"),
        ("Dockerfile", f"ARG NPM_TOKEN={SECRET}"),
        ("run.sh", f"tool --password {SECRET} --verbose"),
        ("run.sh", f'tool --api-key="{SECRET}"'),
        ("main.go", f'dsn := "postgres://app:{SECRET}@db:5432/app"'),
        ("Db.java", f'url = "jdbc:sqlserver://db;user=sa;password={SECRET}";'),
    ],
)
def test_each_syntax_yields_the_bare_value(path: str, line: str) -> None:
    assert SECRET in generic(path, line)


@pytest.mark.parametrize(
    "line",
    [
        'password = "${DB_PASSWORD}"',
        "password = $DB_PASSWORD",
        'password: "{{ vault_db_password }}"',
        'password = "%(db_password)s"',
        "password: true",
        "password: null",
        'password = "password"',
        "password = ''",
        'if password == "letmein":',
        "password_length = 12345678",
        "password = self.password",
        "password = get_password()",
        "token: String",
    ],
)
def test_references_booleans_key_names_and_code_are_not_values(line: str) -> None:
    assert generic("app.py", line) == set()


def test_short_and_word_like_passwords_are_kept() -> None:
    """detect-secrets drops these; they are the passwords people really leak."""
    assert generic("docker-compose.yml", "- MYSQL_ROOT_PASSWORD=gluthilly") == {"gluthilly"}
    assert generic("app.yml", "password: admin") == {"admin"}
    assert generic("db.py", 'PASS = "abc"') == {"abc"}


def test_an_unquoted_name_in_code_is_code_but_in_configuration_a_value() -> None:
    assert generic("settings.py", "password = hunter") == set()
    assert generic("settings.cfg", "password = hunter") == {"hunter"}


def test_read_value_handles_quotes_escapes_and_comments() -> None:
    assert read_value(r'"a\"b" # c', literal=True) == (r"a\"b", True)
    assert read_value("'x y'  ", literal=False) == ("x y", True)
    assert read_value("abc # comment", literal=True) == ("abc", False)
    assert read_value("abc, more", literal=False) == ("abc", False)
    assert read_value('"never closed', literal=True) == ("", True)
    assert read_value('String "v1"', literal=False) == ("v1", True)


def test_key_words_split_every_naming_style() -> None:
    assert key_words("dbPassword") == ("db", "password")
    assert key_words("API_KEY") == ("api", "key")
    assert key_words("spring.datasource.password") == ("spring", "datasource", "password")
    assert key_words("x-api-key") == ("x", "api", "key")
    # A long key is split the same way, without being remembered.
    assert key_words("dbPassword_" + "x" * 200) == ("db", "password", "x" * 200)
    assert key_words("already_lower.case-key") == ("already", "lower", "case", "key")


def test_key_holds_answers_as_a_check_of_every_run_at_every_word() -> None:
    """``key_holds`` passes over runs whose first word the key lacks: the same answer
    as trying every run at every position."""

    def every(words: tuple[str, ...], wanted: tuple[tuple[str, ...], ...]) -> bool:
        joined = "".join(words)
        for run in wanted:
            for start in range(len(words) - len(run) + 1):
                here = words[start : start + len(run)]
                long_end = len(run) == 1 and len(run[0]) >= 5 and here[0].endswith(run[0])
                if here == run or long_end:
                    before, after = set(words[:start]), set(words[start + len(run) :])
                    if not before & STOP_BEFORE and not after & STOP_AFTER:
                        return True
            if len(run) > 1 and joined.endswith("".join(run)):
                return True
        return False

    vocabulary = ["db", "password", "api", "key", "length", "label", "secret", "x", "apikey"]
    vocabulary += ["mysqlpassword", "dbpasswd"]  # one word ending in a long wanted word
    wanted = (("password",), ("api", "key"), ("secret", "key"), ("key",), ("passwd",))
    rng = random.Random(5)
    for _ in range(3000):
        words = tuple(rng.choice(vocabulary) for _ in range(rng.randint(0, 5)))
        for chosen in (wanted, wanted[1:3], wanted[3:]):
            assert key_holds(words, chosen) == every(words, chosen), (words, chosen)


def test_key_holds_a_run_of_words_not_renamed_after_it() -> None:
    wanted = (("password",), ("api", "key"))
    assert key_holds(("db", "password"), wanted)
    assert key_holds(("mysqlpassword",), wanted)  # one word that ends in the keyword
    assert key_holds(("stripe", "api", "key"), wanted)
    assert not key_holds(("password", "length"), wanted)
    assert not key_holds(("passport",), (("pass",),))
    assert not key_holds(("api", "version"), wanted)


def test_plausible_keeps_literals_and_drops_placeholders() -> None:
    assert plausible(SECRET, quoted=True, literal=False)
    assert not plausible("<your-password>", quoted=True, literal=True)
    assert not plausible("********", quoted=True, literal=True)
    assert not plausible("ab", quoted=True, literal=True)
    assert not plausible("process.env.DB_PASS", quoted=False, literal=True)


def test_checks() -> None:
    assert passes(Check.BASE64, "aGVsbG8=")
    assert not passes(Check.BASE64, "not base64!")
    assert passes(Check.BASIC_AUTH, "dXNlcjpwYXNz")  # user:pass
    assert not passes(Check.BASIC_AUTH, "aGVsbG8=")  # no colon


def test_prose_and_ui_labels_are_not_credentials() -> None:
    assert (
        generic("i18n/en.json", '"PASSWORD_HINT": "Enter the password you chose at sign up"')
        == set()
    )
    assert generic("i18n/en.json", '"LABEL_PASSWORD": "Passwort"') == set()
    assert generic("api.js", 'headers = { auth_token: "Bearer ${session.token}" }') == set()
    # JSON inside a string is not prose: its words are not plain words
    escaped = '"Apitoken": "{\\"name\\": \\"ops\\", \\"sig\\": \\"' + SECRET + '\\"}"'
    assert generic("doc.html", escaped)


def test_random_check_tells_generated_from_written() -> None:
    assert passes(Check.RANDOM, random_secret(24, seed=5))
    assert not passes(Check.RANDOM, "Access-Control-Allow-Origin")
    assert not passes(Check.RANDOM, "ComboBoxTextMarginConverter")
    assert not passes(Check.RANDOM, "short1")


def test_a_file_without_extension_reads_unquoted_values_as_text() -> None:
    assert generic("config", "IRC_PASS=uga_shun") == {"uga_shun"}


def test_flags_measures_and_negations_are_not_credentials() -> None:
    assert generic("report.json", '"p_not_secret": 0.0002,') == set()
    assert generic("app.yml", "use_password: yes") == set()
    assert generic("app.yml", "is_secret: 1234567") == set()
    assert generic("app.yml", "password: 123456") == {"123456"}
