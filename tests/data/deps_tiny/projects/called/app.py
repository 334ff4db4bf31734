import tinylib


def read(blob):
    return tinylib.unsafe_load(blob)
