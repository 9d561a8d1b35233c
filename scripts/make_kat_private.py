#!/usr/bin/env python3
"""Write crates/redc/tests/data/private_kat_vectors.txt: fixed RSA private
keys with known answers of the private operation, for tests/kat_backends.rs.

Run once; the output is committed (the test does not run this script).
Sources of the expected values:
- RSAES-OAEP decryptions of the RFC 8017 / PKCS #1 v2.1 examples (keys 1
  and 2 of oaep-vect.txt, as transcribed in tests/data/oaep_rfc8017_vectors.txt:
  n, e, d, c, msg); p and q are recovered from (n, e, d) here.
- Raw RSA (c^d mod n): the openssl binary,
  `openssl pkeyutl -decrypt -inkey KEY.pem -pkeyopt rsa_padding_mode:none`.
- RSASSA-PKCS1-v1_5 SHA-256 signatures: `openssl dgst -sha256 -sign KEY.pem`.
- Keys other than the RFC ones: `openssl genrsa BITS`, and one key with
  primes of different lengths from `openssl prime -generate -bits 960/1088`
  written as PKCS#1 by pyca/cryptography (RSAPrivateNumbers).
Usage: python3 scripts/make_kat_private.py > crates/redc/tests/data/private_kat_vectors.txt
       python3 scripts/make_kat_private.py --only BITS >> ...: one more `openssl genrsa BITS` key
"""

import math
import os
import random
import re
import subprocess
import sys
import tempfile

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

HERE = os.path.dirname(os.path.abspath(__file__))
OAEP = os.path.join(HERE, "..", "crates", "redc", "tests", "data", "oaep_rfc8017_vectors.txt")
RNG = random.Random(14)


def run(args, data=None):
    return subprocess.run(args, input=data, check=True, capture_output=True).stdout


def factor(n, e, d):
    """p, q from n, e, d (RFC 8017 does not need it; the classic method)."""
    k = e * d - 1
    t = (k & -k).bit_length() - 1
    r = k >> t
    for g in range(2, 1000):
        y = pow(g, r, n)
        if y in (1, n - 1):
            continue
        for _ in range(t):
            x = pow(y, 2, n)
            if x == 1:
                p = math.gcd(y - 1, n)
                return max(p, n // p), min(p, n // p)
            if x == n - 1:
                break
            y = x
    raise SystemExit("cannot factor")


def pem_of(n, e, d, p, q):
    numbers = rsa.RSAPrivateNumbers(
        p, q, d, d % (p - 1), d % (q - 1), rsa.rsa_crt_iqmp(p, q), rsa.RSAPublicNumbers(e, n)
    )
    return numbers.private_key().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )


def numbers_of(pem):
    key = serialization.load_pem_private_key(pem, password=None)
    v = key.private_numbers()
    return v.public_numbers.n, v.public_numbers.e, v.d, v.p, v.q


def hx(x):
    """Even-length hex of a positive integer."""
    h = f"{x:x}"
    return "0" * (len(h) % 2) + h


def hexk(x, k):
    return x.to_bytes(k, "big").hex()


def block(name, source, pem, oaep_cases=()):
    n, e, d, p, q = numbers_of(pem)
    k = (n.bit_length() + 7) // 8
    out = [f"[{name}]", f"# {source}", f"n = {hx(n)}", f"e = {hx(e)}", f"d = {hx(d)}", f"p = {hx(p)}", f"q = {hx(q)}"]
    with tempfile.TemporaryDirectory() as tmp:
        key = os.path.join(tmp, "key.pem")
        with open(key, "wb") as f:
            f.write(pem)
        raw_inputs = [0, 1, 2, n - 1, RNG.randrange(n), RNG.randrange(n)]
        for c in raw_inputs:
            m = run(["openssl", "pkeyutl", "-decrypt", "-inkey", key, "-pkeyopt", "rsa_padding_mode:none"], c.to_bytes(k, "big"))
            assert int.from_bytes(m, "big") == pow(c, d, n)
            out += [f"raw_c = {hexk(c, k)}", f"raw_m = {m.hex()}"]
        for msg in [b"", b"abc", bytes(RNG.randrange(256) for _ in range(100))]:
            sig = run(["openssl", "dgst", "-sha256", "-sign", key], msg)
            out += [f"sign_msg = {msg.hex()}", f"sign_sha256 = {sig.hex()}"]
    for c, msg in oaep_cases:
        out += [f"oaep_c = {c}", f"oaep_m = {msg}"]
    for c in [n, n + 1, n + (1 << 64), (1 << (8 * k)) - 1]:
        if c < (1 << (8 * k)):
            out.append(f"reject = {hexk(c, k)}")
    return "\n".join(out) + "\n"


def rfc_keys():
    text = open(OAEP).read()
    keys = {}
    for sec in re.split(r"\n(?=\[)", text):
        f = dict(re.findall(r"^(\w+) = ([0-9a-f]*)$", sec, re.M))
        if "n" not in f:
            continue
        keys.setdefault((f["n"], f["e"], f["d"]), []).append((f["c"], f["msg"]))
    return keys


def main():
    if sys.argv[1:2] == ["--only"]:
        bits = int(sys.argv[2])
        pem = run(["openssl", "genrsa", str(bits)])
        print(block(f"openssl {bits}", f"openssl genrsa {bits}", pem), end="")
        return
    print("# Known answers of the RSA private operation, run through every backend")
    print("# by tests/kat_backends.rs. Made by scripts/make_kat_private.py with")
    print("# " + run(["openssl", "version"]).decode().strip() + " and pyca/cryptography.")
    print("# raw_c/raw_m: openssl pkeyutl -decrypt -inkey KEY -pkeyopt rsa_padding_mode:none")
    print("# sign_msg/sign_sha256: openssl dgst -sha256 -sign KEY (RSASSA-PKCS1-v1_5)")
    print("# oaep_c/oaep_m: RFC 8017 (PKCS #1 v2.1 oaep-vect.txt) SHA-1, empty label")
    print("# reject: inputs not below n (n, n + 1, n + 2^64, 2^(8k) - 1), must be refused")
    print()
    for i, ((n, e, d), cases) in enumerate(rfc_keys().items(), 1):
        n, e, d = int(n, 16), int(e, 16), int(d, 16)
        p, q = factor(n, e, d)
        pem = pem_of(n, e, d, p, q)
        src = f"RFC 8017 / PKCS #1 v2.1 oaep-vect.txt key {i} ({n.bit_length()} bits); p, q recovered from n, e, d"
        print(block(f"rfc8017 oaep key {i}", src, pem, cases))
    for bits in [2048, 3072, 4096, 8192]:
        pem = run(["openssl", "genrsa", str(bits)])
        print(block(f"openssl {bits}", f"openssl genrsa {bits}", pem))
    e = 65537
    while True:
        p = int(run(["openssl", "prime", "-generate", "-bits", "1088", "-hex"]).strip(), 16)
        q = int(run(["openssl", "prime", "-generate", "-bits", "960", "-hex"]).strip(), 16)
        if math.gcd(e, (p - 1) * (q - 1)) == 1:
            break
    d = pow(e, -1, math.lcm(p - 1, q - 1))
    pem = pem_of(p * q, e, d, p, q)
    print(block("unbalanced 2048", "openssl prime -generate -bits 1088 and 960; PKCS#1 by pyca/cryptography", pem), end="")


if __name__ == "__main__":
    sys.exit(main())
