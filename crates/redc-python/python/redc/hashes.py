"""redc's own hash objects, for use without pyca/cryptography: the names and
digest sizes of ``cryptography.hazmat.primitives.hashes``. Keys accept
these and cryptography's alike."""

from __future__ import annotations


class HashAlgorithm:
    """A hash redc signs, verifies and encrypts with (it hashes in Rust)."""

    name: str = ""
    digest_size: int = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HashAlgorithm) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"redc.hashes.{type(self).__name__}()"


def _make(cls_name: str, name: str, size: int) -> type:
    return type(cls_name, (HashAlgorithm,), {"name": name, "digest_size": size, "__module__": __name__})


SHA1 = _make("SHA1", "sha1", 20)
SHA224 = _make("SHA224", "sha224", 28)
SHA256 = _make("SHA256", "sha256", 32)
SHA384 = _make("SHA384", "sha384", 48)
SHA512 = _make("SHA512", "sha512", 64)
SHA512_224 = _make("SHA512_224", "sha512-224", 28)
SHA512_256 = _make("SHA512_256", "sha512-256", 32)
SHA3_224 = _make("SHA3_224", "sha3-224", 28)
SHA3_256 = _make("SHA3_256", "sha3-256", 32)
SHA3_384 = _make("SHA3_384", "sha3-384", 48)
SHA3_512 = _make("SHA3_512", "sha3-512", 64)

__all__ = [
    "HashAlgorithm",
    "SHA1",
    "SHA224",
    "SHA256",
    "SHA384",
    "SHA512",
    "SHA512_224",
    "SHA512_256",
    "SHA3_224",
    "SHA3_256",
    "SHA3_384",
    "SHA3_512",
]
