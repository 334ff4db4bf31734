"""One positive and one negative line per built-in rule, generated at test time.

Context rules are here; provider formats in ``cases_providers``. Every value is built
from random pieces with a fixed seed, in the documented shape (with a correct checksum
where the provider defines one): never a live credential, never a literal token here.
"""

from __future__ import annotations

import base64

from tests.findings.rules.casekit import (
    ALNUM,
    LOWER_HEX,
    URLSAFE,
    Case,
    der_blob,
    npm,
    p,
    pem,
    pick,
)
from tests.findings.rules.cases_providers import provider_cases


def build() -> dict[str, Case]:
    s = pick  # short alias: the table below reads as values
    pw = p("Tr0ub4", s(ALNUM, 6, 1), "!")
    basic = base64.b64encode(f"deploy:{s(ALNUM, 14, 2)}".encode()).decode()
    cases: dict[str, Case] = {}

    def add(rule: str, path: str, line: str, value: str, negative: str) -> None:
        cases[rule] = Case(path, line, value, negative)

    # generic context
    add(
        "generic-password",
        "settings.py",
        f'DB_PASSWORD = "{pw}"',
        pw,
        'DB_PASSWORD = "${DB_PASSWORD}"',
    )
    add(
        "generic-secret",
        "app.yml",
        f"client_secret: {s(ALNUM, 20, 3)}  # rotated",
        s(ALNUM, 20, 3),
        "client_secret: ~ # none",
    )
    add(
        "generic-token",
        "config.json",
        f'"access_token": "{s(ALNUM, 32, 4)}"',
        s(ALNUM, 32, 4),
        '"token_url": "https://example.org/oauth"',
    )
    add(
        "generic-api-key",
        ".env",
        f"STRIPE_API_KEY={s(ALNUM, 24, 5)}",
        s(ALNUM, 24, 5),
        "API_KEY_HEADER=X-Api-Key",
    )
    add(
        "generic-credential",
        "settings.ini",
        f"credentials = {s(ALNUM, 24, 6)}",
        s(ALNUM, 24, 6),
        "credentials = none",
    )
    add(
        "generic-key-material",
        "keys.yml",
        f"signing_key_hex: {s(LOWER_HEX + 'XYZ', 32, 7)}",
        s(LOWER_HEX + "XYZ", 32, 7),
        "primary_key: id",
    )
    add(
        "generic-xml-element",
        "web.xml",
        f"<password>{pw}</password>",
        pw,
        "<password>${db.password}</password>",
    )
    add(
        "generic-xml-value-attribute",
        "app.config",
        f'<Password value="{pw}" />',
        pw,
        '<Password value="" />',
    )
    add(
        "generic-xml-key-value",
        "Web.config",
        f'<add key="SmtpPassword" value="{pw}" />',
        pw,
        f'<add key="SmtpHost" value="{pw}" />',
    )
    add(
        "generic-setter-call",
        "Main.java",
        f'ds.setPassword("{pw}");',
        pw,
        'ds.setPassword(System.getenv("DB_PASS"));',
    )
    add(
        "generic-cli-flag",
        "deploy.sh",
        f"login --username ci --password '{pw}' --yes",
        pw,
        'login --password "$PASS"',
    )
    add(
        "openssl-pass-argument",
        "make-cert.sh",
        f"openssl pkcs12 -export -out c.p12 -passout pass:{pw}",
        pw,
        "openssl pkcs12 -export -passout env:P12_PASS",
    )
    add(
        "dockerfile-env-space", "Dockerfile", f"ENV ADMIN_PASSWORD {pw}", pw, "ENV ADMIN_USER admin"
    )
    add(
        "http-basic-authorization",
        "cassette.yml",
        f"- Basic {basic}",
        basic,
        f"- Basic {base64.b64encode(b'no-colon-here').decode()}",
    )
    add(
        "http-bearer-token",
        "api.md",
        f"Authorization: Bearer {s(URLSAFE, 40, 8)}",
        s(URLSAFE, 40, 8),
        "Authorization: Bearer aaaaaaaaaaaaaaaaaaaa",
    )
    # URLs and connection strings
    add(
        "url-credentials",
        "db.yml",
        f"url: postgres://app:{pw}@db.internal:5432/app",
        pw,
        "url: postgres://app:${DB_PASS}@db.internal/app",
    )
    add(
        "connection-string-password",
        "App.cs",
        f'var c = "Server=db;User Id=sa;Password={pw};Encrypt=true";',
        pw,
        'var c = "Server=db;User Id=sa;Password=;"',
    )
    add(
        "dotnet-securestring",
        "setup.ps1",
        f"$p = ConvertTo-SecureString '{pw}' -AsPlainText -Force",
        pw,
        "$p = ConvertTo-SecureString $env:PW -AsPlainText -Force",
    )
    # private keys
    block = pem("ENCRYPTED ", 9)
    add("private-key-pem", "key.pem", block, block, "-----BEGIN PUBLIC KEY-----")
    putty = "PuTTY-User-Key-File-3: ssh-ed25519"
    add("private-key-putty", "id.ppk", putty, putty, "PuTTY-User-Key-File-3 is the header of a key")
    b64pem = base64.b64encode(pem("RSA ", 10).encode()).decode()
    add(
        "private-key-base64-pem",
        "values.yaml",
        f"tlsKey: {b64pem}",
        b64pem,
        f"tlsCert: {base64.b64encode(b'-----BEGIN CERTIFICATE-----').decode()}",
    )
    d = s(URLSAFE, 43, 11)
    add(
        "jwk-private-exponent",
        "jwk.json",
        f'"kty": "EC", "d": "{d}", "crv": "P-256"',
        d,
        '"kty": "EC", "d": "short", "crv": "P-256"',
    )
    ckd = base64.b64encode(s(ALNUM, 48, 12).encode()).decode()
    add(
        "kubeconfig-client-key-data",
        "kubeconfig",
        f"    client-key-data: {ckd}",
        ckd,
        "    client-key-data: !!not base64!!",
    )
    p12 = der_blob(1200, seed=14)
    add("pkcs12-base64", "application.yml", f"  keystore: {p12}", p12, f"  certificate: {p12}")
    # auth files
    token = npm(13)
    add(
        "npmrc-auth",
        ".npmrc",
        f"//registry.npmjs.org/:_authToken={token}",
        token,
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    )
    add(
        "netrc-password",
        ".netrc",
        f"machine api.example.org login ci password {pw}",
        pw,
        "# password is kept elsewhere",
    )
    add(
        "pgpass-password",
        ".pgpass",
        f"db.internal:5432:app:app:{pw}",
        pw,
        "# hostname:port:database:username:password",
    )
    docker_auth = base64.b64encode(f"ci:{s(ALNUM, 16, 14)}".encode()).decode()
    add("docker-config-auth", "config.json", f'"auth": "{docker_auth}"', docker_auth, '"auth": ""')
    crypt = p("$6$", s(ALNUM, 8, 15), "$", s(ALNUM + "./", 86, 16))
    add(
        "htpasswd-entry",
        ".htpasswd",
        f"admin:{crypt}",
        crypt,
        "admin:x:1000:1000::/home/admin:/bin/sh",
    )
    add(
        "terraform-sensitive-default",
        "variables.tf",
        f'variable "db_password" {{ default = "{pw}" }}',
        pw,
        'variable "db_name" { default = "app" }',
    )
    cases.update(provider_cases(pw=pw, npm_token=token))
    return cases


CASES = build()
