"""redc's own serialization enums and encryption choices, for use without
pyca/cryptography: the member names of
``cryptography.hazmat.primitives.serialization``. Keys accept these and
cryptography's alike."""

from __future__ import annotations

import enum


class Encoding(enum.Enum):
    PEM = "PEM"
    DER = "DER"
    OpenSSH = "OpenSSH"


class PrivateFormat(enum.Enum):
    PKCS8 = "PKCS8"
    TraditionalOpenSSL = "TraditionalOpenSSL"
    OpenSSH = "OpenSSH"


class PublicFormat(enum.Enum):
    SubjectPublicKeyInfo = "X.509 subjectPublicKeyInfo with PKCS#1"
    PKCS1 = "Raw PKCS#1"
    OpenSSH = "OpenSSH"


class KeySerializationEncryption:
    pass


class NoEncryption(KeySerializationEncryption):
    pass


class BestAvailableEncryption(KeySerializationEncryption):
    """Encrypt with ``password``: PKCS#8 as PBES2 (PBKDF2-SHA256,
    AES-256-CBC), PKCS#1 PEM as OpenSSL's legacy encryption (AES-256-CBC)."""

    def __init__(self, password: bytes) -> None:
        if not isinstance(password, bytes) or len(password) == 0:
            raise ValueError("Password must be 1 or more bytes.")
        self.password = password


__all__ = [
    "BestAvailableEncryption",
    "Encoding",
    "KeySerializationEncryption",
    "NoEncryption",
    "PrivateFormat",
    "PublicFormat",
]
