"""Kubernetes Secret manifests: ``data:`` decoded, ``stringData:`` as written.

Every value is generated at test time (a seeded random password, base64-encoded here);
none is a live credential."""

from __future__ import annotations

import base64
import json
import random
import time

import pytest
import yaml

from tests.findings.rules.casekit import ALNUM, pick
from thresher.findings.rules.book import builtin_rules
from thresher.findings.rules.manifests import MAX_DOCUMENT_CHARS, secret_entries
from thresher.findings.rules.matcher import Rulebook, RuleHit

RULES = {rule.id: rule for rule in builtin_rules()}
DATA, STRING_DATA = "kubernetes-secret-data", "kubernetes-secret-stringdata"


def b64(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return base64.b64encode(raw).decode()


def password(seed: int) -> str:
    return pick(ALNUM, 18, seed) + "-!"


def found(text: str, path: str = "secret.yaml", rules: tuple[str, ...] = ()) -> list[RuleHit]:
    chosen = [RULES[r] for r in rules] if rules else list(builtin_rules())
    lines = text.split("\n")
    return Rulebook(chosen).scan(path, lines, range(len(lines)))


def ours(text: str, path: str = "secret.yaml") -> list[tuple[int, str, str]]:
    """(1-based line, rule id, value) of the Kubernetes rules' hits."""
    return [
        (hit.index + 1, hit.rule_id, hit.value) for hit in found(text, path, (DATA, STRING_DATA))
    ]


def secret(data: dict[str, str], string_data: dict[str, str] | None = None) -> str:
    lines = ["apiVersion: v1", "kind: Secret", "metadata:", "  name: app", "type: Opaque"]
    lines += ["data:"] + [f"  {key}: {value}" for key, value in data.items()]
    if string_data:
        lines += ["stringData:"] + [f"  {key}: {value}" for key, value in string_data.items()]
    return "\n".join(lines) + "\n"


def test_rules_are_listed_with_their_descriptions() -> None:
    for rule_id in (DATA, STRING_DATA):
        rule = RULES[rule_id]
        assert rule.provider == "kubernetes"
        assert "Secret" in rule.description and len(rule.description) > 60


def test_data_entries_are_decoded_at_their_own_lines() -> None:
    first, second = password(1), password(2)
    text = secret({"username": b64("deploy-user"), "password": b64(first + "\n"), "k": b64(second)})
    assert ours(text) == [
        (7, DATA, "deploy-user"),
        (8, DATA, first),  # ``echo pw | base64`` keeps a newline: the secret is without
        (9, DATA, second),
    ]


def test_a_line_rule_still_reports_the_base64_form_for_the_redactor() -> None:
    """The encoded form stays a candidate where a line rule sees it, so the run's
    redactor hides it too from any text a model reads (the file itself)."""
    value = password(3)
    encoded = b64(value)
    hits = found(secret({"db-password": encoded}))
    assert {(hit.rule_id, hit.value) for hit in hits} == {
        (DATA, value),
        ("generic-password", encoded),
    }
    assert {hit.index for hit in hits} == {6}


def test_string_data_is_read_as_written() -> None:
    value = password(4)
    text = secret({}, {"api-token": f'"{value}"', "note": "|\n    multi\n    line"})
    assert ours(text) == [(8, STRING_DATA, value), (9, STRING_DATA, "multi\nline")]


def test_other_kinds_are_not_read() -> None:
    value = b64(password(5))
    for kind in ("ConfigMap", "SecretProviderClass", "Secrets", "ExternalSecret"):
        text = secret({"password": value}).replace("kind: Secret", f"kind: {kind}")
        assert ours(text) == [], kind


def test_references_templates_empty_and_binary_are_skipped() -> None:
    blob = bytes(random.Random(6).randrange(256) for _ in range(600))
    text = secret(
        {
            "a": b64("${DB_PASSWORD}"),
            "b": b64("{{ .Values.db.password }}"),
            "c": b64(""),
            "d": '""',
            "e": b64("   \n"),
            "f": b64(b"\x30\x82\x02\x54" + blob),  # a keystore: binary, out of scope
            "g": "not base64 at all!",
            "h": b64(password(7))[:-1],  # no longer strict base64
            "i": b64("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"),
            "j": "{{ .Values.password | b64enc }}",
        },
        {"k": "{{ .Values.token }}", "l": "${TOKEN}", "m": '""', "n": "<password>"},
    )
    assert ours(text) == []


def test_multi_document_files_read_each_secret_at_its_line() -> None:
    one, two, three = password(8), password(9), password(10)
    config = "apiVersion: v1\nkind: ConfigMap\ndata:\n  password: " + b64(one) + "\n"
    text = (
        "---\n" + config + "---\n" + secret({"pw": b64(two)}) + "---\n" + secret({}, {"t": three})
    )
    # ConfigMap: lines 2-5; first Secret: 7-13 (its entry on 13); second: 15-22.
    assert ours(text) == [(13, DATA, two), (22, STRING_DATA, three)]


def test_a_helm_template_secret_is_read_around_its_directives() -> None:
    value = password(11)
    text = (
        "{{- if .Values.enabled }}\napiVersion: v1\nkind: Secret\nmetadata:\n"
        '  name: {{ include "app.fullname" . }}\ndata:\n'
        "  user: {{ .Values.user | b64enc | quote }}\n"
        "{{- if .Values.extra }}\n"
        f"  password: {b64(value)}\n"
        "{{- end }}\n{{- end }}\n"
    )
    assert ours(text, "templates/secret.yaml") == [(9, DATA, value)]


def test_a_json_manifest_and_a_list_of_secrets() -> None:
    one, two = password(12), password(13)
    manifest = {"apiVersion": "v1", "kind": "Secret", "data": {"pw": b64(one)}}
    text = json.dumps(manifest, indent=2)
    assert ours(text, "secret.json") == [(5, DATA, one)]
    listed = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [{"kind": "Secret", "data": {"x": b64(two)}}],
    }
    assert [value for _, _, value in ours(json.dumps(listed), "list.json")] == [two]


def test_hostile_manifests_are_no_finding_and_no_failure() -> None:
    big = secret({"pw": b64(password(14))}) + "# " + "x" * MAX_DOCUMENT_CHARS + "\n"
    assert ours(big) == []  # over the document cap: not parsed
    assert ours("kind: Secret\ndata: [unclosed\n  pw: {\n") == []


def test_entries_outside_the_scanned_range_are_not_read() -> None:
    text = secret({"pw": b64(password(15))})
    lines = text.split("\n")
    assert secret_entries(lines, range(0, 3)) == []
    assert [e.index for e in secret_entries(lines, range(len(lines)))] == [6]


def test_deep_flow_nesting_is_not_handed_to_the_yaml_reader() -> None:
    """PyYAML's scanner is quadratic in the depth of [ nesting: such a document is
    skipped before it is read (5,000 levels took seconds)."""
    text = "kind: Secret\ndata:\n  pw: " + b64(password(16)) + "\n  x: " + "[" * 5000 + "\n"
    lines = text.split("\n")
    started = time.perf_counter()
    assert secret_entries(lines, range(len(lines))) == []
    assert time.perf_counter() - started < 0.5


def test_many_secret_documents_are_read_within_the_file_budget() -> None:
    value = password(17)
    doc = "---\n" + secret({"pw": b64(value)})
    text = doc * 1000
    lines = text.split("\n")
    entries = secret_entries(lines, range(len(lines)))
    assert 0 < len(entries) <= 256
    assert {entry.value for entry in entries} == {value}


def test_a_node_dense_document_is_not_read_slowly() -> None:
    """Under the size cap, 0.5 MB of ``- a`` lines or ``[],`` items is some 150,000 YAML
    nodes: PyYAML's pure-Python composer took 6-12 s on one such document."""
    value = password(18)
    head = secret({"pw": b64(value)})
    for filler in ("x:\n" + "- a\n" * 120_000, "x: [" + "[]," * 160_000 + "]\n"):
        lines = (head + filler).split("\n")
        started = time.perf_counter()
        secret_entries(lines, range(len(lines)))
        assert time.perf_counter() - started < 1.0


def test_many_nested_flow_lines_under_the_depth_cap_are_not_read_slowly() -> None:
    """Each line under ``_MAX_FLOW_DEPTH``, but 0.5 MB of them: 15 s before."""
    text = secret({"pw": b64(password(19))}) + ("x: " + "[" * 60 + "]" * 60 + "\n") * 3900
    lines = text.split("\n")
    started = time.perf_counter()
    secret_entries(lines, range(len(lines)))
    assert time.perf_counter() - started < 1.0


def test_a_file_of_empty_documents_is_split_quickly() -> None:
    """800,000 ``---`` lines after one ``kind: Secret``: each one-line document had its
    line handed to RE2 (some 5 us a call): 4 s for 3 MB."""
    text = secret({"pw": b64(password(20))}) + "---\n" * 800_000
    lines = text.split("\n")
    started = time.perf_counter()
    entries = secret_entries(lines, range(len(lines)))
    assert time.perf_counter() - started < 1.5
    assert [entry.value for entry in entries] == [password(20)]


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_a_tab_after_the_colon_is_read_as_kubernetes_reads_it() -> None:
    """``pw:<TAB>value`` is valid YAML (libyaml and Go's yaml read it); PyYAML's
    pure-Python scanner rejected the whole document."""
    value = password(21)
    text = f"apiVersion: v1\nkind: Secret\ndata:\n  pw:\t{b64(value)}\n"
    assert ours(text) == [(4, DATA, value)]


def test_an_entry_repr_does_not_show_its_value() -> None:
    value = password(22)
    lines = secret({"pw": b64(value)}).split("\n")
    (entry,) = secret_entries(lines, range(len(lines)))
    assert entry.value == value
    assert value not in repr(entry) and value not in str(entry)


def test_deep_block_nesting_on_one_line_is_no_finding_and_no_failure() -> None:
    """``- - - ... a``: 200,000 levels of block sequence in 0.4 MB, past any recursion
    limit; the reader stops (libyaml at 1,000 levels) and the rest is still read."""
    value = password(23)
    text = "kind: Secret\nx:\n" + "- " * 200_000 + "a\n---\n" + secret({"pw": b64(value)})
    lines = text.split("\n")
    started = time.perf_counter()
    assert [entry.value for entry in secret_entries(lines, range(len(lines)))] == [value]
    assert time.perf_counter() - started < 1.0
