"""The Finding value object (DESIGN §2).

A finding never holds the raw secret: only its fingerprint and redacted form.
The raw value lives in an in-memory vault keyed by finding id and is never
serialised, so a Finding can be written to any report or prompt safely. Every
field is therefore structure (``Structural``): redacting a run's values must not
rename the rule, the file or the id a finding is reported under.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, assert_never

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    computed_field,
    model_validator,
)

from thresher.findings.filekind import in_test_scope
from thresher.redaction.redactor import Structural


class FindingKind(StrEnum):
    SECRET = "secret"
    DEPENDENCY = "dependency"


class Severity(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class SecretType(StrEnum):
    """The closed vocabulary that type-specific skills declare in ``secret-type``."""

    GITHUB_TOKEN = "github-token"
    AWS_ACCESS_KEY = "aws-access-key"
    SLACK_TOKEN = "slack-token"
    STRIPE_KEY = "stripe-key"
    PRIVATE_KEY = "private-key"
    JWT = "jwt"
    URL_CREDENTIALS = "url-credentials"
    DATABASE_CONNECTION_STRING = "database-connection-string"
    HIGH_ENTROPY_STRING = "high-entropy-string"
    PASSWORD = "password"
    NPM_TOKEN = "npm-token"
    PYPI_TOKEN = "pypi-token"
    OPENAI_KEY = "openai-key"
    GENERIC = "generic"


# detect-secrets plugin names, GitHub secret-scanning ``secret_type`` values and the ids
# of thresher's built-in rules.
_RULE_TYPES: dict[str, SecretType] = {
    "github token": SecretType.GITHUB_TOKEN,
    "github_personal_access_token": SecretType.GITHUB_TOKEN,
    "github_oauth_access_token": SecretType.GITHUB_TOKEN,
    "github_app_installation_access_token": SecretType.GITHUB_TOKEN,
    "github_refresh_token": SecretType.GITHUB_TOKEN,
    "github_ssh_private_key": SecretType.PRIVATE_KEY,
    "aws access key": SecretType.AWS_ACCESS_KEY,
    "aws_access_key_id": SecretType.AWS_ACCESS_KEY,
    "aws_secret_access_key": SecretType.AWS_ACCESS_KEY,
    "slack token": SecretType.SLACK_TOKEN,
    "slack_api_token": SecretType.SLACK_TOKEN,
    "slack_incoming_webhook_url": SecretType.SLACK_TOKEN,
    "stripe access key": SecretType.STRIPE_KEY,
    "stripe_api_key": SecretType.STRIPE_KEY,
    "stripe_live_restricted_key": SecretType.STRIPE_KEY,
    "private key": SecretType.PRIVATE_KEY,
    "json web token": SecretType.JWT,
    "basic auth credentials": SecretType.URL_CREDENTIALS,
    "http_basic_authentication_header": SecretType.URL_CREDENTIALS,
    "hex high entropy string": SecretType.HIGH_ENTROPY_STRING,
    "base64 high entropy string": SecretType.HIGH_ENTROPY_STRING,
    "secret keyword": SecretType.PASSWORD,
    "npm_access_token": SecretType.NPM_TOKEN,
    "npm tokens": SecretType.NPM_TOKEN,
    "pypi_api_token": SecretType.PYPI_TOKEN,
    "pypi upload token": SecretType.PYPI_TOKEN,
    "openai_api_key": SecretType.OPENAI_KEY,
    "openai token": SecretType.OPENAI_KEY,
    "mongodb_atlas_database_uri_with_credentials": SecretType.DATABASE_CONNECTION_STRING,
    "postgres_connection_string": SecretType.DATABASE_CONNECTION_STRING,
    # thresher's built-in rules (``findings/rules/builtin.toml`` says the same, and a test
    # holds the two together): derived here, not stored on the finding, so a report's
    # findings carry no type a scanner of the report would flag.
    "generic-password": SecretType.PASSWORD,
    "generic-secret": SecretType.GENERIC,
    "generic-token": SecretType.GENERIC,
    "generic-api-key": SecretType.GENERIC,
    "generic-credential": SecretType.GENERIC,
    "generic-key-material": SecretType.HIGH_ENTROPY_STRING,
    "generic-xml-element": SecretType.PASSWORD,
    "generic-xml-value-attribute": SecretType.PASSWORD,
    "generic-xml-key-value": SecretType.PASSWORD,
    "generic-setter-call": SecretType.PASSWORD,
    "generic-cli-flag": SecretType.PASSWORD,
    "openssl-pass-argument": SecretType.PASSWORD,
    "dockerfile-env-space": SecretType.PASSWORD,
    "http-basic-authorization": SecretType.URL_CREDENTIALS,
    "http-bearer-token": SecretType.GENERIC,
    "url-credentials": SecretType.DATABASE_CONNECTION_STRING,
    "connection-string-password": SecretType.DATABASE_CONNECTION_STRING,
    "dotnet-securestring": SecretType.PASSWORD,
    "private-key-pem": SecretType.PRIVATE_KEY,
    "netrc-password": SecretType.PASSWORD,
    "pgpass-password": SecretType.PASSWORD,
    "docker-config-auth": SecretType.URL_CREDENTIALS,
    "htpasswd-entry": SecretType.PASSWORD,
    "terraform-sensitive-default": SecretType.PASSWORD,
    "github-token": SecretType.GITHUB_TOKEN,
    "github-fine-grained-pat": SecretType.GITHUB_TOKEN,
    "npm-token": SecretType.NPM_TOKEN,
    "pypi-token": SecretType.PYPI_TOKEN,
    "openai-api-key": SecretType.OPENAI_KEY,
    "aws-secret-access-key": SecretType.AWS_ACCESS_KEY,
    "slack-app-token": SecretType.SLACK_TOKEN,
    "stripe-test-key": SecretType.STRIPE_KEY,
    "url-query-credential": SecretType.GENERIC,
    "php-define-credential": SecretType.PASSWORD,
    "sql-password": SecretType.PASSWORD,
    "mysql-cli-password": SecretType.PASSWORD,
    "password-hash": SecretType.PASSWORD,
}


def secret_type_for_rule(rule_id: str) -> SecretType:
    """Map a scanner rule id to the secret type that selects type-specific skills."""
    return _RULE_TYPES.get(rule_id.strip().lower(), SecretType.GENERIC)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AlertState(StrEnum):
    """A GitHub secret-scanning alert's ``state``."""

    OPEN = "open"
    RESOLVED = "resolved"


class AlertResolution(StrEnum):
    """A resolved alert's ``resolution``, as GitHub spells it."""

    FALSE_POSITIVE = "false_positive"
    WONT_FIX = "wont_fix"
    REVOKED = "revoked"
    USED_IN_TESTS = "used_in_tests"
    PATTERN_EDITED = "pattern_edited"
    PATTERN_DELETED = "pattern_deleted"


class AlertValidity(StrEnum):
    """GitHub's own check of whether the secret still works (``validity``)."""

    ACTIVE = "active"
    INACTIVE = "inactive"
    UNKNOWN = "unknown"


class GitHubLocationType(StrEnum):
    """Where GitHub found a secret: a file in a commit, a wiki commit, or text outside
    the tree (an issue, a pull request, a discussion)."""

    COMMIT = "commit"
    WIKI_COMMIT = "wiki_commit"
    ISSUE_TITLE = "issue_title"
    ISSUE_BODY = "issue_body"
    ISSUE_COMMENT = "issue_comment"
    DISCUSSION_TITLE = "discussion_title"
    DISCUSSION_BODY = "discussion_body"
    DISCUSSION_COMMENT = "discussion_comment"
    PULL_REQUEST_TITLE = "pull_request_title"
    PULL_REQUEST_BODY = "pull_request_body"
    PULL_REQUEST_COMMENT = "pull_request_comment"
    PULL_REQUEST_REVIEW = "pull_request_review"
    PULL_REQUEST_REVIEW_COMMENT = "pull_request_review_comment"


class Location(_Frozen):
    """A line of a file: in the scanned tree, or in a commit GitHub names (``url`` is then
    the blob's address)."""

    kind: Literal["file"] = "file"
    path: Annotated[str, Structural]
    line: int = Field(ge=1)
    commit: Annotated[str | None, Structural] = None
    url: Annotated[str | None, Structural] = None


class WikiLocation(_Frozen):
    """A line of a wiki page in one of the wiki's commits: a file, but not in the tree
    under review, so it is never read from the workspace."""

    kind: Literal["wiki"] = "wiki"
    path: Annotated[str, Structural]
    line: int = Field(ge=1)
    commit: Annotated[str, Structural]
    url: Annotated[str, Structural] = Field(min_length=1)


TEXT_LOCATION_TYPES = frozenset(GitHubLocationType) - {
    GitHubLocationType.COMMIT,
    GitHubLocationType.WIKI_COMMIT,
}


class TextLocation(_Frozen):
    """Text GitHub holds outside any tree: an issue, a pull request, a discussion, or a
    comment or review on one. It has no file and no line; its address stands in for both.

    ``path`` (the URL) and ``line`` (1: the text read as one document) are also
    serialised, so code that names a finding's place generically ("path:line", a
    ``read_file`` of the first location) keeps working: no workspace of a tree holds a
    file named like a URL, so reading one fails cleanly, and a workspace that serves the
    text can serve it under its address.
    """

    kind: Literal["text"] = "text"
    type: GitHubLocationType
    url: Annotated[str, Structural] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _derived_fields(cls, data: Any) -> Any:
        """Accept a dump back: ``path`` and ``line`` are derived, checked, then dropped."""
        if not isinstance(data, dict) or not {"path", "line"} & data.keys():
            return data
        data = dict(data)
        path, line = data.pop("path", None), data.pop("line", None)
        if path is not None and path != data.get("url"):
            raise ValueError("a text location's path is its url")
        if line is not None and line != 1:
            raise ValueError("a text location's line is 1")
        return data

    @model_validator(mode="after")
    def _text_type(self) -> TextLocation:
        if self.type not in TEXT_LOCATION_TYPES:
            raise ValueError(
                f"type {self.type.value!r} is a file location, not text; use a "
                f"{'wiki' if self.type is GitHubLocationType.WIKI_COMMIT else 'file'} location"
            )
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def path(self) -> str:
        return self.url

    @computed_field  # type: ignore[prop-decorator]
    @property
    def line(self) -> int:
        return 1


def _location_kind(value: Any) -> str:
    """A location's variant; one without ``kind`` (reports before there were variants) is
    a file location."""
    if isinstance(value, dict):
        return str(value.get("kind", "file"))
    return str(getattr(value, "kind", "file"))


FindingLocation = Annotated[
    Annotated[Location, Tag("file")]
    | Annotated[WikiLocation, Tag("wiki")]
    | Annotated[TextLocation, Tag("text")],
    Discriminator(_location_kind),
]


def in_file(location: FindingLocation) -> str | None:
    """The repository path a location names, or None for a wiki page or text outside the
    tree: the path features, test scope and file reads apply to the tree's files only."""
    match location:
        case Location():
            return location.path
        case WikiLocation() | TextLocation():
            return None
        case _:
            assert_never(location)


def in_test_code(location: FindingLocation) -> bool:
    """The scope a location puts a finding in (``thresher.sources.dedupe``): only a file
    of the tree can be test code; a wiki page or an issue is not."""
    path = in_file(location)
    return path is not None and in_test_scope(path)


class DetectSecretsSource(_Frozen):
    type: Literal["detect-secrets"] = "detect-secrets"


class ThresherRulesSource(_Frozen):
    """thresher's own detection rules (``findings.rules``), run on the same read of the
    tree as detect-secrets."""

    type: Literal["thresher-rules"] = "thresher-rules"


class GitHubAlertSource(_Frozen):
    type: Literal["github-alert"] = "github-alert"
    repo: str
    number: int
    url: str
    state: AlertState
    resolution: AlertResolution | None = None
    validity: AlertValidity | None = None


class OsvSource(_Frozen):
    type: Literal["osv"] = "osv"
    package: str
    version: str
    ecosystem: str
    lockfile: str
    # What the lockfile says of the dependency, when it says it: True for a dev/test-only
    # dependency; "direct" / "transitive" (``thresher.deps.model.Relation``).
    dev: bool | None = None
    relation: str | None = None


FindingSource = Annotated[
    DetectSecretsSource | ThresherRulesSource | GitHubAlertSource | OsvSource,
    Field(discriminator="type"),
]


class Finding(_Frozen):
    """One candidate to decide; safe to serialise (no raw value)."""

    id: Annotated[str, Structural] = Field(min_length=1)
    kind: FindingKind = FindingKind.SECRET
    rule_id: Annotated[str, Structural] = Field(min_length=1)
    severity: Severity = Severity.HIGH
    locations: tuple[FindingLocation, ...] = Field(min_length=1)
    fingerprint: Annotated[str, Structural] = Field(min_length=1)
    # Already the redacted form; redacting it again would garble "(14 chars)".
    redacted: Annotated[str, Structural]
    # Where the finding came from: repository, alert number and URL, package, lockfile.
    source: Annotated[FindingSource, Structural] = Field(default_factory=DetectSecretsSource)
    secret_type: SecretType | None = None
    # Every source and rule that reported this value here, as "source:rule"
    # ("detect-secrets:Secret Keyword", "thresher-rules:generic-password"); empty for a
    # finding built by hand or read from a report written before there were two sources.
    detected_by: tuple[Annotated[str, Structural], ...] = ()

    @model_validator(mode="after")
    def _kind_matches_source(self) -> Finding:
        """A secret scanner cannot report a vulnerable dependency, nor OSV a secret: such a
        finding would be triaged by the wrong tribunal and reported under the wrong rule."""
        match self.source:
            case DetectSecretsSource() | ThresherRulesSource() | GitHubAlertSource():
                expected = FindingKind.SECRET
            case OsvSource():
                expected = FindingKind.DEPENDENCY
            case _:
                assert_never(self.source)
        if self.kind is not expected:
            raise ValueError(
                f"finding {self.id!r}: kind {self.kind.value!r} contradicts its source "
                f"{self.source.type!r}, which reports {expected.value} findings only"
            )
        return self

    @property
    def effective_secret_type(self) -> SecretType | None:
        """The explicit type, else the one derived from the rule (secrets only)."""
        if self.kind is FindingKind.DEPENDENCY:
            return None
        return self.secret_type or secret_type_for_rule(self.rule_id)
