import tinylib

print(tinylib.safe_load("a: 1"))
