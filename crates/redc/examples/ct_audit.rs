//! Constant-time audit harness for the RSA private operation: valgrind
//! memcheck as a taint tracker (the "ctgrind" technique).
//!
//! The secret bytes (d, p, q, dP, dQ, qInv and every byte the blinding
//! generator returns) are marked *undefined* with memcheck client requests;
//! memcheck then reports every conditional branch ("Conditional jump or move
//! depends on uninitialised value(s)") and every memory address ("Use of
//! uninitialised value of size N") computed from them. Outputs are marked
//! *defined* again (declassified) before the harness looks at them.
//!
//! Run it through `scripts/ct_audit.sh`, which builds it, runs it under
//! valgrind and classifies the reports; see docs/CONSTANT_TIME.md. Outside
//! valgrind the client requests are no-ops and the harness is an ordinary
//! functional test of the same calls.
//!
//! Phases, each announced on stderr (`=== phase: NAME bits=B`) and closed
//! with memcheck's error count for it (`=== end: NAME bits=B errors=N`):
//! - `keygen`: a key generated normally, nothing marked (expected: 0);
//! - `setup`: the components copied, the secret ones marked undefined, the
//!   key rebuilt with `from_components` (reports expected: key validation
//!   and engine setup branch on prime lengths and validation verdicts);
//! - `inputs`: public ciphertexts and messages made with the public key
//!   (expected: 0);
//! - `private-op`: raw_private, sign_pkcs1v15, decrypt_oaep (valid and
//!   invalid), decrypt_pkcs1v15 (valid and invalid padding), with the
//!   blinding generator's output marked undefined; only deliberate
//!   declassifications may report here. Then a `=== taint:` line says how
//!   many bytes of the raw_private results were secret before they were
//!   declassified (they must be: the secrets reached the output);
//! - `control`: a positive control, the variable-time sliding window on a
//!   secret exponent, which must be reported; and one raw_private with an
//!   unmarked generator, whose result must still be secret (the key's
//!   taint alone reaches it);
//! - `check`: the declassified results verified with the public key
//!   (expected: 0).
//!
//! Environment: `CT_AUDIT_BITS` (default "2048 1024"), `CT_AUDIT_REPS`
//! (calls of each operation per key, default 2).

use std::convert::Infallible;

use rand_core::{Rng, TryCryptoRng, TryRng};
use redc::hash::HashAlg;
use redc::rsa::{self, PrivateComponents, RsaPrivateKey};

/// Valgrind client requests, hand-written after /usr/include/valgrind/
/// valgrind.h (amd64: `VALGRIND_DO_CLIENT_REQUEST_EXPR`) and memcheck.h.
/// Outside valgrind the magic sequence is a no-op (four rotations of %rdi
/// summing to 128, `xchg %rbx,%rbx`) and the default (0) comes back.
mod vg {
    /// `VG_USERREQ_TOOL_BASE('M','C')`.
    const MC_BASE: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
    /// memcheck.h: `VG_USERREQ__MAKE_MEM_UNDEFINED` (NOACCESS + 1).
    const MAKE_MEM_UNDEFINED: u64 = MC_BASE + 1;
    /// memcheck.h: `VG_USERREQ__MAKE_MEM_DEFINED` (NOACCESS + 2).
    const MAKE_MEM_DEFINED: u64 = MC_BASE + 2;
    /// memcheck.h: `VG_USERREQ__GET_VBITS` (NOACCESS + 8).
    const GET_VBITS: u64 = MC_BASE + 8;
    /// valgrind.h: `VG_USERREQ__RUNNING_ON_VALGRIND`.
    const RUNNING_ON_VALGRIND: u64 = 0x1001;
    /// valgrind.h: `VG_USERREQ__COUNT_ERRORS`.
    const COUNT_ERRORS: u64 = 0x1201;

    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    fn request(default: u64, req: u64, a1: u64, a2: u64, a3: u64) -> u64 {
        let args: [u64; 6] = [req, a1, a2, a3, 0, 0];
        let result: u64;
        // SAFETY: the sequence leaves every register as it found it except
        // %rdx (the result) and the flags; under valgrind it reads `args`.
        // No `nomem`: the compiler must assume memory is read and written,
        // so the request stays ordered with the accesses around it.
        unsafe {
            core::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdi") 0u64 => _,
                inout("rdx") default => result,
                options(nostack),
            );
        }
        result
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn request(default: u64, _req: u64, _a1: u64, _a2: u64, _a3: u64) -> u64 {
        default
    }

    /// Mark `bytes` as undefined: secret from here on.
    pub fn undefined(bytes: &[u8]) {
        request(
            0,
            MAKE_MEM_UNDEFINED,
            bytes.as_ptr() as u64,
            bytes.len() as u64,
            0,
        );
    }

    /// Mark `bytes` as defined: declassified (public) from here on.
    pub fn defined(bytes: &[u8]) {
        request(0, MAKE_MEM_DEFINED, bytes.as_ptr() as u64, bytes.len() as u64, 0);
    }

    /// Declassify a secret-derived byte string, its length included (a
    /// decrypted message's length comes from the padding): the value's own
    /// bytes (a `Vec`'s pointer, capacity and length) and then its contents
    /// are marked defined, and a plain copy is returned. `v` is moved into
    /// a local whose address the client request receives, so the length is
    /// read back from memory after the request.
    #[inline(never)]
    pub fn declassify<T: AsRef<[u8]>>(v: T) -> Vec<u8> {
        let v = v;
        // SAFETY: the bytes of a live local, read-only.
        #[allow(unsafe_code)]
        let own = unsafe { std::slice::from_raw_parts((&v as *const T).cast::<u8>(), size_of::<T>()) };
        defined(own);
        let bytes = std::hint::black_box(&v).as_ref();
        defined(bytes);
        bytes.to_vec()
    }

    /// Valgrind's nesting depth: 0 natively.
    pub fn running() -> u64 {
        request(0, RUNNING_ON_VALGRIND, 0, 0, 0)
    }

    /// Errors memcheck has counted so far (repeats of a known error included).
    pub fn errors() -> u64 {
        request(0, COUNT_ERRORS, 0, 0, 0)
    }

    /// How many of `bytes` hold at least one undefined (secret) bit, read
    /// from memcheck's shadow memory without reporting anything; None
    /// outside valgrind. A check that the taint reached a value.
    pub fn undefined_count(bytes: &[u8]) -> Option<usize> {
        let mut vbits = vec![0u8; bytes.len()];
        let r = request(
            0,
            GET_VBITS,
            bytes.as_ptr() as u64,
            vbits.as_mut_ptr() as u64,
            bytes.len() as u64,
        );
        (r == 1).then(|| vbits.iter().filter(|&&v| v != 0).count())
    }
}

/// A generator whose every output byte is marked secret (undefined): the
/// blinding factors r are secret.
struct TaintedRng<R>(R);

impl<R: Rng> TryRng for TaintedRng<R> {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.fill_bytes(dst);
        vg::undefined(dst);
        Ok(())
    }
}

impl<R: rand_core::CryptoRng> TryCryptoRng for TaintedRng<R> {}

/// Phase bookkeeping: a marker line before, the error count after.
struct Phase {
    name: &'static str,
    bits: usize,
    before: u64,
}

impl Phase {
    fn start(name: &'static str, bits: usize) -> Phase {
        eprintln!("=== phase: {name} bits={bits}");
        Phase {
            name,
            bits,
            before: vg::errors(),
        }
    }

    fn end(self) {
        let n = vg::errors() - self.before;
        eprintln!("=== end: {} bits={} errors={n}", self.name, self.bits);
    }
}

/// A value below n: k random bytes with the top one zero (n has its top
/// bit set). Public.
fn public_input(k: usize) -> Vec<u8> {
    let mut x = vec![0u8; k];
    rsa::os_rng().fill_bytes(&mut x[1..]);
    x
}

struct Inputs {
    raw: Vec<Vec<u8>>,
    digests: Vec<Vec<u8>>,
    oaep_msg: Vec<u8>,
    oaep_ct: Vec<u8>,
    oaep_bad: Vec<u8>,
    v15_msg: Vec<u8>,
    v15_ct: Vec<u8>,
    v15_bad: Vec<u8>,
}

const LABEL: &[u8] = b"ct-audit";

fn audit(bits: usize, reps: usize) {
    // keygen: an ordinary key, nothing marked.
    let phase = Phase::start("keygen", bits);
    let original = rsa::keygen::generate(bits, 65537, &mut rsa::os_rng()).expect("keygen");
    let n = original.public_key().n_bytes();
    let e = original.public_key().e_bytes();
    let d = original.d_bytes();
    let p = original.p_bytes();
    let q = original.q_bytes();
    let dp = original.dp_bytes();
    let dq = original.dq_bytes();
    let qinv = original.qinv_bytes();
    drop(original);
    phase.end();

    // setup: mark the secret components and rebuild the key from them.
    let phase = Phase::start("setup", bits);
    for secret in [&d, &p, &q, &dp, &dq, &qinv] {
        vg::undefined(secret);
    }
    let key = RsaPrivateKey::from_components(PrivateComponents {
        n: &n,
        e: &e,
        d: &d,
        p: &p,
        q: &q,
        crt: Some((&dp, &dq, &qinv)),
    })
    .expect("from_components");
    drop((d, p, q, dp, dq, qinv));
    phase.end();

    // inputs: public values from the public key.
    let phase = Phase::start("inputs", bits);
    let public = key.to_public_key();
    let k = key.size();
    let mut rng = rsa::os_rng();
    let oaep_msg = b"ct-audit OAEP message".to_vec();
    let v15_msg = b"ct-audit PKCS#1 v1.5 message".to_vec();
    let oaep_ct = public
        .encrypt_oaep(&mut rng, HashAlg::Sha256, LABEL, &oaep_msg)
        .expect("encrypt");
    let inputs = Inputs {
        raw: (0..reps).map(|_| public_input(k)).collect(),
        digests: (0..reps)
            .map(|i| HashAlg::Sha256.digest(format!("message {i}").as_bytes()))
            .collect(),
        oaep_msg,
        // A well-formed ciphertext under another label: fails the label check.
        oaep_bad: public
            .encrypt_oaep(&mut rng, HashAlg::Sha256, b"other", b"x")
            .expect("encrypt"),
        oaep_ct,
        v15_ct: public.encrypt_pkcs1v15(&mut rng, &v15_msg).expect("encrypt"),
        v15_msg,
        // A random value below n: invalid EME-PKCS1-v1_5 padding (p ~ 2^-16 of
        // being valid; checked below on the declassified result).
        v15_bad: public_input(k),
    };
    phase.end();

    // private-op: every private-key call, with a tainted blinding generator.
    let phase = Phase::start("private-op", bits);
    let mut trng = TaintedRng(rsa::os_rng());
    let mut results = Vec::new();
    let mut tainted_out = Vec::new();
    for x in &inputs.raw {
        let y = key.raw_private(&mut trng, x).expect("raw_private");
        tainted_out.push(vg::undefined_count(&y));
        results.push(("raw_private", x.clone(), vg::declassify(y)));
    }
    for dg in &inputs.digests {
        let s = key.sign_pkcs1v15(&mut trng, HashAlg::Sha256, dg).expect("sign");
        results.push(("sign_pkcs1v15", dg.clone(), vg::declassify(s)));
    }
    let mut oaep_ok = Vec::new();
    let mut oaep_rejected = 0;
    let mut v15_ok = Vec::new();
    let mut v15_synthetic = Vec::new();
    for _ in 0..reps {
        let m = key
            .decrypt_oaep_with_rng(&mut trng, HashAlg::Sha256, LABEL, &inputs.oaep_ct)
            .expect("decrypt_oaep (valid)");
        oaep_ok.push(vg::declassify(m));
        let bad = key.decrypt_oaep_with_rng(&mut trng, HashAlg::Sha256, LABEL, &inputs.oaep_bad);
        // The Ok/Err verdict is the decoder's one deliberate disclosure.
        oaep_rejected += usize::from(bad.map(vg::declassify).is_err());
        let m = key
            .decrypt_pkcs1v15_with_rng(&mut trng, &inputs.v15_ct)
            .expect("decrypt_pkcs1v15");
        v15_ok.push(vg::declassify(m));
        let m = key
            .decrypt_pkcs1v15_with_rng(&mut trng, &inputs.v15_bad)
            .expect("decrypt_pkcs1v15");
        v15_synthetic.push(vg::declassify(m));
    }
    phase.end();
    // The secrets must reach the result: outside valgrind there is nothing to check.
    if let Some(Some(min)) = tainted_out.iter().min() {
        eprintln!(
            "=== taint: raw_private results: at least {min} of {k} bytes secret before declassification"
        );
    }

    // control: a deliberately variable-time call on a secret (the sliding
    // window over a secret exponent) must be reported, or the taint
    // tracking is not working.
    let phase = Phase::start("control", bits);
    let mut exp = vec![0u8; 32];
    trng.fill_bytes(&mut exp);
    let base = redc::limb::from_be_bytes(&inputs.raw[0]);
    let r = public
        .engine()
        .pow_public_vartime(&base, &redc::limb::from_be_bytes(&exp))
        .expect("reduced base");
    vg::defined(&redc::limb::to_be_bytes(&r));
    // The key's taint alone reaches the result: a clone (fresh blinding
    // pool) with an unmarked generator.
    let y = key
        .clone()
        .raw_private(&mut rsa::os_rng(), &inputs.raw[0])
        .expect("raw_private");
    if let Some(n) = vg::undefined_count(&y) {
        eprintln!("=== taint: key only: at least {n} of {k} bytes secret");
    }
    vg::declassify(y);
    phase.end();

    // check: everything here is declassified.
    let phase = Phase::start("check", bits);
    for (what, input, out) in &results {
        let back = public.raw_public(out).expect("raw_public");
        let want = if *what == "raw_private" {
            input.clone()
        } else {
            redc::padding::emsa_pkcs1v15_encode(HashAlg::Sha256, input, k).expect("encode")
        };
        assert_eq!(back, want, "{what}: result does not verify");
    }
    assert!(oaep_ok.iter().all(|m| *m == inputs.oaep_msg), "OAEP round trip");
    assert_eq!(oaep_rejected, reps, "OAEP under the wrong label must fail");
    assert!(
        v15_ok.iter().all(|m| *m == inputs.v15_msg),
        "PKCS#1 v1.5 round trip"
    );
    assert!(
        v15_synthetic.windows(2).all(|w| w[0] == w[1]) && v15_synthetic[0].len() <= k - 11,
        "implicit rejection must be deterministic and at most k - 11 bytes"
    );
    eprintln!(
        "ct_audit: {bits}-bit key: {} raw/sign results verified, OAEP ok/rejected {}/{}, \
         PKCS#1 v1.5 ok {}, synthetic message {} bytes",
        results.len(),
        oaep_ok.len(),
        oaep_rejected,
        v15_ok.len(),
        v15_synthetic[0].len()
    );
    phase.end();
}

fn main() {
    let bits: Vec<usize> = std::env::var("CT_AUDIT_BITS")
        .unwrap_or_else(|_| "2048 1024".into())
        .split_whitespace()
        .map(|b| b.parse().expect("CT_AUDIT_BITS: numbers"))
        .collect();
    let reps: usize = std::env::var("CT_AUDIT_REPS")
        .ok()
        .map(|r| r.parse().expect("CT_AUDIT_REPS: a number"))
        .unwrap_or(2)
        .max(1);
    eprintln!(
        "ct_audit: valgrind={} exp_kernel={} force_portable={}{}",
        vg::running(),
        redc::exp::kernel_name(),
        redc::arch::force_portable(),
        cpu_report()
    );
    for b in bits {
        audit(b, reps);
    }
    eprintln!("=== done errors={}", vg::errors());
}

#[cfg(target_arch = "x86_64")]
fn cpu_report() -> String {
    format!(
        " ifma_available={} adx_available={}",
        redc::arch::x86_64::ifma_available(),
        redc::arch::x86_64::adx_available()
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_report() -> String {
    String::new()
}
