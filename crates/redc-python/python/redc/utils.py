"""``Prehashed``: sign or verify a digest the caller computed (as
``cryptography.hazmat.primitives.asymmetric.utils.Prehashed``)."""

from __future__ import annotations

from .hashes import HashAlgorithm


class Prehashed:
    """The data given to ``sign``/``verify`` is already a digest of ``algorithm``."""

    def __init__(self, algorithm: HashAlgorithm) -> None:
        if not isinstance(algorithm, HashAlgorithm):
            raise TypeError("Expected instance of redc.hashes.HashAlgorithm.")
        self._algorithm = algorithm
        self._digest_size = algorithm.digest_size

    @property
    def digest_size(self) -> int:
        return self._digest_size


__all__ = ["Prehashed"]
