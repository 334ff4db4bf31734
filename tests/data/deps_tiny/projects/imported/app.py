import tinylib


def read(blob):
    return tinylib.safe_load(blob)
