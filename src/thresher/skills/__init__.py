"""The skills engine: discovery, parsing, validation, catalog, tools and compliance."""

from thresher.skills.catalog import ENTRY_TOKEN_BUDGET, catalog_entry, render_catalog
from thresher.skills.compliance import Compliance, compute_compliance
from thresher.skills.discovery import SkillLoader, SkillSet
from thresher.skills.model import Skill, SkillLimits, SkillOrigin
from thresher.skills.tools import SkillSession, skill_tool_schema

__all__ = [
    "ENTRY_TOKEN_BUDGET",
    "Compliance",
    "Skill",
    "SkillLimits",
    "SkillLoader",
    "SkillOrigin",
    "SkillSession",
    "SkillSet",
    "catalog_entry",
    "compute_compliance",
    "render_catalog",
    "skill_tool_schema",
]
