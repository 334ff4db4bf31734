"""Private keys: the PEM armor parses and the key inside has a consistent structure.

PEM: BEGIN/END labels match, RFC 1421 headers (``Proc-Type: 4,ENCRYPTED``), the base64
body decodes. Inside: DER for PKCS#1 / PKCS#8 / SEC1 / DSA (an ASN.1 SEQUENCE whose length
is exactly the decoded size), ``openssh-key-v1\\0`` for OpenSSH keys (cipher ``none`` or
encrypted, check integers match), CRC24 for PGP armor. Truncated and ellipsised bodies are
invalid: they cannot be used.
"""

from __future__ import annotations

import base64
import binascii
import re

from thresher.findings import Finding, SecretType
from thresher.validators.base import CheckKind, ValidationResult, Validator
from thresher.validators.der import DerError, describe_der

MAX_KEY_CHARS = 256 * 1024
_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")
_END = re.compile(r"-----END ([A-Z0-9 ]+)-----")
_HEADER = re.compile(r"^([A-Za-z-]+):\s*(.*)$")
_ELLIPSIS = re.compile(r"\.\.\.|\u2026|<[^>]*>|\[[^]]*\]")
_B64_BODY = re.compile(r"^[A-Za-z0-9+/=]+$")
_DER_LABELS = {
    "RSA PRIVATE KEY": "pkcs1",
    "PRIVATE KEY": "pkcs8",
    "ENCRYPTED PRIVATE KEY": "pkcs8-encrypted",
    "EC PRIVATE KEY": "sec1",
    "DSA PRIVATE KEY": "dsa",
}
_OPENSSH_MAGIC = b"openssh-key-v1\x00"


def normalise(value: str) -> str:
    """Undo the escaping keys get in JSON, YAML and env files."""
    text = value.strip().strip("\"'")
    if "\\n" in text and "\n" not in text.strip():
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n")
    return text.replace("\r\n", "\n")


def crc24(data: bytes) -> int:
    """OpenPGP armor checksum (RFC 4880 §6.1)."""
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


class _SshReader:
    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def uint32(self) -> int:
        if self.pos + 4 > len(self.data):
            raise DerError("truncated OpenSSH key")
        value = int.from_bytes(self.data[self.pos : self.pos + 4], "big")
        self.pos += 4
        return value

    def string(self) -> bytes:
        size = self.uint32()
        if self.pos + size > len(self.data):
            raise DerError("an OpenSSH field runs past the end of the key")
        value = self.data[self.pos : self.pos + size]
        self.pos += size
        return value


_SSH_NAME = re.compile(rb"^[a-z0-9@.+-]{1,64}$")


def describe_openssh(data: bytes) -> tuple[str, bool]:
    """(description, encrypted) of an ``openssh-key-v1`` blob; raises :class:`DerError`."""
    if not data.startswith(_OPENSSH_MAGIC):
        raise DerError("no openssh-key-v1 magic")
    reader = _SshReader(data, len(_OPENSSH_MAGIC))
    cipher, kdf = reader.string(), reader.string()
    reader.string()  # kdf options
    if not (_SSH_NAME.match(cipher) and _SSH_NAME.match(kdf)):
        raise DerError("cipher or kdf name is not a name")
    count = reader.uint32()
    if not 1 <= count <= 16:
        raise DerError("implausible number of keys")
    public = [reader.string() for _ in range(count)]
    key_type = _SshReader(public[0]).string()
    if not _SSH_NAME.match(key_type):
        raise DerError("public key type is not a name")
    private = reader.string()
    aead = b"gcm" in cipher or b"poly1305" in cipher
    if len(data) - reader.pos != (16 if aead and cipher != b"none" else 0):
        raise DerError("trailing bytes after the private section")
    name = key_type.decode()
    if cipher != b"none":
        block = 8 if b"chacha20" in cipher or b"3des" in cipher else 16
        if len(private) % block:
            raise DerError("encrypted section is not a whole number of cipher blocks")
        return (
            f"OpenSSH {name} key, passphrase-encrypted ({cipher.decode()}, kdf {kdf.decode()})",
            True,
        )
    if len(private) % 8:
        raise DerError("private section is not padded to 8 bytes")
    inner = _SshReader(private)
    if inner.uint32() != inner.uint32():
        raise DerError("check integers differ: corrupted private section")
    if inner.string() != key_type:
        raise DerError("private key type differs from the public key type")
    return f"OpenSSH {name} key, not encrypted (cipher none)", False


class PrivateKeyValidator(Validator):
    name = "private-key-structure"
    description = (
        "Private keys: PEM BEGIN/END labels match, base64 body decodes, DER/OpenSSH/PGP "
        "structure is consistent; reports whether the key is passphrase-encrypted"
    )
    secret_types = frozenset({SecretType.PRIVATE_KEY})

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        if len(value) > MAX_KEY_CHARS:
            return [self.unknown(CheckKind.FORMAT, "too large to check (over 256 KiB)")]
        text = normalise(value)
        begin = _BEGIN.search(text)
        if not begin:
            return [self.invalid(CheckKind.FORMAT, "no PEM BEGIN line: not a PEM private key")]
        label = begin.group(1)
        if "PRIVATE" not in label:
            return [
                self.invalid(
                    CheckKind.STRUCTURE,
                    "a public key, certificate or other non-secret PEM block: not a private key",
                )
            ]
        end = _END.search(text, begin.end())
        rest = text[begin.end() :].strip()
        if not end:
            if not rest:
                return [
                    self.unknown(
                        CheckKind.FORMAT,
                        "only the BEGIN line is available: the key body was not checked",
                    )
                ]
            return [self.invalid(CheckKind.FORMAT, "no END line: the key is truncated")]
        if end.group(1) != label:
            return [self.invalid(CheckKind.FORMAT, "BEGIN and END labels differ")]
        return self._body(label, text[begin.end() : end.start()])

    def _body(self, label: str, block: str) -> list[ValidationResult]:
        if _ELLIPSIS.search(block):
            return [self.invalid(CheckKind.FORMAT, "the body is elided ('...' or a marker)")]
        headers: dict[str, str] = {}
        lines = [line.strip() for line in block.strip().split("\n")]
        while lines and _HEADER.match(lines[0]):
            match = _HEADER.match(lines.pop(0))
            assert match is not None
            headers[match.group(1).lower()] = match.group(2)
        checksum = None
        if lines and label.startswith("PGP") and lines[-1].startswith("="):
            checksum = lines.pop()[1:]
        body = "".join(lines)
        if not body:
            return [self.invalid(CheckKind.FORMAT, "the PEM body is empty")]
        if not _B64_BODY.match(body) or len(body) % 4:
            return [self.invalid(CheckKind.FORMAT, "the body is not complete base64: truncated")]
        try:
            data = base64.b64decode(body, validate=True)
        except binascii.Error:
            return [self.invalid(CheckKind.FORMAT, "the body does not decode as base64")]
        armor = self.valid(
            CheckKind.FORMAT, f"PEM armor parses: labels match, {len(data)} bytes decoded"
        )
        try:
            detail = self._structure(label, headers, data, checksum)
        except DerError as error:
            return [armor, self.invalid(CheckKind.STRUCTURE, f"corrupt or truncated: {error}")]
        return [armor, self.valid(CheckKind.STRUCTURE, detail)]

    def _structure(
        self, label: str, headers: dict[str, str], data: bytes, checksum: str | None
    ) -> str:
        if label == "OPENSSH PRIVATE KEY":
            return describe_openssh(data)[0]
        if label.startswith("PGP PRIVATE KEY"):
            if checksum is None:
                return "PGP armored private key (no CRC24 line to check)"
            try:
                expected = int.from_bytes(base64.b64decode(checksum, validate=True), "big")
            except binascii.Error as error:
                raise DerError("CRC24 line is not base64") from error
            if crc24(data) != expected:
                raise DerError("CRC24 checksum does not match")
            return "PGP armored private key, CRC24 checksum matches"
        if "ENCRYPTED" in headers.get("proc-type", "").upper():
            if len(data) % 8:
                raise DerError("encrypted body is not a whole number of cipher blocks")
            return "legacy PEM key, passphrase-encrypted (Proc-Type ENCRYPTED header)"
        form = _DER_LABELS.get(label)
        if form is None:
            return f"PEM block with an unrecognised private key label ({len(data)} bytes)"
        return describe_der(form, data)
