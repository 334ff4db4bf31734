"""What each kind of finding is and how to remediate it, for reports.

SARIF rules carry help text that GitHub code scanning shows beside every alert,
and the Markdown report falls back to the same steps when no analysis report
submitted its own. Keeping that prose in one table, keyed by the closed
``SecretType`` vocabulary, keeps the formats consistent and lets a test prove
that every type has an entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from thresher.findings import Finding, FindingKind, SecretType


@dataclass(frozen=True, slots=True)
class FindingHelp:
    """A human title, what the finding is, and ordered remediation steps."""

    title: str
    description: str
    remediation: tuple[str, ...]


_ROTATE = "Treat the value as compromised: anyone who can read the history can use it."
_HISTORY = (
    "Remove the value from the code and, if the repository is public or widely shared, "
    "from its history (e.g. git filter-repo), after rotating it."
)
_STORE = "Load the replacement from a secret store or CI secret, never from source."

SECRET_HELP: dict[SecretType, FindingHelp] = {
    SecretType.GITHUB_TOKEN: FindingHelp(
        "GitHub token",
        "A GitHub personal access, OAuth, app installation or refresh token. It acts as "
        "its owner on the GitHub API with the token's scopes.",
        (
            "Revoke the token in the owner's GitHub settings (or the app's) immediately.",
            "Review the security log and audit log for use of the token.",
            _STORE,
            _HISTORY,
        ),
    ),
    SecretType.AWS_ACCESS_KEY: FindingHelp(
        "AWS access key",
        "An AWS access key id and/or secret access key, which sign API requests as an "
        "IAM user or role.",
        (
            "Deactivate and delete the access key in IAM, then create a new one if needed.",
            "Review CloudTrail for calls made with the key.",
            _STORE,
            _HISTORY,
        ),
    ),
    SecretType.SLACK_TOKEN: FindingHelp(
        "Slack token",
        "A Slack API token or incoming-webhook URL that can read or post to a workspace.",
        (
            "Revoke the token (or regenerate the webhook) in the Slack app settings.",
            "Review the workspace's access logs.",
            _STORE,
        ),
    ),
    SecretType.STRIPE_KEY: FindingHelp(
        "Stripe API key",
        "A Stripe secret or restricted key; live keys move real money and read customer data.",
        (
            "Roll the key in the Stripe dashboard.",
            "Review the dashboard's request logs for unexpected use.",
            _STORE,
        ),
    ),
    SecretType.PRIVATE_KEY: FindingHelp(
        "Private key",
        "A private key (SSH, TLS, PGP or similar). Whoever holds it can impersonate its "
        "owner or decrypt what was encrypted to it.",
        (
            "Replace the key pair and remove the public key from every place that trusts it.",
            "Revoke any certificate issued for the key.",
            _HISTORY,
        ),
    ),
    SecretType.JWT: FindingHelp(
        "JSON Web Token",
        "A signed bearer token. Until it expires it grants whatever its claims say.",
        (
            "Revoke the session or rotate the signing key if the token has not expired.",
            "Do not commit tokens; issue them at run time.",
        ),
    ),
    SecretType.URL_CREDENTIALS: FindingHelp(
        "Credentials in a URL or auth header",
        "A user name and password embedded in a URL or a basic-auth header.",
        ("Change the password for that account.", _STORE, _HISTORY),
    ),
    SecretType.DATABASE_CONNECTION_STRING: FindingHelp(
        "Database connection string",
        "A database URI that includes a password, giving direct access to the data.",
        (
            "Change the database user's password, or drop the user.",
            "Check the database's connection logs.",
            _STORE,
        ),
    ),
    SecretType.HIGH_ENTROPY_STRING: FindingHelp(
        "High-entropy string",
        "A random-looking string that may be a key or token, or may be a hash, id or test fixture.",
        (
            "Identify what the value is used for; if it is a credential, rotate it.",
            _STORE,
        ),
    ),
    SecretType.PASSWORD: FindingHelp(
        "Hard-coded password",
        "A value assigned to a password-like name.",
        ("Change the password wherever it is used.", _STORE, _HISTORY),
    ),
    SecretType.NPM_TOKEN: FindingHelp(
        "npm access token",
        "An npm token that can install private packages or publish new versions.",
        (
            "Revoke the token on npmjs.com.",
            "Check the packages it could publish for unexpected versions.",
            _STORE,
        ),
    ),
    SecretType.PYPI_TOKEN: FindingHelp(
        "PyPI API token",
        "A PyPI token that can upload releases of one or all of its owner's projects.",
        (
            "Delete the token in the PyPI account settings.",
            "Check the projects' release history for unexpected uploads.",
            "Prefer trusted publishing from CI over long-lived tokens.",
        ),
    ),
    SecretType.OPENAI_KEY: FindingHelp(
        "OpenAI API key",
        "An OpenAI API key; its holder can spend the organisation's credit and read its data.",
        ("Revoke the key in the OpenAI dashboard.", "Review usage for the key.", _STORE),
    ),
    SecretType.GENERIC: FindingHelp(
        "Secret",
        "A value that a secret scanner flagged as a possible credential.",
        (_ROTATE, "Rotate the credential with the service that issued it.", _STORE),
    ),
}

DEPENDENCY_HELP = FindingHelp(
    "Vulnerable dependency",
    "A dependency version affected by a published vulnerability.",
    (
        "Upgrade the package to a version that fixes the vulnerability.",
        "If no fix exists, check whether the vulnerable code path is reachable and mitigate.",
    ),
)


def help_for(finding: Finding) -> FindingHelp:
    """The help entry for a finding's kind and secret type."""
    if finding.kind is FindingKind.DEPENDENCY:
        return DEPENDENCY_HELP
    return SECRET_HELP[finding.effective_secret_type or SecretType.GENERIC]


def rule_slug(rule_id: str) -> str:
    """``GitHub Token`` -> ``thresher/github-token``: stable across runs and scanners' casing."""
    slug = re.sub(r"[^a-z0-9]+", "-", rule_id.lower()).strip("-")
    return f"thresher/{slug or 'unknown'}"


def rule_name(rule_id: str) -> str:
    """``GitHub Token`` -> ``GitHubToken``: the PascalCase name SARIF viewers filter by."""
    words = re.findall(r"[A-Za-z0-9]+", rule_id)
    return "".join(word[:1].upper() + word[1:] for word in words) or "Unknown"
