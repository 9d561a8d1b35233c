"""``python -m redc.bench``: redc's key against pyca/cryptography's key on the
same RSA key, in one run: sign and verify per second, PyJWT RS256 tokens
per second both ways, ``sign_batch`` on every core, and ``sign`` from as many
Python threads as cores (the GIL is released during private-key work).

Each figure is the median of ``--rounds`` rounds of ``--seconds`` each; the
rounds of redc and cryptography alternate so that both see the same machine
load. PKCS#1 v1.5 with SHA-256 over a 64-byte message throughout.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, List, Tuple

import redc

MESSAGE = b"redc speed: the message every implementation signs, 64 bytes...."


def cpu_model() -> str:
    """The CPU's model name and family/model, as /proc/cpuinfo gives them."""
    fields: Dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "cpu family", "model") and key not in fields:
                    fields[key] = value.strip()
                if not line.strip() and fields:
                    break
    except OSError:
        return platform.processor() or platform.machine()
    return f"{fields.get('model name', '?')} (family {fields.get('cpu family', '?')}, model {fields.get('model', '?')})"


def rate(op: Callable[[], int], seconds: float) -> float:
    """Operations per second of ``op`` (which returns how many it did) over
    about ``seconds``."""
    done = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        done += op()
        now = time.perf_counter()
        if now >= deadline:
            return done / (now - start)


def compare(cases: List[Tuple[str, Callable[[], int]]], seconds: float, rounds: int) -> List[float]:
    """Median ops/s of each case, the cases' rounds interleaved."""
    samples: List[List[float]] = [[] for _ in cases]
    for _ in range(rounds):
        for i, (_, op) in enumerate(cases):
            samples[i].append(rate(op, seconds))
    return [statistics.median(s) for s in samples]


def main(argv: List[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m redc.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--bits", type=int, nargs="+", default=[2048], help="key sizes (default 2048)")
    p.add_argument("--seconds", type=float, default=1.0, help="length of one round (default 1 s)")
    p.add_argument("--rounds", type=int, default=5, help="rounds per figure; the median is reported (default 5)")
    p.add_argument("--batch", type=int, default=256, help="messages per sign_batch call (default 256)")
    args = p.parse_args(argv)
    try:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding, rsa
    except ImportError:
        print("redc.bench: compares against cryptography; pip install cryptography", file=sys.stderr)
        return 2
    try:
        import jwt
    except ImportError:
        jwt = None
        print("redc.bench: PyJWT not installed; SKIPPED the JWT figures", file=sys.stderr)

    cores = redc.thread_count(0)
    print(f"redc.bench  {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"CPU: {cpu_model()}, {cores} cores reported; Python {platform.python_version()}")
    import cryptography
    from cryptography.hazmat.backends.openssl.backend import backend

    print(f"cryptography {cryptography.__version__} ({backend.openssl_version_text()})")
    print(f"median of {args.rounds} rounds x {args.seconds:g} s; PKCS#1 v1.5, SHA-256, 64-byte message\n")
    pkcs1, sha256 = padding.PKCS1v15(), hashes.SHA256()
    print(f"{'bits':>5} {'figure':<34} {'redc':>11} {'cryptography':>13} {'ratio':>7}")
    for bits in args.bits:
        ckey = rsa.generate_private_key(65537, bits)
        key = redc.from_cryptography(ckey)
        assert isinstance(key, redc.RSAPrivateKey)
        pub, cpub = key.public_key(), ckey.public_key()
        sig = ckey.sign(MESSAGE, pkcs1, sha256)

        def row(name: str, ours: Callable[[], int], theirs: Callable[[], int]) -> None:
            a, b = compare([("redc", ours), ("cryptography", theirs)], args.seconds, args.rounds)
            print(f"{bits:>5} {name:<34} {a:>11.0f} {b:>13.0f} {a / b:>6.2f}x", flush=True)

        def one(f: Callable[[], object]) -> Callable[[], int]:
            def op() -> int:
                f()
                return 1

            return op

        row("sign/s", one(lambda: key.sign(MESSAGE, pkcs1, sha256)), one(lambda: ckey.sign(MESSAGE, pkcs1, sha256)))
        row(
            "verify/s",
            one(lambda: pub.verify(sig, MESSAGE, pkcs1, sha256)),
            one(lambda: cpub.verify(sig, MESSAGE, pkcs1, sha256)),
        )
        if jwt is not None:
            claims = {"sub": "1234567890", "name": "redc bench", "iat": 1700000000}
            token = jwt.encode(claims, ckey, algorithm="RS256")
            row(
                "PyJWT RS256 encode tokens/s",
                one(lambda: jwt.encode(claims, key, algorithm="RS256")),
                one(lambda: jwt.encode(claims, ckey, algorithm="RS256")),
            )
            row(
                "PyJWT RS256 decode tokens/s",
                one(lambda: jwt.decode(token, pub, algorithms=["RS256"])),
                one(lambda: jwt.decode(token, cpub, algorithms=["RS256"])),
            )
        messages = [MESSAGE + b"%d" % i for i in range(args.batch)]

        def batch() -> int:
            return len(key.sign_batch(messages, pkcs1, sha256, threads=0))

        row(f"sign_batch({args.batch}, all cores) vs sign loop", batch, one(lambda: ckey.sign(MESSAGE, pkcs1, sha256)))

        with ThreadPoolExecutor(cores) as pool:

            def threaded(k: object) -> Callable[[], int]:
                def op() -> int:
                    n = 16 * cores
                    list(pool.map(lambda _: k.sign(MESSAGE, pkcs1, sha256), range(n)))  # type: ignore[attr-defined]
                    return n

                return op

            row(f"sign/s from {cores} Python threads", threaded(key), threaded(ckey))
    return 0


if __name__ == "__main__":
    sys.exit(main())
