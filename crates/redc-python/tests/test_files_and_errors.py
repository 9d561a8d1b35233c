"""Key files both ways with pyca/cryptography, PyJWT tokens both ways, and
every bad input as a Python exception (a fuzz-style loop included)."""

import random
import subprocess
import sys

import pytest
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, utils

import redc

ENC = [serialization.Encoding.PEM, serialization.Encoding.DER]
PRIV_FMT = [serialization.PrivateFormat.PKCS8, serialization.PrivateFormat.TraditionalOpenSSL]
PUB_FMT = [serialization.PublicFormat.SubjectPublicKeyInfo, serialization.PublicFormat.PKCS1]


def load_private(data, password):
    if data.startswith(b"-----"):
        return redc.load_pem_private_key(data, password)
    return redc.load_der_private_key(data, password)


@pytest.mark.parametrize("enc", ENC, ids=["PEM", "DER"])
@pytest.mark.parametrize("fmt", PRIV_FMT, ids=["PKCS8", "PKCS1"])
@pytest.mark.parametrize("password", [None, b"correct horse"], ids=["plain", "encrypted"])
def test_private_key_files_both_ways(pair2048, enc, fmt, password):
    ckey, key = pair2048
    encryption = serialization.NoEncryption() if password is None else serialization.BestAvailableEncryption(password)
    if password and enc == serialization.Encoding.DER and fmt == serialization.PrivateFormat.TraditionalOpenSSL:
        # Neither writes an encrypted PKCS#1 DER (it has no such form).
        with pytest.raises(ValueError):
            key.private_bytes(enc, fmt, encryption)
        with pytest.raises(ValueError):
            ckey.private_bytes(enc, fmt, encryption)
        return
    ours = key.private_bytes(enc, fmt, encryption)
    load = serialization.load_pem_private_key if enc == serialization.Encoding.PEM else serialization.load_der_private_key
    assert load(ours, password).private_numbers() == ckey.private_numbers()
    if password is None:
        # Unencrypted files are canonical DER: the same bytes as OpenSSL's.
        assert ours == ckey.private_bytes(enc, fmt, encryption)
    theirs = ckey.private_bytes(enc, fmt, encryption)
    assert load_private(theirs, password).private_numbers() == ckey.private_numbers()
    if password is not None:
        with pytest.raises(ValueError):
            load_private(theirs, b"wrong password")
        with pytest.raises(TypeError):  # what cryptography raises, too
            load_private(theirs, None)
        with pytest.raises(redc.PasswordError):
            load_private(theirs, None)
    else:
        with pytest.raises(redc.PasswordError):
            load_private(theirs, b"not encrypted")


@pytest.mark.parametrize("enc", ENC, ids=["PEM", "DER"])
@pytest.mark.parametrize("fmt", PUB_FMT, ids=["SPKI", "PKCS1"])
def test_public_key_files_both_ways(pair2048, enc, fmt):
    ckey, key = pair2048
    ours = key.public_key().public_bytes(enc, fmt)
    assert ours == ckey.public_key().public_bytes(enc, fmt)
    load = redc.load_pem_public_key if enc == serialization.Encoding.PEM else redc.load_der_public_key
    assert load(ours).public_numbers() == ckey.public_key().public_numbers()


def test_openssh_files_are_written_by_cryptography(pair2048):
    ckey, key = pair2048
    ssh = serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    assert key.public_key().public_bytes(*ssh) == ckey.public_key().public_bytes(*ssh)
    data = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption())
    assert serialization.load_ssh_private_key(data, None).private_numbers() == ckey.private_numbers()


def test_pyjwt_tokens_both_ways(pair2048):
    jwt = pytest.importorskip("jwt")
    ckey, key = pair2048
    payload = {"sub": "42", "iss": "redc", "scope": ["a", "b"]}
    for alg in ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"):
        token = jwt.encode(payload, key, algorithm=alg)
        assert jwt.decode(token, ckey.public_key(), algorithms=[alg]) == payload
        assert jwt.decode(token, key.public_key(), algorithms=[alg]) == payload
        ctoken = jwt.encode(payload, ckey, algorithm=alg)
        assert jwt.decode(ctoken, key.public_key(), algorithms=[alg]) == payload
        if alg.startswith("RS"):
            assert token == ctoken  # deterministic signatures
        head, body, sig = token.split(".")
        forged = jwt.encode({"sub": "43"}, key, algorithm=alg).split(".")[1]
        with pytest.raises(jwt.InvalidSignatureError):
            jwt.decode(".".join([head, forged, sig]), key.public_key(), algorithms=[alg])
    # A key file PyJWT is given as PEM text goes through cryptography; a redc
    # key object is used as it is.
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert jwt.decode(jwt.encode(payload, key, algorithm="RS256"), pem, algorithms=["RS256"]) == payload


def test_argument_errors(pair2048):
    ckey, key = pair2048
    pub = key.public_key()
    with pytest.raises(TypeError):
        key.sign("text", padding.PKCS1v15(), hashes.SHA256())
    with pytest.raises(TypeError):
        key.sign(b"x", "PKCS1v15", hashes.SHA256())
    with pytest.raises(TypeError):
        key.sign(b"x", padding.PKCS1v15(), "sha256")
    with pytest.raises(UnsupportedAlgorithm):
        key.sign(b"x", padding.PKCS1v15(), hashes.MD5())
    with pytest.raises(UnsupportedAlgorithm):
        key.sign(b"x", padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), None), hashes.SHA256())
    with pytest.raises(ValueError):
        key.sign(b"x", padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.AUTO), hashes.SHA256())
    with pytest.raises(ValueError):
        key.sign(b"x", padding.PSS(padding.MGF1(hashes.SHA256()), 300), hashes.SHA256())
    with pytest.raises(ValueError):
        pub.verify(b"\0" * 256, b"short", padding.PKCS1v15(), utils.Prehashed(hashes.SHA256()))
    with pytest.raises(InvalidSignature):
        pub.verify(b"\0" * 10, b"x", padding.PKCS1v15(), hashes.SHA256())
    with pytest.raises(InvalidSignature):
        pub.verify(b"\xff" * 256, b"x", padding.PKCS1v15(), hashes.SHA256())
    with pytest.raises(ValueError, match="needs exactly 256"):
        key.decrypt(b"\0" * 255, padding.PKCS1v15())
    with pytest.raises(ValueError):
        key.decrypt(b"\xff" * 256, padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), None))
    with pytest.raises(TypeError):
        key.private_bytes("PEM", serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with pytest.raises(TypeError):
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, None)
    with pytest.raises(ValueError):
        key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    with pytest.raises(ValueError):
        pub.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.Raw)
    with pytest.raises(TypeError):
        redc.generate_private_key(65537.0, 2048)
    with pytest.raises(ValueError):
        redc.generate_private_key(65536, 2048)
    with pytest.raises(ValueError, match="unsupported RSA key size"):
        redc.generate_private_key(65537, 256)
    with pytest.raises(TypeError):
        redc.RSAPrivateKey(object())


def test_key_file_errors(pair2048):
    ckey, key = pair2048
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with pytest.raises(ValueError, match="not a PEM"):
        redc.load_pem_private_key(der, None)
    with pytest.raises(ValueError, match="PEM"):
        redc.load_der_private_key(pem, None)
    with pytest.raises(TypeError):
        redc.load_pem_private_key(pem.decode(), None)
    with pytest.raises(TypeError):
        redc.load_pem_private_key(pem, "password as str")
    with pytest.raises(ValueError, match="malformed"):
        redc.load_pem_private_key(pem.replace(b"\nMII", b"\nMI!"), None)
    pub_pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    with pytest.raises(ValueError, match="public key"):
        redc.load_pem_private_key(pub_pem, None)
    eckey = ec.generate_private_key(ec.SECP256R1())
    ec_pem = eckey.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with pytest.raises(ValueError, match="not an RSA key"):
        redc.load_pem_private_key(ec_pem, None)
    with pytest.raises(ValueError):
        redc.load_der_public_key(b"\x30\x03\x02\x01\x01")


def test_fuzz_malformed_files_signatures_and_ciphertexts(pair2048):
    """Mutated key files, signatures and ciphertexts: each call returns or
    raises the documented exception; the interpreter survives them all."""
    ckey, key = pair2048
    pub = key.public_key()
    rng = random.Random(40)
    small = redc.generate_private_key(65537, 1024)
    seeds = [
        (small.private_bytes(e, f, serialization.NoEncryption()), True)
        for e in ENC
        for f in PRIV_FMT
    ] + [(small.public_key().public_bytes(e, f), False) for e in ENC for f in PUB_FMT]
    seeds.append((small.private_bytes(ENC[0], PRIV_FMT[0], serialization.BestAvailableEncryption(b"pw")), True))

    def mutate(data):
        data = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            op = rng.randrange(4)
            i = rng.randrange(len(data)) if data else 0
            if op == 0 and data:
                data[i] ^= 1 << rng.randrange(8)
            elif op == 1:
                del data[i:]
            elif op == 2:
                data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            elif data:
                data[i] = rng.choice(b"\x00\x30\x02\x80\xff-=\nA")
        return bytes(data)

    loaded = rejected = 0
    for _ in range(1500):
        data, private = rng.choice(seeds)
        bad = mutate(data)
        pem = bad.startswith(b"-----")
        try:
            if private:
                (redc.load_pem_private_key if pem else redc.load_der_private_key)(bad, b"pw" if b"ENCRYPTED" in bad else None)
            else:
                (redc.load_pem_public_key if pem else redc.load_der_public_key)(bad)
            loaded += 1
        except ValueError:
            rejected += 1
    assert rejected > 1000  # most mutations break the file
    sig = key.sign(b"m", padding.PKCS1v15(), hashes.SHA256())
    pss = padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.AUTO)
    for _ in range(300):
        with pytest.raises(InvalidSignature):
            pub.verify(mutate(sig), b"m", rng.choice([padding.PKCS1v15(), pss]), hashes.SHA256())
    ct = pub.encrypt(b"secret", padding.PKCS1v15())
    oaep = padding.OAEP(padding.MGF1(hashes.SHA1()), hashes.SHA1(), None)
    for _ in range(200):
        bad = mutate(ct)
        try:
            key.decrypt(bad, rng.choice([padding.PKCS1v15(), oaep]))
        except ValueError:
            pass


def test_without_cryptography_redc_objects_work():
    """In a process where cryptography cannot be imported, redc's own
    padding, hash and serialization objects drive the same methods."""
    code = r"""
import sys
sys.modules["cryptography"] = None
import redc
from redc import hashes, padding, serialization, utils
assert not redc.HAVE_CRYPTOGRAPHY
key = redc.generate_private_key(65537, 1024)
pub = key.public_key()
for pad in (padding.PKCS1v15(), padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.MAX_LENGTH)):
    sig = key.sign(b"msg", pad, hashes.SHA256())
    pub.verify(sig, b"msg", pad, hashes.SHA256())
    try:
        pub.verify(sig, b"other", pad, hashes.SHA256())
        raise SystemExit("a bad signature verified")
    except redc.InvalidSignature:
        pass
d = b"\x11" * 32
sig = key.sign(d, padding.PKCS1v15(), utils.Prehashed(hashes.SHA256()))
pub.verify(sig, d, padding.PKCS1v15(), utils.Prehashed(hashes.SHA256()))
assert len(key.sign_batch([b"a", b"b", b"c"], padding.PKCS1v15(), hashes.SHA384())) == 3
oaep = padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), b"l")
assert key.decrypt(pub.encrypt(b"hi", oaep), oaep) == b"hi"
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                        serialization.BestAvailableEncryption(b"pw"))
assert redc.load_pem_private_key(pem, b"pw") == key
der = pub.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
assert redc.load_der_public_key(der) == pub
n = key.private_numbers()
assert n.p * n.q == n.public_numbers.n and n.private_key() == key
try:
    key.to_cryptography()
    raise SystemExit("to_cryptography without cryptography")
except redc.UnsupportedAlgorithm:
    pass
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
