"""One hit of a plugin or a custom rule, and the value behind it.

detect-secrets sometimes reports less than the secret — a private key's header
instead of its PEM block, a GitHub token's "ghp" prefix instead of the token — which
would merge every such secret into one finding; the helpers here recover the value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from detect_secrets.core.potential_secret import PotentialSecret

PRIVATE_KEY_TYPE = "Private Key"
_PREFIX_GROUP_TYPES = {"GitHub Token", "GitLab Token"}
_ARTIFACTORY_TYPE = "Artifactory Credentials"
_ARTIFACTORY_EDGES = re.compile(r'^(?:\s|=|:|")|(?:\s|")$')
_PEM = re.compile(
    r"-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----.{1,16384}?-----END \1-----",
    re.DOTALL,
)
_PEM_MAX_LINES = 120


class Origin(StrEnum):
    """Which detector reported a hit: a detect-secrets plugin, an operator's custom
    rule, or one of thresher's built-in rules (``findings.rules``)."""

    DETECT_SECRETS = "detect-secrets"
    CUSTOM = "custom"
    RULES = "thresher-rules"


@dataclass(frozen=True, slots=True)
class Detection:
    """One hit: ``ds_value`` is what detect-secrets reports (and hashes in a
    baseline); ``value`` is the secret itself. They differ where detect-secrets
    reports less than the secret — a private key's header instead of its PEM
    block, a GitHub token's "ghp" prefix instead of the token — which would
    otherwise merge every such secret into one finding."""

    path: str
    line: int
    type: str
    value: str
    ds_value: str
    origin: Origin = Origin.DETECT_SECRETS

    @property
    def custom(self) -> bool:
        return self.origin is Origin.CUSTOM


def detections(
    path: str, secret: PotentialSecret, plugin: Any, line: str, lines: Sequence[str], index: int
) -> list[Detection]:
    ds_value = secret.secret_value or ""
    if secret.type == PRIVATE_KEY_TYPE:
        values = [key_block(lines, index) or ds_value]
    elif secret.type in _PREFIX_GROUP_TYPES:
        values = _whole_matches(plugin, line, ds_value)
    elif secret.type == _ARTIFACTORY_TYPE:
        values = [_ARTIFACTORY_EDGES.sub("", ds_value)]  # its regex keeps the delimiters
    else:
        values = [ds_value]
    return [Detection(path, secret.line_number, secret.type, v, ds_value) for v in values]


def _whole_matches(plugin: Any, line: str, ds_value: str) -> list[str]:
    """The tokens behind a value that is only a capture group of the match.

    detect-secrets reports what ``findall`` returns, and for these plugins that
    is a group holding the token's prefix (every GitHub token is "ghp"), so
    each of their matches on the line that yielded this value is taken whole.
    """
    found: list[str] = []
    for regex in plugin.denylist:
        for match in regex.finditer(line):
            yielded = [g or "" for g in match.groups()] if regex.groups else [match.group(0)]
            if ds_value in yielded and match.group(0) not in found:
                found.append(match.group(0))
    return found or [ds_value]


def key_block(lines: Sequence[str], index: int) -> str | None:
    """The PEM block that starts on this line, when it is all there."""
    window = [line.rstrip("\n") for line in lines[index : index + _PEM_MAX_LINES]]
    match = _PEM.search("\n".join(window))
    if match is None or match.start() >= len(window[0]):
        return None
    return match.group(0)


def aligned(ruled: Sequence[Detection], found: Sequence[Detection]) -> list[Detection]:
    """The rules' detections, each taking the value of a detect-secrets detection on its
    line that holds it or that it holds (``hunter2`` in ``hunter2  # old``): one
    credential seen by both sources is one finding, under detect-secrets' rule."""
    by_line: dict[int, list[str]] = {}
    for detection in found:
        by_line.setdefault(detection.line, []).append(detection.value)
    out: list[Detection] = []
    for detection in ruled:
        value = detection.value
        same = next(
            (v for v in by_line.get(detection.line, ()) if v and (value in v or v in value)),
            None,
        )
        if same is not None and same != value:
            detection = replace(detection, value=same, ds_value=same)
        out.append(detection)
    return out
