"""What each provider's prompt cache would report for a request, for fakes that answer
with realistic usage.

A request's tokens are its prompt's UTF-8 bytes over four. The prompt is cut into blocks
in the order the provider caches them (tools, system, then each message or content
block); a prefix of blocks is cached when an earlier request to the same server stored
the same bytes:

- **OpenAI** (automatic): the longest prefix seen before, once it is at least 1,024
  tokens, in steps of 128; ``prompt_tokens`` includes the cached tokens.
- **Gemini** (implicit): the longest prefix seen before, at least 1,024 tokens;
  ``promptTokenCount`` includes ``cachedContentTokenCount``.
- **Anthropic**: only what ``cache_control`` breakpoints ask for. A breakpoint stores the
  prefix up to and including its block; a later request reads the longest stored prefix
  that ends at one of its breakpoints or up to 20 blocks before one. ``input_tokens``
  excludes what was read (``cache_read_input_tokens``) and written
  (``cache_creation_input_tokens``), as the API reports it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

MIN_CACHED = 1024  # tokens: shorter prefixes are never cached
OPENAI_STEP = 128  # OpenAI caches in increments of 128 tokens
LOOKBACK = 20  # blocks Anthropic looks back from a breakpoint for an earlier write


def tokens(size: int) -> int:
    return -(-size // 4)


def _dump(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


@dataclass(frozen=True)
class CacheUsage:
    """Input tokens of one request: all of them, and the cached and cache-written parts."""

    input_tokens: int
    cached: int = 0
    written: int = 0


class PromptCache:
    """Prefixes one server has stored, by the hash of their bytes."""

    def __init__(self) -> None:
        self._seen: set[bytes] = set()
        self._lock = threading.Lock()
        self.served: list[CacheUsage] = []  # what each request was told, in order

    @staticmethod
    def _prefixes(blocks: list[bytes]) -> list[tuple[bytes, int]]:
        """``(hash, size)`` of every prefix that ends after a block."""
        digest, size, out = hashlib.sha256(), 0, []
        for block in blocks:
            digest.update(block)
            size += len(block)
            out.append((digest.copy().digest(), size))
        return out

    def automatic(self, blocks: list[bytes], step: int = 1) -> CacheUsage:
        """OpenAI and Gemini: every prefix is stored; the longest seen one is read."""
        prefixes = self._prefixes(blocks)
        total = tokens(prefixes[-1][1]) if prefixes else 0
        with self._lock:
            hit = max((size for key, size in prefixes if key in self._seen), default=0)
            self._seen.update(key for key, _ in prefixes)
        cached = tokens(hit) if tokens(hit) >= MIN_CACHED else 0
        return self._serve(CacheUsage(total, cached - cached % step))

    def breakpoints(self, blocks: list[bytes], marks: list[int]) -> CacheUsage:
        """Anthropic: read and write only at ``marks`` (indexes of blocks with a breakpoint)."""
        prefixes = self._prefixes(blocks)
        total = tokens(prefixes[-1][1]) if prefixes else 0
        if not marks:
            return self._serve(CacheUsage(total))
        candidates = {i for mark in marks for i in range(max(0, mark - LOOKBACK), mark + 1)}
        with self._lock:
            hit = max(
                (prefixes[i][1] for i in candidates if prefixes[i][0] in self._seen), default=0
            )
            stored = [prefixes[m] for m in marks if tokens(prefixes[m][1]) >= MIN_CACHED]
            self._seen.update(key for key, _ in stored)
        read = tokens(hit)
        last = max((size for _, size in stored), default=0)
        written = max(0, tokens(last) - read)
        return self._serve(CacheUsage(total, read, written))

    def _serve(self, usage: CacheUsage) -> CacheUsage:
        with self._lock:
            self.served.append(usage)
        return usage


def openai_blocks(body: dict[str, Any]) -> list[bytes]:
    return [_dump(body.get("tools") or [])] + [_dump(m) for m in body.get("messages") or []]


def gemini_blocks(body: dict[str, Any]) -> list[bytes]:
    head = [_dump(body.get("systemInstruction")), _dump(body.get("tools") or [])]
    return head + [_dump(c) for c in body.get("contents") or []]


def anthropic_blocks(body: dict[str, Any]) -> tuple[list[bytes], list[int]]:
    """Every cacheable block in cache order, and the indexes that carry ``cache_control``."""
    items: list[tuple[str, Any]] = [("tool", t) for t in body.get("tools") or []]
    system = body.get("system")
    blocks = system if isinstance(system, list) else ([system] if system else [])
    items += [("system", block) for block in blocks]
    for message in body.get("messages") or []:
        content = message.get("content")
        for block in content if isinstance(content, list) else [content]:
            items.append((str(message.get("role")), block))
    marks = [i for i, (_, item) in enumerate(items) if _marked(item)]
    # The marker itself is not content: a block keeps its cache key when it loses it.
    return [_dump([role, _unmarked(item)]) for role, item in items], marks


def _marked(item: Any) -> bool:
    return isinstance(item, dict) and "cache_control" in item


def _unmarked(item: Any) -> Any:
    if not _marked(item):
        return item
    return {k: v for k, v in item.items() if k != "cache_control"}
