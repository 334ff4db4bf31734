"""Tariffs in cents; no third-party code ships with the package."""


def monthly(base: int, usage_kwh: int, rate: int) -> int:
    return base + usage_kwh * rate
