"""Private keys: generated with openssl / ssh-keygen at test time, or built by hand in DER."""

from __future__ import annotations

import base64
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.validators.helpers import run, summary
from thresher.findings import SecretType
from thresher.validators import ValidationResult
from thresher.validators.keys import PrivateKeyValidator, crc24

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not found")
needs_ssh_keygen = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None, reason="ssh-keygen not found"
)


def public_parts(value: str) -> list[str]:
    """Armor lines and RFC 1421 headers: public vocabulary, not key material."""
    return [
        line
        for line in value.replace("\\n", "\n").splitlines()
        if line.startswith("-----") or ":" in line
    ]


def check(value: str) -> list[ValidationResult]:
    return run(PrivateKeyValidator(), value, SecretType.PRIVATE_KEY, public_parts(value))


def openssl(*args: str) -> str:
    return subprocess.run(
        ["openssl", *args], check=True, capture_output=True, text=True, timeout=60
    ).stdout


# -- DER by hand -------------------------------------------------------------------------


def tlv(tag: int, body: bytes) -> bytes:
    size = len(body)
    if size < 0x80:
        return bytes([tag, size]) + body
    raw = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(raw)]) + raw + body


def der_int(number: int) -> bytes:
    return tlv(0x02, number.to_bytes(number.bit_length() // 8 + 1, "big", signed=True))


def seq(*items: bytes) -> bytes:
    return tlv(0x30, b"".join(items))


def pem(label: str, der: bytes, headers: str = "") -> str:
    body = base64.b64encode(der).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n{headers}" + "\n".join(lines) + f"\n-----END {label}-----\n"


def tiny_rsa(n: int = 61 * 53) -> bytes:
    p, q, e, d = 61, 53, 17, 2753
    return seq(*(der_int(x) for x in (0, n, e, d, p, q, d % (p - 1), d % (q - 1), 38)))


def tiny_dsa(x: int = 3) -> bytes:
    p, q, g = 23, 11, 4
    return seq(*(der_int(v) for v in (0, p, q, g, pow(g, x, p), x)))


# -- generated keys ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def rsa_pkcs1() -> str:
    if shutil.which("openssl") is None:
        pytest.skip("openssl not found")
    return openssl("genrsa", "-traditional", "2048")


@needs_openssl
def test_pkcs1_rsa(rsa_pkcs1: str) -> None:
    armor, structure = check(rsa_pkcs1)
    assert (armor.kind, armor.status) == ("format", "valid")
    assert (structure.kind, structure.status) == ("structure", "valid")
    assert "PKCS#1" in structure.detail and "RSA 2048-bit" in structure.detail
    assert "not encrypted" in structure.detail


@needs_openssl
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"), ("PKCS#8", "RSA")),
        (("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"), ("P-384",)),
        (("ecparam", "-name", "prime256v1", "-genkey", "-noout"), ("SEC1", "P-256")),
        (("genpkey", "-algorithm", "ed25519"), ("PKCS#8", "Ed25519")),
    ],
    ids=["pkcs8-rsa", "pkcs8-ec", "sec1-ec", "ed25519"],
)
def test_unencrypted_keys(args: tuple[str, ...], words: tuple[str, ...]) -> None:
    results = check(openssl(*args))
    assert summary(results) == {"format": "valid", "structure": "valid"}
    detail = results[1].detail
    assert all(word in detail for word in words) and "not encrypted" in detail


@needs_openssl
def test_encrypted_pkcs8() -> None:
    value = openssl("genpkey", "-algorithm", "ed25519", "-aes-256-cbc", "-pass", "pass:pw")
    results = check(value)
    assert summary(results) == {"format": "valid", "structure": "valid"}
    assert "passphrase-encrypted (PBES2)" in results[1].detail


@needs_openssl
def test_legacy_proc_type_encryption(rsa_pkcs1: str, tmp_path: Path) -> None:
    source = tmp_path / "key.pem"
    source.write_text(rsa_pkcs1)
    value = openssl("rsa", "-in", str(source), "-traditional", "-aes128", "-passout", "pass:pw")
    assert "Proc-Type: 4,ENCRYPTED" in value
    results = check(value)
    assert summary(results) == {"format": "valid", "structure": "valid"}
    assert "passphrase-encrypted" in results[1].detail


@needs_openssl
def test_escaped_newlines_from_json(rsa_pkcs1: str) -> None:
    escaped = rsa_pkcs1.strip().replace("\n", "\\n")
    assert summary(check(f'"{escaped}"')) == {"format": "valid", "structure": "valid"}


@needs_openssl
def test_truncated_body_breaks_the_der_length(rsa_pkcs1: str) -> None:
    lines = rsa_pkcs1.strip().splitlines()
    value = "\n".join([*lines[:-4], lines[-1]])
    results = check(value)
    assert summary(results) == {"format": "valid", "structure": "invalid"}
    assert "runs past the end" in results[1].detail


@needs_openssl
def test_missing_end_line_is_truncated(rsa_pkcs1: str) -> None:
    [result] = check("\n".join(rsa_pkcs1.splitlines()[:8]))
    assert result.status == "invalid" and "truncated" in result.detail


@needs_openssl
def test_ellipsised_body(rsa_pkcs1: str) -> None:
    lines = rsa_pkcs1.strip().splitlines()
    value = "\n".join([*lines[:3], "...", *lines[-2:]])
    [result] = check(value)
    assert result.status == "invalid" and "elided" in result.detail


@needs_openssl
def test_public_key_is_not_a_secret(rsa_pkcs1: str, tmp_path: Path) -> None:
    source = tmp_path / "key.pem"
    source.write_text(rsa_pkcs1)
    [result] = check(openssl("rsa", "-in", str(source), "-pubout"))
    assert result.status == "invalid" and "not a private key" in result.detail


@needs_ssh_keygen
@pytest.mark.parametrize(
    ("passphrase", "words"),
    [("", ("ssh-ed25519", "not encrypted")), ("pw-123456", ("passphrase-encrypted", "bcrypt"))],
)
def test_openssh_keys(tmp_path: Path, passphrase: str, words: tuple[str, ...]) -> None:
    path = tmp_path / "id"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", "", "-f", str(path)],
        check=True,
        timeout=60,
    )
    results = check(path.read_text())
    assert summary(results) == {"format": "valid", "structure": "valid"}
    assert all(word in results[1].detail for word in words)


@needs_ssh_keygen
def test_openssh_corrupted_check_integers(tmp_path: Path) -> None:
    path = tmp_path / "id"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", str(path)],
        check=True,
        timeout=60,
    )
    lines = path.read_text().strip().splitlines()
    blob = bytearray(base64.b64decode("".join(lines[1:-1])))
    private_at = blob.index(b"ssh-ed25519", blob.index(b"ssh-ed25519") + 11) - 12
    blob[private_at] ^= 0xFF
    value = pem("OPENSSH PRIVATE KEY", bytes(blob))
    results = check(value)
    assert summary(results) == {"format": "valid", "structure": "invalid"}
    assert "check integers" in results[1].detail


# -- hand-built structures ---------------------------------------------------------------


def test_hand_built_rsa_and_dsa() -> None:
    results = check(pem("RSA PRIVATE KEY", tiny_rsa()))
    assert summary(results) == {"format": "valid", "structure": "valid"}
    assert "weak" in results[1].detail
    results = check(pem("DSA PRIVATE KEY", tiny_dsa()))
    assert summary(results) == {"format": "valid", "structure": "valid"}


def test_inconsistent_rsa_modulus() -> None:
    results = check(pem("RSA PRIVATE KEY", tiny_rsa(n=61 * 53 + 2)))
    assert summary(results)["structure"] == "invalid"
    assert "product of its primes" in results[1].detail


@pytest.mark.parametrize(
    "der",
    [
        b"\x02\x01\x00",
        seq(der_int(0))[:-1],
        seq(der_int(0)) + b"\x00",
        bytes([0x30, 0x80]) + der_int(0) + b"\0\0",
    ],
    ids=["not-a-sequence", "short", "trailing", "indefinite"],
)
def test_malformed_der(der: bytes) -> None:
    assert summary(check(pem("PRIVATE KEY", der)))["structure"] == "invalid"


def test_armor_problems() -> None:
    body = pem("RSA PRIVATE KEY", tiny_rsa())
    mismatched = body.replace("END RSA PRIVATE KEY", "END PRIVATE KEY")
    assert summary(check(mismatched)) == {"format": "invalid"}
    assert summary(check(body.replace("M", "!", 1))) == {"format": "invalid"}
    empty = "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----"
    assert summary(check(empty)) == {"format": "invalid"}
    assert summary(check("Zm9vYmFyYmF6cXV4")) == {"format": "invalid"}


def test_header_line_only_is_unknown() -> None:
    [result] = check("-----BEGIN RSA PRIVATE KEY-----")
    assert result.status == "unknown" and "BEGIN line" in result.detail


def test_pgp_armor_crc24() -> None:
    data = random.Random(9).randbytes(300)
    crc = base64.b64encode(crc24(data).to_bytes(3, "big")).decode()
    good = pem("PGP PRIVATE KEY BLOCK", data).replace("\n-----END", f"\n={crc}\n-----END")
    results = check(good)
    assert summary(results) == {"format": "valid", "structure": "valid"}
    wrong = base64.b64encode(((crc24(data) + 1) & 0xFFFFFF).to_bytes(3, "big")).decode()
    bad = good.replace(f"={crc}", f"={wrong}")
    assert summary(check(bad))["structure"] == "invalid"


def test_crc24_known_value() -> None:
    assert crc24(b"") == 0xB704CE


@needs_ssh_keygen
def test_openssh_aead_cipher(tmp_path: Path) -> None:
    path = tmp_path / "id"
    subprocess.run(
        [
            "ssh-keygen",
            "-q",
            "-t",
            "ed25519",
            "-N",
            "pw-123456",
            "-C",
            "",
            "-f",
            str(path),
            "-Z",
            "chacha20-poly1305@openssh.com",
        ],
        check=True,
        timeout=60,
    )
    results = check(path.read_text())
    assert summary(results) == {"format": "valid", "structure": "valid"}
    assert "chacha20-poly1305" in results[1].detail
