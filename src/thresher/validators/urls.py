"""Credentials embedded in URLs (``scheme://user:password@host``) and HTTP Basic auth.

The value is split by hand, not with ``urlsplit``, because real passwords contain ``@``,
``/`` and ``:``. Details name the kind of service, the kind of host and why a password is
a placeholder — never the user, password or host themselves.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re

from thresher.findings import Finding, SecretType
from thresher.validators.base import CheckKind, ValidationResult, Validator
from thresher.validators.placeholder import placeholder_reason

MAX_URL_CHARS = 16 * 1024
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]{0,30})://")
_HOSTPORT = re.compile(
    r"^(?:[A-Za-z0-9_~%-]+(?:\.[A-Za-z0-9_~%-]+)*\.?|\[[0-9A-Fa-f:.%a-z]+\])(?::\d{1,5})?$"
)
_BASIC = re.compile(r"^(?:authorization:\s*)?basic\s+([A-Za-z0-9+/=_-]+)$", re.IGNORECASE)
_ENV_REFERENCE = re.compile(
    r"^(?:\$\{[^}]+\}|\$[A-Za-z_][A-Za-z0-9_]*|%\([A-Za-z_][A-Za-z0-9_]*\)s|"
    r"%[A-Za-z_][A-Za-z0-9_]*%|\{\{[^}]+\}\}|\$\([^)]+\)|<[^>]+>|\{[A-Za-z_][A-Za-z0-9_]*\})$"
)
_PLACEHOLDER_PASSWORDS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "changeme",
        "change_me",
        "changeit",
        "example",
        "mypassword",
        "yourpassword",
        "your_password",
        "your-password",
        "p@ssw0rd",
        "p4ssw0rd",
        "password123",
        "pa55word",
        "test",
        "testing",
        "foo",
        "bar",
        "foobar",
        "dummy",
        "fake",
        "xxx",
        "****",
        "user",
        "username",
        "pw",
    }
)
_SCHEME_KINDS = {
    "database": (
        "postgres",
        "postgresql",
        "mysql",
        "mariadb",
        "mongodb",
        "mongodb+srv",
        "mssql",
        "sqlserver",
        "oracle",
        "cockroachdb",
        "clickhouse",
        "jdbc",
    ),
    "cache or message broker": ("redis", "rediss", "amqp", "amqps", "memcached", "nats", "kafka"),
    "web": ("http", "https", "ws", "wss"),
    "file transfer": ("ftp", "ftps", "sftp", "ssh", "scp", "git", "rsync", "smb"),
    "mail": ("smtp", "smtps", "imap", "imaps", "pop3", "pop3s"),
    "directory": ("ldap", "ldaps"),
}
_DOCUMENTATION_DOMAINS = ("example.com", "example.org", "example.net")
_RESERVED_TLDS = ("example", "test", "invalid")
_DOCUMENTATION_NETS = tuple(
    ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
)
DOCUMENTATION_HOST = "documentation host"
LOOPBACK_HOST = "loopback host"


def host_kind(host: str) -> str | None:
    """:data:`DOCUMENTATION_HOST`, :data:`LOOPBACK_HOST` or None for an ordinary host."""
    name = host.strip("[]").rstrip(".").lower()
    labels = name.split(".")
    if name in _DOCUMENTATION_DOMAINS or ".".join(labels[-2:]) in _DOCUMENTATION_DOMAINS:
        return DOCUMENTATION_HOST
    if labels[-1] in _RESERVED_TLDS:
        return DOCUMENTATION_HOST
    if labels[-1] == "localhost":
        return LOOPBACK_HOST
    try:
        address = ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        return None
    if address.is_loopback or address.is_unspecified:
        return LOOPBACK_HOST
    if any(address in net for net in _DOCUMENTATION_NETS):
        return DOCUMENTATION_HOST
    return None


def _host_of(hostport: str) -> str:
    if hostport.startswith("["):
        return hostport[1:].split("]", 1)[0]
    return hostport.rsplit(":", 1)[0]


def _scheme_kind(scheme: str) -> str:
    scheme = scheme.lower()
    for kind, schemes in _SCHEME_KINDS.items():
        if scheme in schemes or scheme.startswith(tuple(s + "+" for s in schemes)):
            return kind
    return "other"


def split_url(value: str) -> tuple[str, str, str | None, str] | None:
    """(scheme, user, password or None, host:port list) of a URL with userinfo, else None."""
    match = _SCHEME.match(value)
    if not match:
        return None
    rest = value[match.end() :]
    ats = [i for i, c in enumerate(rest) if c == "@"]
    for at in reversed(ats):
        authority = re.split(r"[/?#]", rest[at + 1 :], maxsplit=1)[0]
        hosts = authority.split(",")
        if authority and all(_HOSTPORT.match(h) for h in hosts):
            userinfo = rest[:at]
            user, sep, password = userinfo.partition(":")
            return match.group(1), user, (password if sep else None), authority
    return None


def password_problem(user: str, password: str) -> str | None:
    """Why a password is not a real one (redaction-safe), else None."""
    if not password:
        return "the password is empty"
    if _ENV_REFERENCE.match(password):
        return "the password is a reference to an environment variable or template"
    if password.lower() in _PLACEHOLDER_PASSWORDS:
        return "the password is a common placeholder word"
    if user and password == user:
        return "the password equals the user name: a default or sample credential"
    reason = placeholder_reason(password)
    if reason:
        return f"the password is a placeholder: {reason}"
    return None


class UrlCredentialsValidator(Validator):
    name = "url-credentials"
    description = (
        "URLs with embedded credentials and HTTP Basic auth: parses user and password, "
        "flags placeholder or env-reference passwords and documentation or loopback hosts"
    )
    secret_types = frozenset({SecretType.URL_CREDENTIALS, SecretType.DATABASE_CONNECTION_STRING})

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        if len(value) > MAX_URL_CHARS:
            return [self.unknown(CheckKind.FORMAT, "too long to check (over 16 KiB)")]
        text = value.strip().strip("\"'")
        basic = _BASIC.match(text)
        if basic:
            return self._basic(basic.group(1))
        if _SCHEME.match(text):
            return self._url(text)
        problem = password_problem("", text)
        if problem:
            return [self.invalid(CheckKind.PLACEHOLDER, problem)]
        return [
            self.unknown(
                CheckKind.FORMAT,
                "a bare credential without its URL: only placeholder checks apply",
            )
        ]

    def _basic(self, encoded: str) -> list[ValidationResult]:
        try:
            decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=False)
            text = decoded.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return [self.invalid(CheckKind.FORMAT, "Basic auth value is not base64 text")]
        user, sep, password = text.partition(":")
        if not sep:
            return [self.invalid(CheckKind.FORMAT, "Basic auth value has no user:password pair")]
        problem = password_problem(user, password)
        if problem:
            return [self.invalid(CheckKind.PLACEHOLDER, f"HTTP Basic auth: {problem}")]
        return [
            self.valid(
                CheckKind.FORMAT,
                f"HTTP Basic auth credentials decode to a user and a "
                f"{len(password)}-character password",
            )
        ]

    def _url(self, text: str) -> list[ValidationResult]:
        parts = split_url(text)
        if parts is None:
            return [self.invalid(CheckKind.FORMAT, "a URL without a user:password@host part")]
        scheme, user, password, authority = parts
        service = _scheme_kind(scheme)
        if password is None:
            return [
                self.valid(
                    CheckKind.FORMAT,
                    f"{service} URL with only a user part ({len(user)} characters; it may "
                    "itself be a token)",
                )
            ]
        results: list[ValidationResult] = []
        problem = password_problem(user, password)
        if problem:
            results.append(self.invalid(CheckKind.PLACEHOLDER, problem))
        else:
            results.append(
                self.valid(
                    CheckKind.FORMAT,
                    f"{service} URL with a user and a {len(password)}-character password",
                )
            )
        kinds = {host_kind(_host_of(h)) for h in authority.split(",")}
        if DOCUMENTATION_HOST in kinds:
            results.append(
                self.invalid(
                    CheckKind.STRUCTURE,
                    "the host is reserved for documentation: the URL reaches no real service",
                )
            )
        elif LOOPBACK_HOST in kinds:
            results.append(
                self.unknown(
                    CheckKind.STRUCTURE,
                    "the host is loopback (a local development service); the password may "
                    "still be reused elsewhere",
                )
            )
        else:
            results.append(
                self.valid(CheckKind.STRUCTURE, "the host is neither loopback nor reserved")
            )
        return results
