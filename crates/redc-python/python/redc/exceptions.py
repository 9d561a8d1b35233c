"""redc's exceptions. With pyca/cryptography installed, ``InvalidSignature``
and ``UnsupportedAlgorithm`` are cryptography's own classes, so code that
catches cryptography's exceptions catches redc's."""

from __future__ import annotations

from . import _native

try:
    from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
except ImportError:  # cryptography is optional

    class InvalidSignature(Exception):  # type: ignore[no-redef]
        """A signature did not verify."""

    class UnsupportedAlgorithm(Exception):  # type: ignore[no-redef]
        """A hash or padding redc does not implement."""

        def __init__(self, message: str, reason: object = None) -> None:
            super().__init__(message)
            self._reason = reason


class PasswordError(_native.PasswordError, TypeError):
    """A key file's password is missing, wrong, or given for an unencrypted
    key. Both a ``ValueError`` (redc's rule for every bad key file) and a
    ``TypeError`` (what pyca/cryptography raises for a missing or
    superfluous password), so either ``except`` clause catches it."""


__all__ = ["InvalidSignature", "PasswordError", "UnsupportedAlgorithm"]
