"""A minimal DER reader for private key structures (PKCS#1, PKCS#8, SEC1, DSA).

It checks, it does not trust: every length must fit, the outer SEQUENCE must span the
decoded bytes exactly, and for RSA the modulus must equal the product of its primes.
Descriptions name algorithm, size and encryption, never key material.
"""

from __future__ import annotations

from dataclasses import dataclass

SEQUENCE, INTEGER, OCTET_STRING, OID = 0x30, 0x02, 0x04, 0x06

OIDS = {
    "1.2.840.113549.1.1.1": "RSA",
    "1.2.840.113549.1.1.10": "RSA-PSS",
    "1.2.840.10045.2.1": "EC",
    "1.2.840.10040.4.1": "DSA",
    "1.3.101.110": "X25519",
    "1.3.101.111": "X448",
    "1.3.101.112": "Ed25519",
    "1.3.101.113": "Ed448",
    "1.2.840.10045.3.1.7": "P-256",
    "1.3.132.0.34": "P-384",
    "1.3.132.0.35": "P-521",
    "1.3.132.0.10": "secp256k1",
    "1.2.840.113549.1.5.13": "PBES2",
    "1.2.840.113549.1.5.3": "PBES1",
}
PKCS12_PBE = "1.2.840.113549.1.12.1."


class DerError(ValueError):
    """Malformed or inconsistent structure; the message is redaction-safe."""


@dataclass(frozen=True)
class Tlv:
    tag: int
    value: bytes


def read_header(data: bytes, pos: int = 0) -> tuple[int, int, int]:
    """The tag and length of the element at ``pos``, and where its value starts; the
    value itself need not be there (a prefix of a longer key is enough to read)."""
    if pos + 2 > len(data):
        raise DerError("truncated ASN.1 element")
    tag, first = data[pos], data[pos + 1]
    pos += 2
    if tag & 0x1F == 0x1F:
        raise DerError("unsupported ASN.1 tag")
    if first < 0x80:
        size = first
    elif first == 0x80:
        raise DerError("indefinite length is not DER")
    else:
        count = first & 0x7F
        if count > 4 or pos + count > len(data):
            raise DerError("bad ASN.1 length")
        size = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    return tag, size, pos


def read_tlv(data: bytes, pos: int = 0) -> tuple[Tlv, int]:
    """One TLV at ``pos``: the element and the position after it."""
    tag, size, pos = read_header(data, pos)
    if pos + size > len(data):
        raise DerError("an ASN.1 element runs past the end of the data")
    return Tlv(tag, data[pos : pos + size]), pos + size


def children(value: bytes) -> list[Tlv]:
    items: list[Tlv] = []
    pos = 0
    while pos < len(value):
        item, pos = read_tlv(value, pos)
        items.append(item)
    return items


def outer_sequence(data: bytes) -> list[Tlv]:
    """The elements of the SEQUENCE that must span ``data`` exactly."""
    top, end = read_tlv(data)
    if top.tag != SEQUENCE:
        raise DerError("does not start with an ASN.1 SEQUENCE")
    if end != len(data):
        raise DerError(f"SEQUENCE length and decoded size differ by {len(data) - end} bytes")
    return children(top.value)


def integer(item: Tlv) -> int:
    if item.tag != INTEGER or not item.value:
        raise DerError("expected an INTEGER")
    return int.from_bytes(item.value, "big", signed=True)


def oid(item: Tlv) -> str:
    if item.tag != OID or not item.value:
        raise DerError("expected an OBJECT IDENTIFIER")
    arcs: list[int] = []
    current = 0
    for byte in item.value:
        current = (current << 7) | (byte & 0x7F)
        if not byte & 0x80:
            arcs.append(current)
            current = 0
    first = min(arcs[0] // 40, 2)
    return ".".join(str(a) for a in [first, arcs[0] - 40 * first, *arcs[1:]])


def _name(identifier: str) -> str:
    if identifier.startswith(PKCS12_PBE):
        return "PKCS#12 PBE"
    return OIDS.get(identifier, "an unrecognised algorithm")


def _rsa(items: list[Tlv]) -> str:
    if len(items) < 9 or integer(items[0]) not in (0, 1):
        raise DerError("RSA key does not have version and eight INTEGERs")
    n, e, d, p, q = (integer(item) for item in items[1:6])
    if n <= 0 or e <= 0 or d <= 0:
        raise DerError("RSA integers are not positive")
    if integer(items[0]) == 0 and p * q != n:
        raise DerError("RSA modulus is not the product of its primes")
    bits = n.bit_length()
    weak = "; weak, under 2048 bits" if bits < 2048 else ""
    return f"RSA {bits}-bit, modulus equals p*q{weak}"


def _curve(items: list[Tlv]) -> str:
    for item in items:
        if item.tag == 0xA0:
            inner = children(item.value)
            if inner and inner[0].tag == OID:
                return OIDS.get(oid(inner[0]), "an unnamed curve")
    return "curve given elsewhere"


def _sec1(items: list[Tlv]) -> str:
    return f"EC {_curve(items[2:])}, {len(_sec1_scalar(items)) * 8}-bit private scalar"


def _dsa(items: list[Tlv]) -> str:
    if len(items) != 6 or integer(items[0]) != 0:
        raise DerError("DSA key does not have version 0 and five INTEGERs")
    p, q, g, y, x = (integer(item) for item in items[1:])
    if not (0 < x < q and 1 < g < p and 0 < y < p):
        raise DerError("DSA parameters are inconsistent")
    return f"DSA {p.bit_length()}-bit"


def _pkcs8(items: list[Tlv]) -> str:
    if len(items) < 3 or integer(items[0]) not in (0, 1):
        raise DerError("PKCS#8 key does not have version, algorithm and key")
    if items[1].tag != SEQUENCE or items[2].tag != OCTET_STRING:
        raise DerError("PKCS#8 algorithm or key element has the wrong type")
    algorithm = children(items[1].value)
    if not algorithm:
        raise DerError("PKCS#8 algorithm identifier is empty")
    name = _name(oid(algorithm[0]))
    key = items[2].value
    if name in ("RSA", "RSA-PSS"):
        return _rsa(outer_sequence(key))
    if name == "EC":
        inner = outer_sequence(key)
        if len(algorithm) > 1 and algorithm[1].tag == OID:
            curve = OIDS.get(oid(algorithm[1]), "an unnamed curve")
            return f"EC {curve}, {len(_sec1_scalar(inner)) * 8}-bit private scalar"
        return _sec1(inner)
    if name in ("Ed25519", "X25519", "Ed448", "X448"):
        inner_key, end = read_tlv(key)
        if inner_key.tag != OCTET_STRING or end != len(key):
            raise DerError(f"{name} key is not a single OCTET STRING")
        expected = 32 if name.endswith("25519") else (57 if name == "Ed448" else 56)
        if len(inner_key.value) != expected:
            raise DerError(f"{name} private key is not {expected} bytes")
        return name
    if name == "DSA":
        if read_tlv(key)[0].tag != INTEGER:
            raise DerError("DSA private value is not an INTEGER")
        return "DSA"
    return f"key of {name}"


def _sec1_scalar(items: list[Tlv]) -> bytes:
    if len(items) < 2 or integer(items[0]) != 1 or items[1].tag != OCTET_STRING:
        raise DerError("EC key does not have version 1 and a private OCTET STRING")
    return items[1].value


def _encrypted_pkcs8(items: list[Tlv]) -> str:
    if len(items) != 2 or items[0].tag != SEQUENCE or items[1].tag != OCTET_STRING:
        raise DerError("encrypted PKCS#8 is not (algorithm, encrypted data)")
    algorithm = children(items[0].value)
    if not algorithm:
        raise DerError("encryption algorithm identifier is empty")
    if not items[1].value:
        raise DerError("encrypted data is empty")
    return f"passphrase-encrypted ({_name(oid(algorithm[0]))})"


def describe_der(form: str, data: bytes) -> str:
    """Describe a DER private key of ``form``; raises :class:`DerError` if inconsistent."""
    items = outer_sequence(data)
    if form == "pkcs1":
        return f"PKCS#1 private key, {_rsa(items)}, not encrypted"
    if form == "pkcs8":
        return f"PKCS#8 private key, {_pkcs8(items)}, not encrypted"
    if form == "pkcs8-encrypted":
        return f"PKCS#8 private key, {_encrypted_pkcs8(items)}"
    if form == "sec1":
        return f"SEC1 private key, {_sec1(items)}, not encrypted"
    if form == "dsa":
        return f"DSA private key, {_dsa(items)}, not encrypted"
    raise DerError("unknown key form")
