"""Reads the service settings; only plain YAML types are accepted."""

import yaml


def read_settings(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


def dump_settings(settings: dict) -> str:
    return yaml.safe_dump(settings, sort_keys=True)
