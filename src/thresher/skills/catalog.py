"""The skill catalog that goes into an agent's prompt: short entries, not bodies.

Skill text can come from a user's mount, so every field is escaped before it is
placed between tags, and each entry is held to a token budget (characters / 4)
so a long description cannot crowd out the task.
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape, quoteattr

from thresher.findings import FindingKind
from thresher.skills.model import Skill

ENTRY_TOKEN_BUDGET = 120
_CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return (len(text) + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


def catalog_entry(skill: Skill) -> str:
    """One line per skill, its description shortened to keep the entry in budget."""
    attributes = f"name={quoteattr(skill.name)}"
    if skill.phase:
        attributes += f" phase={quoteattr(skill.phase)}"
    attributes += f" required={quoteattr('true' if skill.required else 'false')}"
    if skill.kinds != (FindingKind.SECRET,):
        attributes += f" kind={quoteattr(skill.kind_label)}"
    if skill.secret_type_label:
        attributes += f" secret-type={quoteattr(skill.secret_type_label)}"
    head, tail = f"<skill {attributes}>", "</skill>"
    room = ENTRY_TOKEN_BUDGET * _CHARS_PER_TOKEN - len(head) - len(tail)
    description = " ".join(skill.description.split())
    text = escape(description)
    if len(text) > room:
        # Cut the plain text, then escape, so no entity is split in half.
        cut = description
        while cut and len(escape(cut.rstrip())) + 1 > room:
            # An escaped character is at most 5 long (&amp;): never cut more than needed.
            excess = len(escape(cut.rstrip())) + 1 - room
            cut = cut[: -max(1, excess // 5)]
        text = escape(cut.rstrip()) + "…"
    return head + text + tail


def render_catalog(skills: Iterable[Skill]) -> str:
    """The ``<available_skills>`` block for the enabled skills, in a stable order."""
    entries = [
        catalog_entry(skill)
        for skill in sorted(skills, key=lambda s: (s.phase or "", s.name))
        if skill.enabled
    ]
    return "<available_skills>\n" + "\n".join(entries) + "\n</available_skills>"
