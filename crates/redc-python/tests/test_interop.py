"""redc against pyca/cryptography (OpenSSL) as the oracle: every signature
padding and hash both ways, encryption both ways, batch signing."""

import copy
import os

import pytest
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils

import redc

HASHES = [
    hashes.SHA1,
    hashes.SHA224,
    hashes.SHA256,
    hashes.SHA384,
    hashes.SHA512,
    hashes.SHA512_224,
    hashes.SHA512_256,
    hashes.SHA3_224,
    hashes.SHA3_256,
    hashes.SHA3_384,
    hashes.SHA3_512,
]
MSG = b"redc from Python: the message both implementations sign"


def digest(h, data):
    d = hashes.Hash(h)
    d.update(data)
    return d.finalize()


def test_keys_are_cryptography_keys(pair):
    ckey, key = pair
    assert isinstance(key, rsa.RSAPrivateKey)
    assert isinstance(key.public_key(), rsa.RSAPublicKey)
    assert key.key_size == ckey.key_size
    assert key.public_key().key_size == ckey.key_size
    assert key.private_numbers() == ckey.private_numbers()
    assert key.public_key().public_numbers() == ckey.public_key().public_numbers()


@pytest.mark.parametrize("h", HASHES, ids=lambda h: h.name)
def test_pkcs1v15_sign_matches_openssl_byte_for_byte(pair, h):
    ckey, key = pair
    sig = key.sign(MSG, padding.PKCS1v15(), h())
    # PKCS#1 v1.5 is deterministic: the oracle's signature is the same bytes.
    assert sig == ckey.sign(MSG, padding.PKCS1v15(), h())
    ckey.public_key().verify(sig, MSG, padding.PKCS1v15(), h())
    key.public_key().verify(ckey.sign(MSG, padding.PKCS1v15(), h()), MSG, padding.PKCS1v15(), h())
    with pytest.raises(InvalidSignature):
        key.public_key().verify(sig, MSG + b"!", padding.PKCS1v15(), h())


@pytest.mark.parametrize("h", HASHES, ids=lambda h: h.name)
@pytest.mark.parametrize("salt", ["digest", "max", 0, 17], ids=str)
def test_pss_both_ways(pair, h, salt):
    ckey, key = pair
    salt_arg = {"digest": padding.PSS.DIGEST_LENGTH, "max": padding.PSS.MAX_LENGTH}.get(salt, salt)
    pss = padding.PSS(mgf=padding.MGF1(h()), salt_length=salt_arg)
    em_len = (ckey.key_size - 1 + 7) // 8
    salt_len = {"digest": h.digest_size, "max": 0}.get(salt, salt)
    if em_len < h.digest_size + salt_len + 2:
        # Does not fit (1025 bits, 64-byte hash and salt): both refuse.
        with pytest.raises(ValueError):
            ckey.sign(MSG, pss, h())
        with pytest.raises(ValueError):
            key.sign(MSG, pss, h())
        return
    sig = key.sign(MSG, pss, h())
    ckey.public_key().verify(sig, MSG, pss, h())
    ckey.public_key().verify(sig, MSG, padding.PSS(padding.MGF1(h()), padding.PSS.AUTO), h())
    csig = ckey.sign(MSG, pss, h())
    key.public_key().verify(csig, MSG, pss, h())
    key.public_key().verify(csig, MSG, padding.PSS(padding.MGF1(h()), padding.PSS.AUTO), h())
    bad = bytearray(csig)
    bad[len(bad) // 2] ^= 0x10
    with pytest.raises(InvalidSignature):
        key.public_key().verify(bytes(bad), MSG, pss, h())
    with pytest.raises(InvalidSignature):
        key.public_key().verify(csig, MSG + b"!", pss, h())


def test_pss_salt_length_is_checked(pair2048):
    ckey, key = pair2048
    sig = ckey.sign(MSG, padding.PSS(padding.MGF1(hashes.SHA256()), 20), hashes.SHA256())
    key.public_key().verify(sig, MSG, padding.PSS(padding.MGF1(hashes.SHA256()), 20), hashes.SHA256())
    with pytest.raises(InvalidSignature):
        key.public_key().verify(sig, MSG, padding.PSS(padding.MGF1(hashes.SHA256()), 32), hashes.SHA256())
    with pytest.raises(InvalidSignature):
        key.public_key().verify(sig, MSG, padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.MAX_LENGTH), hashes.SHA256())


@pytest.mark.parametrize("mgf", [hashes.SHA1, hashes.SHA512], ids=lambda h: h.name)
def test_pss_mgf1_over_another_hash(pair2048, mgf):
    ckey, key = pair2048
    pss = padding.PSS(mgf=padding.MGF1(mgf()), salt_length=padding.PSS.DIGEST_LENGTH)
    sig = key.sign(MSG, pss, hashes.SHA256())
    ckey.public_key().verify(sig, MSG, pss, hashes.SHA256())
    key.public_key().verify(ckey.sign(MSG, pss, hashes.SHA256()), MSG, pss, hashes.SHA256())
    with pytest.raises(InvalidSignature):
        same = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=padding.PSS.DIGEST_LENGTH)
        key.public_key().verify(sig, MSG, same, hashes.SHA256())


@pytest.mark.parametrize("h", [hashes.SHA256, hashes.SHA384, hashes.SHA3_512], ids=lambda h: h.name)
def test_prehashed_both_ways(pair2048, h):
    ckey, key = pair2048
    d = digest(h(), MSG)
    for pad in (padding.PKCS1v15(), padding.PSS(padding.MGF1(h()), padding.PSS.DIGEST_LENGTH)):
        sig = key.sign(d, pad, utils.Prehashed(h()))
        ckey.public_key().verify(sig, MSG, pad, h())
        ckey.public_key().verify(sig, d, pad, utils.Prehashed(h()))
        key.public_key().verify(ckey.sign(d, pad, utils.Prehashed(h())), d, pad, utils.Prehashed(h()))
        key.public_key().verify(sig, MSG, pad, h())
    with pytest.raises(ValueError):
        key.sign(d[:-1], padding.PKCS1v15(), utils.Prehashed(h()))


OAEP_CASES = [
    (hashes.SHA1, hashes.SHA1, None),
    (hashes.SHA256, hashes.SHA256, None),
    (hashes.SHA256, hashes.SHA1, b"label"),
    (hashes.SHA384, hashes.SHA384, b""),
    (hashes.SHA512, hashes.SHA256, b"a longer label \x00 with a zero byte"),
    (hashes.SHA224, hashes.SHA224, None),
]


@pytest.mark.parametrize("h,mgf,label", OAEP_CASES, ids=lambda v: getattr(v, "name", repr(v)))
def test_oaep_both_ways(pair2048, h, mgf, label):
    ckey, key = pair2048
    oaep = padding.OAEP(mgf=padding.MGF1(mgf()), algorithm=h(), label=label)
    for msg in (b"", b"secret", os.urandom(256 - 2 * h().digest_size - 2)):
        ct = key.public_key().encrypt(msg, oaep)
        assert ckey.decrypt(ct, oaep) == msg
        assert key.decrypt(ckey.public_key().encrypt(msg, oaep), oaep) == msg
    ct = ckey.public_key().encrypt(b"secret", oaep)
    other = padding.OAEP(mgf=padding.MGF1(mgf()), algorithm=h(), label=(label or b"") + b"x")
    with pytest.raises(ValueError):
        key.decrypt(ct, other)
    with pytest.raises(ValueError):
        key.public_key().encrypt(b"x" * (256 - 2 * h().digest_size - 1), oaep)


def test_pkcs1v15_encryption_both_ways_and_implicit_rejection(pair):
    ckey, key = pair
    k = (ckey.key_size + 7) // 8
    for msg in (b"", b"secret", os.urandom(k - 11)):
        ct = key.public_key().encrypt(msg, padding.PKCS1v15())
        assert ckey.decrypt(ct, padding.PKCS1v15()) == msg
        assert key.decrypt(ckey.public_key().encrypt(msg, padding.PKCS1v15()), padding.PKCS1v15()) == msg
    with pytest.raises(ValueError):
        key.public_key().encrypt(b"x" * (k - 10), padding.PKCS1v15())
    ct = bytearray(ckey.public_key().encrypt(b"secret", padding.PKCS1v15()))
    ct[3] ^= 0x40
    synthetic = key.decrypt(bytes(ct), padding.PKCS1v15())
    assert synthetic != b"secret"
    assert synthetic == key.decrypt(bytes(ct), padding.PKCS1v15())
    try:
        theirs = ckey.decrypt(bytes(ct), padding.PKCS1v15())
    except ValueError:
        print("SKIPPED: this OpenSSL rejects bad PKCS#1 v1.5 padding explicitly")
        return
    # Both implement the implicit rejection of draft-irtf-cfrg-rsa-guidance.
    assert synthetic == theirs


def test_recover_data_from_signature(pair2048):
    ckey, key = pair2048
    sig = ckey.sign(MSG, padding.PKCS1v15(), hashes.SHA256())
    pub, cpub = key.public_key(), ckey.public_key()
    assert pub.recover_data_from_signature(sig, padding.PKCS1v15(), hashes.SHA256()) == digest(hashes.SHA256(), MSG)
    assert pub.recover_data_from_signature(sig, padding.PKCS1v15(), None) == cpub.recover_data_from_signature(
        sig, padding.PKCS1v15(), None
    )
    with pytest.raises(InvalidSignature):
        pub.recover_data_from_signature(sig, padding.PKCS1v15(), hashes.SHA384())
    with pytest.raises(UnsupportedAlgorithm):
        pub.recover_data_from_signature(sig, padding.PSS(padding.MGF1(hashes.SHA256()), 32), hashes.SHA256())


@pytest.mark.parametrize("threads", [0, 1, 2])
@pytest.mark.parametrize("count", [0, 1, 5, 13])
def test_sign_batch_pkcs1v15_is_the_single_signatures_in_order(pair2048, threads, count):
    ckey, key = pair2048
    msgs = [b"message %d" % i for i in range(count)]
    sigs = key.sign_batch(msgs, padding.PKCS1v15(), hashes.SHA256(), threads=threads)
    assert len(sigs) == count
    for m, s in zip(msgs, sigs):
        assert s == ckey.sign(m, padding.PKCS1v15(), hashes.SHA256())


@pytest.mark.parametrize("mgf", [hashes.SHA256, hashes.SHA1], ids=lambda h: h.name)
def test_sign_batch_pss_verifies_with_openssl(pair2048, mgf):
    ckey, key = pair2048
    pss = padding.PSS(padding.MGF1(mgf()), padding.PSS.MAX_LENGTH)
    msgs = [os.urandom(i) for i in range(11)]
    sigs = key.sign_batch(msgs, pss, hashes.SHA256(), threads=2)
    for m, s in zip(msgs, sigs):
        ckey.public_key().verify(s, m, pss, hashes.SHA256())
    with pytest.raises(InvalidSignature):
        ckey.public_key().verify(sigs[0], msgs[1], pss, hashes.SHA256())


def test_sign_batch_prehashed_and_errors(pair2048):
    ckey, key = pair2048
    ds = [digest(hashes.SHA256(), bytes([i])) for i in range(6)]
    sigs = key.sign_batch(ds, padding.PKCS1v15(), utils.Prehashed(hashes.SHA256()))
    for i, s in enumerate(sigs):
        ckey.public_key().verify(s, bytes([i]), padding.PKCS1v15(), hashes.SHA256())
    with pytest.raises(ValueError, match="message 2"):
        key.sign_batch(ds[:2] + [b"short"], padding.PKCS1v15(), utils.Prehashed(hashes.SHA256()))
    with pytest.raises(TypeError):
        key.sign_batch(["text"], padding.PKCS1v15(), hashes.SHA256())
    with pytest.raises(TypeError):
        key.sign_batch([b"x"], padding.PKCS1v15(), hashes.SHA256(), threads=-1)


def test_threads_share_a_key(pair2048):
    from concurrent.futures import ThreadPoolExecutor

    ckey, key = pair2048
    with ThreadPoolExecutor(4) as pool:
        sigs = list(pool.map(lambda i: key.sign(b"%d" % i, padding.PKCS1v15(), hashes.SHA256()), range(16)))
    for i, s in enumerate(sigs):
        assert s == ckey.sign(b"%d" % i, padding.PKCS1v15(), hashes.SHA256())


def test_copy_equality_and_conversion(pair2048):
    ckey, key = pair2048
    assert copy.copy(key) is key and copy.deepcopy(key) is key
    pub = key.public_key()
    assert copy.copy(pub) is pub and copy.deepcopy(pub) is pub
    assert key == redc.from_cryptography(ckey)
    assert key == ckey and pub == ckey.public_key()
    assert pub == redc.from_cryptography(ckey.public_key())
    assert hash(pub) == hash(redc.from_cryptography(ckey.public_key()))
    other = redc.generate_private_key(65537, 1024)
    assert key != other and pub != other.public_key()
    back = key.to_cryptography()
    assert isinstance(back, rsa.RSAPrivateKey) and not isinstance(back, redc.RSAPrivateKey)
    assert back.private_numbers() == ckey.private_numbers()
    assert pub.to_cryptography().public_numbers() == ckey.public_key().public_numbers()
    assert redc.from_cryptography(key) is key
    with pytest.raises(TypeError):
        redc.from_cryptography("not a key")


def test_generated_key_works_with_openssl():
    key = redc.generate_private_key(65537, 2048)
    assert key.key_size == 2048 and key.public_key().public_numbers().e == 65537
    ckey = key.to_cryptography()
    sig = key.sign(MSG, padding.PKCS1v15(), hashes.SHA256())
    assert sig == ckey.sign(MSG, padding.PKCS1v15(), hashes.SHA256())
    nums = key.private_numbers()
    assert nums.p * nums.q == nums.public_numbers.n
    assert nums.private_key().private_numbers() == nums


def test_the_gil_is_released_while_signing(pair2048):
    """Python code runs in another thread while sign_batch works: the main
    thread wakes as soon as the worker releases the GIL (or only after it
    returns, were the GIL held) and counts while the worker is busy."""
    import threading

    ckey, key = pair2048
    msgs = [b"%d" % i for i in range(200)]
    started = threading.Event()
    out = []

    def work():
        started.set()
        out.append(key.sign_batch(msgs, padding.PKCS1v15(), hashes.SHA256(), threads=1))

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    count = 0
    while worker.is_alive():
        count += 1
    worker.join()
    assert len(out[0]) == 200
    assert count > 1000, f"only {count} iterations ran beside sign_batch"
