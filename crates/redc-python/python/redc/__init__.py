"""redc: constant-time RSA from Rust, as pyca/cryptography keys.

With ``cryptography`` importable, :class:`RSAPrivateKey` and
:class:`RSAPublicKey` subclass cryptography's ``RSAPrivateKey`` and
``RSAPublicKey`` and take cryptography's own padding, hash and
serialization objects, so libraries that accept cryptography keys (PyJWT,
authlib, dkimpy, ...) accept redc's unchanged::

    import jwt, redc
    key = redc.load_pem_private_key(open("key.pem", "rb").read(), None)
    token = jwt.encode({"sub": "42"}, key, algorithm="RS256")

Without cryptography, the same methods take redc's own small objects
(:mod:`redc.padding`, :mod:`redc.hashes`, :mod:`redc.serialization`,
:mod:`redc.utils`). Hashing, padding and every private-key operation run in
Rust with the GIL released; :meth:`RSAPrivateKey.sign_batch` signs many
messages on every core through the library's eight-lane batch path.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Tuple, Union

from . import _native, hashes, padding, serialization, utils
from .exceptions import InvalidSignature, PasswordError, UnsupportedAlgorithm

try:
    from cryptography.hazmat.primitives import hashes as _chashes
    from cryptography.hazmat.primitives import serialization as _cser
    from cryptography.hazmat.primitives.asymmetric import padding as _cpad
    from cryptography.hazmat.primitives.asymmetric import rsa as _crsa
    from cryptography.hazmat.primitives.asymmetric import utils as _cutils

    HAVE_CRYPTOGRAPHY = True
except ImportError:  # cryptography is optional
    HAVE_CRYPTOGRAPHY = False

__all__ = [
    "HAVE_CRYPTOGRAPHY",
    "InvalidSignature",
    "PasswordError",
    "RSAPrivateKey",
    "RSAPrivateNumbers",
    "RSAPublicKey",
    "RSAPublicNumbers",
    "UnsupportedAlgorithm",
    "from_cryptography",
    "generate_private_key",
    "load_der_private_key",
    "load_der_public_key",
    "load_pem_private_key",
    "load_pem_public_key",
    "thread_count",
]

# The hash names the library implements, as cryptography spells them.
_HASHES = frozenset(
    ["sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256"]
    + ["sha3-224", "sha3-256", "sha3-384", "sha3-512"]
)

# Argument classes accepted: redc's own, and cryptography's when present.
if HAVE_CRYPTOGRAPHY:
    _HashTypes: Tuple[type, ...] = (hashes.HashAlgorithm, _chashes.HashAlgorithm)
    _PrehashedTypes: Tuple[type, ...] = (utils.Prehashed, _cutils.Prehashed)
    _PKCS1v15Types: Tuple[type, ...] = (padding.PKCS1v15, _cpad.PKCS1v15)
    _PSSTypes: Tuple[type, ...] = (padding.PSS, _cpad.PSS)
    _OAEPTypes: Tuple[type, ...] = (padding.OAEP, _cpad.OAEP)
    _MGF1Types: Tuple[type, ...] = (padding.MGF1, _cpad.MGF1)
    _PaddingTypes: Tuple[type, ...] = (padding.AsymmetricPadding, _cpad.AsymmetricPadding)
    _MAX = (padding.PSS.MAX_LENGTH, _cpad.PSS.MAX_LENGTH)
    _DIGEST = (padding.PSS.DIGEST_LENGTH, _cpad.PSS.DIGEST_LENGTH)
    _AUTO = (padding.PSS.AUTO, _cpad.PSS.AUTO)
    _NoEncTypes: Tuple[type, ...] = (serialization.NoEncryption, _cser.NoEncryption)
    _BestEncTypes: Tuple[type, ...] = (serialization.BestAvailableEncryption, _cser.BestAvailableEncryption)
    _EncTypes: Tuple[type, ...] = (serialization.KeySerializationEncryption, _cser.KeySerializationEncryption)
    RSAPublicNumbers: Any = _crsa.RSAPublicNumbers
    RSAPrivateNumbers: Any = _crsa.RSAPrivateNumbers
    _PrivateBase: type = _crsa.RSAPrivateKey
    _PublicBase: type = _crsa.RSAPublicKey
else:
    _HashTypes = (hashes.HashAlgorithm,)
    _PrehashedTypes = (utils.Prehashed,)
    _PKCS1v15Types = (padding.PKCS1v15,)
    _PSSTypes = (padding.PSS,)
    _OAEPTypes = (padding.OAEP,)
    _MGF1Types = (padding.MGF1,)
    _PaddingTypes = (padding.AsymmetricPadding,)
    _MAX = (padding.PSS.MAX_LENGTH,)
    _DIGEST = (padding.PSS.DIGEST_LENGTH,)
    _AUTO = (padding.PSS.AUTO,)
    _NoEncTypes = (serialization.NoEncryption,)
    _BestEncTypes = (serialization.BestAvailableEncryption,)
    _EncTypes = (serialization.KeySerializationEncryption,)

    class RSAPublicNumbers:  # type: ignore[no-redef]
        """n and e (cryptography's ``RSAPublicNumbers`` when installed)."""

        def __init__(self, e: int, n: int) -> None:
            if not isinstance(e, int) or not isinstance(n, int):
                raise TypeError("RSAPublicNumbers arguments must be integers.")
            self._e, self._n = e, n

        e = property(lambda self: self._e)
        n = property(lambda self: self._n)

        def public_key(self, backend: Any = None) -> "RSAPublicKey":
            return RSAPublicKey._from_numbers(self)

        def __eq__(self, other: object) -> bool:
            if not isinstance(other, RSAPublicNumbers):
                return NotImplemented
            return (self.e, self.n) == (other.e, other.n)

        def __hash__(self) -> int:
            return hash((self.e, self.n))

    class RSAPrivateNumbers:  # type: ignore[no-redef]
        """p, q, d and the CRT numbers (cryptography's ``RSAPrivateNumbers``
        when installed)."""

        def __init__(self, p: int, q: int, d: int, dmp1: int, dmq1: int, iqmp: int, public_numbers: Any) -> None:
            for v in (p, q, d, dmp1, dmq1, iqmp):
                if not isinstance(v, int):
                    raise TypeError("RSAPrivateNumbers p, q, d, dmp1, dmq1, iqmp arguments must all be integers.")
            if not isinstance(public_numbers, RSAPublicNumbers):
                raise TypeError("RSAPrivateNumbers public_numbers must be an RSAPublicNumbers instance.")
            self.p, self.q, self.d = p, q, d
            self.dmp1, self.dmq1, self.iqmp = dmp1, dmq1, iqmp
            self.public_numbers = public_numbers

        def private_key(self, backend: Any = None, *, unsafe_skip_rsa_key_validation: bool = False) -> "RSAPrivateKey":
            return RSAPrivateKey._from_numbers(self)

        def __eq__(self, other: object) -> bool:
            if not isinstance(other, RSAPrivateNumbers):
                return NotImplemented
            return vars(self) == vars(other)

        __hash__ = None  # type: ignore[assignment]

    _PrivateBase = object
    _PublicBase = object


def _bytes(value: Any, what: str) -> bytes:
    """Bytes-like ``value`` as bytes; anything else (str included) a TypeError."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes-like, not {type(value).__name__}")


def _be(x: int) -> bytes:
    """A non-negative integer as minimal big-endian bytes."""
    if not isinstance(x, int) or isinstance(x, bool):
        raise TypeError(f"key numbers must be integers, not {type(x).__name__}")
    if x < 0:
        raise ValueError("key numbers must not be negative")
    return x.to_bytes(max(1, (x.bit_length() + 7) // 8), "big")


def _int(b: bytes) -> int:
    return int.from_bytes(b, "big")


def _hash_name(algorithm: Any) -> str:
    if not isinstance(algorithm, _HashTypes):
        raise TypeError("Expected instance of hashes.HashAlgorithm.")
    name = algorithm.name
    if name not in _HASHES:
        raise UnsupportedAlgorithm(f"redc does not support the hash {name} (supported: {', '.join(sorted(_HASHES))})")
    return name


def _hash_arg(algorithm: Any) -> Tuple[str, bool]:
    """(hash name, prehashed) of a hash object or ``Prehashed``."""
    if isinstance(algorithm, _PrehashedTypes):
        return _hash_name(algorithm._algorithm), True
    return _hash_name(algorithm), False


def _mgf1_name(mgf: Any) -> str:
    if not isinstance(mgf, _MGF1Types):
        raise UnsupportedAlgorithm("redc supports MGF1 only as the mask generation function")
    return _hash_name(mgf._algorithm)


def _salt_code(salt: Any) -> int:
    if any(salt is s for s in _MAX):
        return _native.SALT_MAX
    if any(salt is s for s in _DIGEST):
        return _native.SALT_DIGEST
    if any(salt is s for s in _AUTO):
        return _native.SALT_AUTO
    if isinstance(salt, int) and salt >= 0:
        return salt
    raise ValueError(f"invalid PSS salt length {salt!r}")


def _signature_padding(pad: Any) -> Optional[Tuple[str, int]]:
    """None for PKCS#1 v1.5, (MGF1 hash, salt code) for PSS."""
    if isinstance(pad, _PKCS1v15Types):
        return None
    if isinstance(pad, _PSSTypes):
        return _mgf1_name(pad._mgf), _salt_code(pad._salt_length)
    if isinstance(pad, _PaddingTypes):
        raise UnsupportedAlgorithm(f"{pad.name} is not a signature padding")
    raise TypeError("Padding must be an instance of AsymmetricPadding.")


def _encryption_padding(pad: Any) -> Optional[Tuple[str, str, Optional[bytes]]]:
    """None for PKCS#1 v1.5, (hash, MGF1 hash, label) for OAEP."""
    if isinstance(pad, _PKCS1v15Types):
        return None
    if isinstance(pad, _OAEPTypes):
        label = None if pad._label is None else _bytes(pad._label, "label")
        return _hash_name(pad._algorithm), _mgf1_name(pad._mgf), label
    if isinstance(pad, _PaddingTypes):
        raise UnsupportedAlgorithm(f"{pad.name} is not an encryption padding")
    raise TypeError("Padding must be an instance of AsymmetricPadding.")


_MEMBERS = {
    "Encoding": ("PEM", "DER", "OpenSSH", "Raw", "X962", "SMIME"),
    "PrivateFormat": ("PKCS8", "TraditionalOpenSSL", "Raw", "OpenSSH", "PKCS12"),
    "PublicFormat": ("SubjectPublicKeyInfo", "PKCS1", "OpenSSH", "Raw", "CompressedPoint", "UncompressedPoint"),
}


def _enum_name(value: Any, what: str) -> str:
    """The member name of a serialization choice, redc's or cryptography's
    (whose members are not ``enum.Enum`` members)."""
    classes = [getattr(serialization, what)]
    if HAVE_CRYPTOGRAPHY:
        classes.append(getattr(_cser, what))
    for cls in classes:
        if isinstance(value, cls):
            for name in _MEMBERS[what]:
                if hasattr(cls, name) and value == getattr(cls, name):
                    return name
    raise TypeError(f"{what.lower()} must be an item of the {what} enum")


def _require_cryptography(what: str) -> None:
    if not HAVE_CRYPTOGRAPHY:
        raise UnsupportedAlgorithm(f"{what} needs the cryptography package")


class RSAPrivateKey(_PrivateBase):  # type: ignore[misc, valid-type]
    """An RSA private key held by redc (a ``cryptography`` ``RSAPrivateKey``
    when cryptography is installed). Immutable; share it between threads."""

    __slots__ = ("_key",)

    def __init__(self, native: Any) -> None:
        if not isinstance(native, _native.PrivateKey):
            raise TypeError("use redc.generate_private_key, redc.load_*_private_key or redc.from_cryptography")
        self._key = native

    @classmethod
    def _from_numbers(cls, numbers: Any) -> "RSAPrivateKey":
        pn = numbers.public_numbers
        args = [pn.n, pn.e, numbers.d, numbers.p, numbers.q, numbers.dmp1, numbers.dmq1, numbers.iqmp]
        return cls(_native.PrivateKey.from_numbers(*map(_be, args)))

    @property
    def key_size(self) -> int:
        """The modulus size in bits."""
        return self._key.key_size

    def public_key(self) -> "RSAPublicKey":
        return RSAPublicKey(self._key.public_key())

    def sign(self, data: bytes, padding: Any, algorithm: Any) -> bytes:
        """Sign ``data`` (or, with ``Prehashed``, its digest): PKCS1v15 or PSS."""
        data = _bytes(data, "data")
        pss = _signature_padding(padding)
        name, prehashed = _hash_arg(algorithm)
        return self._key.sign(data, name, prehashed, pss)

    def sign_batch(self, messages: Iterable[bytes], padding: Any, algorithm: Any, threads: int = 0) -> List[bytes]:
        """``sign`` of every message, in input order, through the library's
        batch path (four signatures per eight-lane kernel run where the CPU
        has AVX-512 IFMA) on ``threads`` threads (0: every core), the GIL
        released throughout."""
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
            raise TypeError("threads must be an integer >= 0")
        msgs = [_bytes(m, "each message") for m in messages]
        pss = _signature_padding(padding)
        name, prehashed = _hash_arg(algorithm)
        return self._key.sign_batch(msgs, name, prehashed, pss, threads)

    def decrypt(self, ciphertext: bytes, padding: Any) -> bytes:
        """Decrypt: OAEP, or PKCS1v15 with implicit rejection (a ciphertext
        with bad padding gives a synthetic message derived from the key and
        the ciphertext, never an error)."""
        return self._key.decrypt(_bytes(ciphertext, "ciphertext"), _encryption_padding(padding))

    def private_numbers(self) -> Any:
        n, e, d, p, q, dp, dq, qinv = map(_int, self._key.numbers())
        return RSAPrivateNumbers(p, q, d, dp, dq, qinv, RSAPublicNumbers(e, n))

    def private_bytes(self, encoding: Any, format: Any, encryption_algorithm: Any) -> bytes:
        """PKCS#8 or TraditionalOpenSSL (PKCS#1), PEM or DER, plain or
        ``BestAvailableEncryption`` (PKCS#8: PBES2 with PBKDF2-SHA256 and
        AES-256-CBC), written by the library. Formats the library does not
        write (OpenSSH, custom encryption builders) are written by
        cryptography from the same key."""
        enc = _enum_name(encoding, "Encoding")
        fmt = _enum_name(format, "PrivateFormat")
        if not isinstance(encryption_algorithm, _EncTypes):
            raise TypeError("Encryption algorithm must be a KeySerializationEncryption instance")
        if isinstance(encryption_algorithm, _NoEncTypes):
            password = None
        elif isinstance(encryption_algorithm, _BestEncTypes):
            password = encryption_algorithm.password
        else:
            password = ...
        if enc in ("PEM", "DER") and fmt in ("PKCS8", "TraditionalOpenSSL") and password is not ...:
            kind = "pkcs8" if fmt == "PKCS8" else "pkcs1"
            return self._key.to_file(kind, enc == "DER", password)
        if fmt == "OpenSSH" or password is ...:
            _require_cryptography(f"private_bytes({enc}, {fmt})")
            return self.to_cryptography().private_bytes(encoding, format, encryption_algorithm)
        raise ValueError(f"redc cannot write an RSA private key as {enc} {fmt}")

    def to_cryptography(self) -> Any:
        """The same key as a cryptography (OpenSSL) key."""
        _require_cryptography("to_cryptography()")
        return _cser.load_der_private_key(self._key.to_file("pkcs8", True), None)

    def __copy__(self) -> "RSAPrivateKey":
        return self

    def __deepcopy__(self, memo: Any) -> "RSAPrivateKey":
        return self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RSAPrivateKey):
            return self._key.same_key(other._key)
        if HAVE_CRYPTOGRAPHY and isinstance(other, _crsa.RSAPrivateKey):
            return self.public_key().public_numbers() == other.public_key().public_numbers()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("redc.RSAPrivateKey", self._key.public_key().numbers()))

    def __repr__(self) -> str:
        return f"<redc.RSAPrivateKey {self.key_size} bits>"


class RSAPublicKey(_PublicBase):  # type: ignore[misc, valid-type]
    """An RSA public key held by redc (a ``cryptography`` ``RSAPublicKey``
    when cryptography is installed)."""

    __slots__ = ("_key",)

    def __init__(self, native: Any) -> None:
        if not isinstance(native, _native.PublicKey):
            raise TypeError("use redc.load_*_public_key, key.public_key() or redc.from_cryptography")
        self._key = native

    @classmethod
    def _from_numbers(cls, numbers: Any) -> "RSAPublicKey":
        return cls(_native.PublicKey.from_numbers(_be(numbers.n), _be(numbers.e)))

    @property
    def key_size(self) -> int:
        return self._key.key_size

    def verify(self, signature: bytes, data: bytes, padding: Any, algorithm: Any) -> None:
        """Return if ``signature`` is valid, else raise ``InvalidSignature``."""
        signature = _bytes(signature, "signature")
        data = _bytes(data, "data")
        pss = _signature_padding(padding)
        name, prehashed = _hash_arg(algorithm)
        if not self._key.verify(signature, data, name, prehashed, pss):
            raise InvalidSignature()

    def recover_data_from_signature(self, signature: bytes, padding: Any, algorithm: Any) -> bytes:
        """The digest a PKCS1v15 signature holds (``algorithm`` None: the
        whole DigestInfo)."""
        signature = _bytes(signature, "signature")
        if not isinstance(padding, _PKCS1v15Types):
            if isinstance(padding, _PaddingTypes):
                raise UnsupportedAlgorithm("recover_data_from_signature supports PKCS1v15 only")
            raise TypeError("Padding must be an instance of AsymmetricPadding.")
        name = None if algorithm is None else _hash_arg(algorithm)[0]
        out = self._key.recover(signature, name)
        if out is None:
            raise InvalidSignature()
        return out

    def encrypt(self, plaintext: bytes, padding: Any) -> bytes:
        return self._key.encrypt(_bytes(plaintext, "plaintext"), _encryption_padding(padding))

    def public_numbers(self) -> Any:
        n, e = self._key.numbers()
        return RSAPublicNumbers(_int(e), _int(n))

    def public_bytes(self, encoding: Any, format: Any) -> bytes:
        """SubjectPublicKeyInfo or PKCS1, PEM or DER, written by the library;
        OpenSSH by cryptography from the same key."""
        enc = _enum_name(encoding, "Encoding")
        fmt = _enum_name(format, "PublicFormat")
        if enc in ("PEM", "DER") and fmt in ("SubjectPublicKeyInfo", "PKCS1"):
            return self._key.to_file("spki" if fmt == "SubjectPublicKeyInfo" else "pkcs1", enc == "DER")
        if fmt == "OpenSSH":
            _require_cryptography(f"public_bytes({enc}, {fmt})")
            return self.to_cryptography().public_bytes(encoding, format)
        raise ValueError(f"redc cannot write an RSA public key as {enc} {fmt}")

    def to_cryptography(self) -> Any:
        """The same key as a cryptography (OpenSSL) key."""
        _require_cryptography("to_cryptography()")
        return _cser.load_der_public_key(self._key.to_file("spki", True))

    def __copy__(self) -> "RSAPublicKey":
        return self

    def __deepcopy__(self, memo: Any) -> "RSAPublicKey":
        return self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RSAPublicKey):
            return self._key.same_key(other._key)
        if HAVE_CRYPTOGRAPHY and isinstance(other, _crsa.RSAPublicKey):
            return self.public_numbers() == other.public_numbers()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key.numbers())

    def __repr__(self) -> str:
        return f"<redc.RSAPublicKey {self.key_size} bits>"


def _load_private(data: bytes, password: Any) -> RSAPrivateKey:
    if password is not None:
        password = _bytes(password, "password")
    try:
        return RSAPrivateKey(_native.load_private_key(data, password))
    except _native.PasswordError as e:
        raise PasswordError(str(e)) from None


def _is_pem(data: bytes) -> bool:
    return b"-----BEGIN " in data


def generate_private_key(public_exponent: int, key_size: int, backend: Any = None) -> RSAPrivateKey:
    """A new key (public exponent 65537 in practice), from the operating
    system's generator; the GIL is released while the primes are found."""
    for v, what in ((public_exponent, "public_exponent"), (key_size, "key_size")):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{what} must be an integer")
    if public_exponent < 3 or public_exponent % 2 == 0 or public_exponent >= 2**64:
        raise ValueError("public_exponent must be odd, at least 3 and below 2^64 (65537 in practice)")
    if key_size < 0:
        raise ValueError("key_size must not be negative")
    return RSAPrivateKey(_native.generate(key_size, public_exponent))


def load_pem_private_key(
    data: bytes, password: Optional[bytes], backend: Any = None, *, unsafe_skip_rsa_key_validation: bool = False
) -> RSAPrivateKey:
    """A private key from PEM: PKCS#8 (``PRIVATE KEY``), PKCS#1 (``RSA
    PRIVATE KEY``), encrypted PKCS#8 (``ENCRYPTED PRIVATE KEY``: PBES2 with
    PBKDF2 or scrypt, AES or 3DES; PKCS#12 3DES) or OpenSSL's legacy
    encrypted PEM. Every key is validated."""
    data = _bytes(data, "data")
    if not _is_pem(data):
        raise ValueError("not a PEM key (no '-----BEGIN ' line); use load_der_private_key for DER")
    return _load_private(data, password)


def load_der_private_key(
    data: bytes, password: Optional[bytes], backend: Any = None, *, unsafe_skip_rsa_key_validation: bool = False
) -> RSAPrivateKey:
    """A private key from DER: PKCS#8, PKCS#1 or encrypted PKCS#8."""
    data = _bytes(data, "data")
    if _is_pem(data):
        raise ValueError("this is a PEM key; use load_pem_private_key")
    return _load_private(data, password)


def load_pem_public_key(data: bytes, backend: Any = None) -> RSAPublicKey:
    """A public key from PEM: SubjectPublicKeyInfo (``PUBLIC KEY``) or
    PKCS#1 (``RSA PUBLIC KEY``). As the library reads them, a private key
    file gives its public half."""
    data = _bytes(data, "data")
    if not _is_pem(data):
        raise ValueError("not a PEM key (no '-----BEGIN ' line); use load_der_public_key for DER")
    return RSAPublicKey(_native.load_public_key(data))


def load_der_public_key(data: bytes, backend: Any = None) -> RSAPublicKey:
    """A public key from DER: SubjectPublicKeyInfo or PKCS#1."""
    data = _bytes(data, "data")
    if _is_pem(data):
        raise ValueError("this is a PEM key; use load_pem_public_key")
    return RSAPublicKey(_native.load_public_key(data))


def from_cryptography(key: Any) -> Union[RSAPrivateKey, RSAPublicKey]:
    """redc's key for a cryptography RSA key (private or public); a redc key
    is returned as it is."""
    if isinstance(key, (RSAPrivateKey, RSAPublicKey)):
        return key
    if HAVE_CRYPTOGRAPHY and isinstance(key, _crsa.RSAPrivateKey):
        der = key.private_bytes(_cser.Encoding.DER, _cser.PrivateFormat.PKCS8, _cser.NoEncryption())
        return RSAPrivateKey(_native.load_private_key(der, None))
    if HAVE_CRYPTOGRAPHY and isinstance(key, _crsa.RSAPublicKey):
        der = key.public_bytes(_cser.Encoding.DER, _cser.PublicFormat.SubjectPublicKeyInfo)
        return RSAPublicKey(_native.load_public_key(der))
    raise TypeError(f"expected a cryptography RSA key, not {type(key).__name__}")


def thread_count(threads: int = 0) -> int:
    """The threads ``sign_batch(..., threads)`` uses (0: every core)."""
    return _native.thread_count(threads)
