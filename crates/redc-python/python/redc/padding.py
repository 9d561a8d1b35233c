"""redc's own padding objects, for use without pyca/cryptography: the same
constructors and constants as
``cryptography.hazmat.primitives.asymmetric.padding``. Keys accept these
and cryptography's alike."""

from __future__ import annotations

from typing import Optional, Union

from .hashes import HashAlgorithm


class AsymmetricPadding:
    name: str = ""


class _SaltLength:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"PSS.{self._name}"


class MGF1:
    """Mask generation function 1 over ``algorithm``."""

    def __init__(self, algorithm: HashAlgorithm) -> None:
        if not isinstance(algorithm, HashAlgorithm):
            raise TypeError("Expected instance of redc.hashes.HashAlgorithm.")
        self._algorithm = algorithm

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MGF1) and other._algorithm == self._algorithm


class PKCS1v15(AsymmetricPadding):
    """RSASSA-PKCS1-v1_5 signatures, RSAES-PKCS1-v1_5 encryption."""

    name = "EMSA-PKCS1-v1_5"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PKCS1v15)


class PSS(AsymmetricPadding):
    """RSASSA-PSS with ``mgf`` and a salt of ``salt_length`` bytes or one of
    ``MAX_LENGTH``, ``DIGEST_LENGTH``, ``AUTO`` (verification only)."""

    MAX_LENGTH = _SaltLength("MAX_LENGTH")
    DIGEST_LENGTH = _SaltLength("DIGEST_LENGTH")
    AUTO = _SaltLength("AUTO")
    name = "EMSA-PSS"

    def __init__(self, mgf: MGF1, salt_length: Union[int, _SaltLength]) -> None:
        if not isinstance(salt_length, (int, _SaltLength)) or isinstance(salt_length, bool):
            raise TypeError("salt_length must be an integer, MAX_LENGTH, DIGEST_LENGTH, or AUTO")
        if isinstance(salt_length, int) and salt_length < 0:
            raise ValueError("salt_length must be zero or greater.")
        self._mgf = mgf
        self._salt_length = salt_length

    @property
    def mgf(self) -> MGF1:
        return self._mgf


class OAEP(AsymmetricPadding):
    """RSAES-OAEP with ``mgf``, label hash ``algorithm`` and ``label``."""

    name = "EME-OAEP"

    def __init__(self, mgf: MGF1, algorithm: HashAlgorithm, label: Optional[bytes]) -> None:
        if not isinstance(algorithm, HashAlgorithm):
            raise TypeError("Expected instance of redc.hashes.HashAlgorithm.")
        self._mgf = mgf
        self._algorithm = algorithm
        self._label = label

    @property
    def algorithm(self) -> HashAlgorithm:
        return self._algorithm

    @property
    def mgf(self) -> MGF1:
        return self._mgf


__all__ = ["AsymmetricPadding", "MGF1", "OAEP", "PKCS1v15", "PSS"]
