"""Detection recall on a labelled corpus: which labelled lines does any candidate flag?

Run from the project root: ``python benchmarks/detection_recall.py [--corpus DIR]
[--json OUT]`` (default corpus ``../shared/corpus/dev``).

The scorer is not involved: this measures only what the scan *sees*. The corpus's
``files/`` tree is scanned once as one root (paths then equal the labels' paths), and a
labelled line counts as flagged when any candidate (detect-secrets' per-file,
per-type first lines, as ``thresher eval`` joins them) sits on it. Printed: recall of
``real`` and ``test`` lines overall, by label source (creddata, leaky-repo, sedated),
by shape (categories grouped: password assignments, URLs, private keys, provider
formats, ...) and by category (as the labels' annotators gave it); how many candidates
each finding source produced; and how many candidate lines carry no label at all.
``--no-rules`` scans with detect-secrets alone: the "before" of thresher's own rules;
``--no-screen`` keeps what the screen (``findings.screen``) drops as no candidates, whose
counts by reason are printed otherwise.

``thresher eval`` scans each repository as its own root and counts the lines whose
finding got a decision: its "detection recall" can differ from this one by a few lines.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "dev"
LABELS = ("real", "test")
# A label's category -> the shape the issue tracks recall by (first match wins).
SHAPES = (
    ("private key", ("private key", "pem", "jwk")),
    ("url / connection string", ("url", "connstr", "jdbc", "s3 bucket")),
    ("http auth header", ("basic authorization", "bearer", "authz", "ntlm")),
    ("jwt", ("json web token",)),
    (
        "provider format",
        (
            "anthropic", "perplexity", "google", "mailgun", "slack", "aws", "azure",
            "dropbox", "tencent", "nkey", "postman", "akamai", "twilio", "stripe",
            "salesforce", "github", "firebase",
        ),
    ),
    ("command line / call / xml", ("cmd", "(call)", "xml", "sql password")),
    ("password assignment", ("password", "(assign)")),
)  # fmt: skip


def shape(category: str) -> str:
    lower = category.lower()
    for name, words in SHAPES:
        if any(word in lower for word in words):
            return name
    return "other key / secret / token"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--misses", type=int, default=0, help="print N missed real lines")
    parser.add_argument("--no-rules", action="store_true", help="detect-secrets alone")
    parser.add_argument("--no-screen", action="store_true", help="keep the non-candidates")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    from thresher.sources.scan import ScanOptions, scan

    labels = [json.loads(line) for line in (args.corpus / "labels.jsonl").open()]
    started = time.perf_counter()
    options = ScanOptions(
        root=args.corpus / "files", builtin_rules=not args.no_rules, screen=not args.no_screen
    )
    result = scan(options)
    seconds = time.perf_counter() - started
    flagged: dict[tuple[str, int], set[tuple[str, str]]] = defaultdict(set)
    for candidate in result.candidates:
        flagged[(candidate.path, candidate.line)].add((candidate.origin.value, candidate.type))
    by_source: dict[str, Counter[str]] = defaultdict(Counter)
    figures: dict[str, dict[str, dict[str, list[int]]]] = {}
    seen_lines: set[tuple[str, int, str]] = set()
    misses: list[dict[str, object]] = []
    for label in labels:
        if label["label"] not in LABELS:
            continue
        key = (label["path"], label["line"], label["label"])
        if key in seen_lines:  # several spans on one line: the line counts once
            continue
        seen_lines.add(key)
        hit = (label["path"], label["line"]) in flagged
        for group, name in (
            ("all", "all"),
            ("source", label["source"]),
            ("shape", shape(label["category"])),
            ("category", label["category"]),
        ):
            cell = figures.setdefault(label["label"], {}).setdefault(f"{group}:{name}", [0, 0])
            cell[0] += hit
            cell[1] += 1
        if not hit and label["label"] == "real":
            misses.append(label)
    for types in flagged.values():
        for origin, kind in types:
            by_source[origin][kind] += 1
    labelled = {(label["path"], label["line"]) for label in labels}
    unlabelled = sum(1 for key in flagged if key not in labelled)
    print(f"scanned {args.corpus / 'files'} in {seconds:.1f} s")
    dropped = result.stats.dropped_by_reason
    if dropped:
        reasons = ", ".join(f"{n} {reason.label}" for reason, n in dropped.items())
        print(f"screen dropped {sum(dropped.values())} detections: {reasons}")
    print(f"candidate lines: {len(flagged)}, of which unlabelled: {unlabelled}")
    for source, kinds in sorted(by_source.items()):
        print(f"  {source}: {sum(kinds.values())} (line, rule) pairs, {len(kinds)} rule ids")
    only = Counter(
        next(iter({origin for origin, _ in types}))
        for key, types in flagged.items()
        if len({origin for origin, _ in types}) == 1
    )
    for source, count in sorted(only.items()):
        print(f"  lines only {source} flags: {count}")
    for name in LABELS:
        print(f"\n{name} lines flagged (recall):")
        rows = figures.get(name, {})
        order = {"all": 0, "source": 1, "shape": 2, "category": 3}
        for key in sorted(rows, key=lambda k: (order[k.split(":")[0]], k)):
            hits, total = rows[key]
            print(f"  {key:<40} {hits:>5} / {total:<5} {hits / total:.3f}")
    for label in misses[: args.misses]:
        print(f"missed: {label['path']}:{label['line']} {label['category']} {label['source']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
