"""Keys shared by the tests: made by pyca/cryptography (the independent
oracle) and loaded into redc, plus one made by redc."""

import pytest

cryptography = pytest.importorskip("cryptography")

from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402

import redc  # noqa: E402


@pytest.fixture(scope="session", params=[2048, 1025], ids=lambda b: f"rsa{b}")
def pair(request):
    """(cryptography private key, the same key in redc). 1025 bits: emBits
    a multiple of 8, where the PSS encoding is one byte shorter than n."""
    ckey = rsa.generate_private_key(65537, request.param)
    return ckey, redc.from_cryptography(ckey)


@pytest.fixture(scope="session")
def pair2048():
    ckey = rsa.generate_private_key(65537, 2048)
    return ckey, redc.from_cryptography(ckey)
