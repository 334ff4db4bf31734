"""Imports pipeline definitions that users upload through the web console."""

import yaml


def load_pipeline(uploaded: bytes) -> dict:
    # Uploaded by any signed-in user; FullLoader builds Python objects from tags.
    return yaml.load(uploaded, Loader=yaml.FullLoader)
