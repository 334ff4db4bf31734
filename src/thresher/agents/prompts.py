"""Prompt templates rendered with jinja2 and ``StrictUndefined``.

A template that names a variable the code does not pass fails loudly instead of
sending a prompt with a hole in it. Repository text is untrusted, so templates
place it with the ``fence`` filter: a code fence longer than any backtick run
inside, so the data cannot close the fence and speak as instructions.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from pathlib import Path
from typing import Any

import jinja2

from thresher.config.settings import Settings
from thresher.errors import TemplateError
from thresher.resources import AssetKind, asset_dir


class Template(StrEnum):
    ANALYSIS = "analysis.md.j2"
    CHALLENGE = "challenge.md.j2"
    JUDGE = "judge.md.j2"
    ANALYSIS_DEPENDENCY = "analysis-dependency.md.j2"
    CHALLENGE_DEPENDENCY = "challenge-dependency.md.j2"
    JUDGE_DEPENDENCY = "judge-dependency.md.j2"
    CONTINUATION = "continuation.md.j2"
    REPORT = "report.md.j2"
    SUMMARY = "summary.md.j2"


def fence(text: Any, language: str = "") -> str:
    """Wrap untrusted text in a fence it cannot close."""
    body = text if isinstance(text, str) else to_json(text)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    marker = "`" * max(3, longest + 1)
    return f"{marker}{language}\n{body.rstrip()}\n{marker}"


def to_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def md_escape(text: Any) -> str:
    """Escape markdown control characters for text rendered into a report."""
    return re.sub(r"([\\`*_{}\[\]<>()#+!|])", r"\\\1", str(text))


class PromptRenderer:
    """Renders the prompt templates from the bundled or configured directory."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or asset_dir(AssetKind.PROMPTS)
        if not self.directory.is_dir():
            raise TemplateError(
                f"prompts directory not found: {self.directory}",
                hint="check prompts_dir in your config",
            )
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(self.directory)),
            undefined=jinja2.StrictUndefined,
            autoescape=False,  # noqa: S701 - these are prompts and markdown, not HTML
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self._env.filters["fence"] = fence
        self._env.filters["to_json"] = to_json
        self._env.filters["md_escape"] = md_escape

    @classmethod
    def from_settings(cls, settings: Settings) -> PromptRenderer:
        return cls(settings.prompts_dir)

    def render(self, template: Template, **context: Any) -> str:
        path = self.directory / template.value
        try:
            return self._env.get_template(template.value).render(**context)
        except jinja2.TemplateNotFound:
            raise TemplateError(f"prompt template not found: {path}") from None
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(
                f"{path}:{exc.lineno}: template syntax error: {exc.message}"
            ) from None
        except jinja2.UndefinedError as exc:
            raise TemplateError(
                f"{path}: {exc.message}",
                hint="the template uses a variable thresher does not provide",
            ) from None
