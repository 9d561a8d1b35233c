//! Key files that are not usable RSA keys: each gets its own clear error,
//! and no input makes a parser panic (proptest). Keys of other kinds are
//! made by the `openssl` binary at test time.

use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;
use redc::keyfile::{
    Encoding, KeyFileError, PrivateKeyFormat, PublicKeyFormat, RsaPublicComponents, decode_private_key,
    decode_public_key, encode_private_key, encode_public_key,
};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("redc-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn read(&self, file: &str) -> Vec<u8> {
        std::fs::read(self.0.join(file)).unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the openssl binary");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A fixed 512-bit RSA key (PKCS#1 DER) for the structural tests: made once
/// with `openssl genrsa -traditional 512`, far too small for real use.
fn small_key_der() -> Vec<u8> {
    let pem = include_bytes!("data/keyfile_rsa512_pkcs1.pem");
    let mut buf = vec![0u8; pem.len()];
    let (_, der) = der::pem::decode(pem, &mut buf).unwrap();
    der.to_vec()
}

fn both(input: &[u8]) -> (Result<(), KeyFileError>, Result<(), KeyFileError>) {
    (
        decode_private_key(input).map(|_| ()),
        decode_public_key(input).map(|_| ()),
    )
}

fn assert_both(input: &[u8], want: &KeyFileError) {
    let (a, b) = both(input);
    assert_eq!(a.as_ref().unwrap_err(), want);
    assert_eq!(b.as_ref().unwrap_err(), want);
}

#[test]
fn not_keys() {
    assert_both(b"", &KeyFileError::NotAKey);
    assert_both(b"hello world", &KeyFileError::NotAKey);
    assert_both(&[0xff; 100], &KeyFileError::NotAKey);
    assert_eq!(KeyFileError::NotAKey.to_string(), "not a PEM or DER key");
    // PEM trouble.
    let bad_b64 = b"-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n";
    assert!(matches!(
        decode_private_key(bad_b64),
        Err(KeyFileError::BadPem(_))
    ));
    let no_end = b"-----BEGIN PRIVATE KEY-----\nMIIB\n";
    assert!(matches!(decode_private_key(no_end), Err(KeyFileError::BadPem(_))));
    let cert = b"-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n";
    let e = decode_public_key(cert).unwrap_err();
    assert_eq!(e, KeyFileError::UnsupportedPemLabel("CERTIFICATE".into()));
    assert!(e.to_string().starts_with("unsupported PEM type 'CERTIFICATE'"));
    // DER that is a SEQUENCE of nothing we know.
    assert!(matches!(
        decode_private_key(&[0x30, 0x03, 0x02, 0x01, 0x00]),
        Err(KeyFileError::Malformed(_))
    ));
}

#[test]
fn truncated_and_mislabelled() {
    let der = small_key_der();
    assert!(decode_private_key(&der).is_ok());
    for cut in [1, 2, 10, der.len() / 2, der.len() - 1] {
        let e = decode_private_key(&der[..cut]).unwrap_err();
        assert!(matches!(e, KeyFileError::Malformed(_)), "cut {cut}: {e:?}");
        assert!(decode_public_key(&der[..cut]).is_err());
    }
    let e = decode_private_key(&der[..der.len() / 2]).unwrap_err();
    assert!(e.to_string().starts_with("malformed key: truncated DER"), "{e}");
    let mut trailing = der.clone();
    trailing.push(0);
    assert!(matches!(
        decode_private_key(&trailing),
        Err(KeyFileError::Malformed(_))
    ));
    // A private key under the public-key label, and the other way round.
    let b64 = |label: &str, der: &[u8]| {
        der::pem::encode_string(label, der::pem::LineEnding::LF, der)
            .unwrap()
            .into_bytes()
    };
    assert!(matches!(
        decode_public_key(&b64("RSA PUBLIC KEY", &der)),
        Err(KeyFileError::Malformed(_))
    ));
    assert!(matches!(
        decode_public_key(&b64("PUBLIC KEY", &der)),
        Err(KeyFileError::Malformed(_))
    ));
    // PKCS#1 under the PKCS#8 label: the content decides, as in OpenSSL.
    assert_eq!(
        decode_private_key(&b64("PRIVATE KEY", &der)).unwrap().n,
        decode_private_key(&der).unwrap().n
    );
    // A public key where a private key is needed.
    let public = decode_public_key(&der).unwrap();
    for format in [PublicKeyFormat::Spki, PublicKeyFormat::Pkcs1] {
        for encoding in [Encoding::Pem, Encoding::Der] {
            let bytes = encode_public_key(&public, format, encoding).unwrap();
            assert_eq!(
                decode_private_key(&bytes).unwrap_err(),
                KeyFileError::PublicKeyOnly
            );
            assert_eq!(decode_public_key(&bytes).unwrap(), public);
        }
    }
    assert_eq!(
        KeyFileError::PublicKeyOnly.to_string(),
        "this is a public key; a private key is needed"
    );
    // Zero components are refused both ways.
    let zero = RsaPublicComponents {
        n: vec![0],
        e: vec![3],
    };
    assert_eq!(
        encode_public_key(&zero, PublicKeyFormat::Spki, Encoding::Der).unwrap_err(),
        KeyFileError::InvalidComponent("n")
    );
    // Leading text before the PEM block is skipped, as OpenSSL does.
    let mut with_text = b"Bag Attributes\n  friendlyName: x\n".to_vec();
    with_text.extend_from_slice(&b64("RSA PRIVATE KEY", &der));
    assert!(decode_private_key(&with_text).is_ok());
    // So is whatever follows the first block (another block, text), and CRLF line ends work.
    let pub_pem = encode_public_key(&public, PublicKeyFormat::Spki, Encoding::Pem).unwrap();
    let mut two_blocks = with_text.clone();
    two_blocks.extend_from_slice(&pub_pem);
    two_blocks.extend_from_slice(b"trailing text\n");
    assert_eq!(decode_public_key(&two_blocks).unwrap(), public);
    let mut pub_first = pub_pem.clone();
    pub_first.extend_from_slice(&b64("RSA PRIVATE KEY", &der));
    assert_eq!(
        decode_private_key(&pub_first).unwrap_err(),
        KeyFileError::PublicKeyOnly
    );
    let crlf = String::from_utf8(b64("RSA PRIVATE KEY", &der))
        .unwrap()
        .replace('\n', "\r\n");
    assert!(decode_private_key(crlf.as_bytes()).is_ok());
    let k = decode_private_key(&der).unwrap();
    let p8 = encode_private_key(&k, PrivateKeyFormat::Pkcs8, Encoding::Der).unwrap();
    assert!(decode_private_key(&p8).is_ok());
}

#[test]
fn other_algorithms_and_encrypted_keys() {
    let dir = TempDir::new("keyfile-malformed");
    let d = &dir.0;
    openssl(
        d,
        &[
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-out",
            "ec.pem",
        ],
    );
    openssl(d, &["pkey", "-in", "ec.pem", "-pubout", "-out", "ec.pub.pem"]);
    openssl(
        d,
        &[
            "pkcs8", "-topk8", "-nocrypt", "-in", "ec.pem", "-outform", "DER", "-out", "ec.der",
        ],
    );
    openssl(d, &["ec", "-in", "ec.pem", "-out", "ec.trad.pem"]);
    openssl(d, &["genpkey", "-algorithm", "ED25519", "-out", "ed.pem"]);
    openssl(
        d,
        &[
            "pkey",
            "-in",
            "ed.pem",
            "-pubout",
            "-outform",
            "DER",
            "-out",
            "ed.pub.der",
        ],
    );
    openssl(
        d,
        &[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:1024",
            "-out",
            "rsa.pem",
        ],
    );
    openssl(
        d,
        &[
            "pkcs8",
            "-topk8",
            "-v2",
            "aes-256-cbc",
            "-passout",
            "pass:x",
            "-in",
            "rsa.pem",
            "-out",
            "enc.pem",
        ],
    );
    openssl(
        d,
        &[
            "pkcs8",
            "-topk8",
            "-v2",
            "aes-256-cbc",
            "-passout",
            "pass:x",
            "-in",
            "rsa.pem",
            "-outform",
            "DER",
            "-out",
            "enc.der",
        ],
    );
    openssl(
        d,
        &[
            "rsa",
            "-in",
            "rsa.pem",
            "-traditional",
            "-aes256",
            "-passout",
            "pass:x",
            "-out",
            "legacy.pem",
        ],
    );
    openssl(
        d,
        &[
            "genpkey",
            "-algorithm",
            "RSA-PSS",
            "-pkeyopt",
            "rsa_keygen_bits:1024",
            "-out",
            "pss.pem",
        ],
    );
    openssl(d, &["pkey", "-in", "pss.pem", "-pubout", "-out", "pss.pub.pem"]);
    openssl(
        d,
        &[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:1024",
            "-pkeyopt",
            "rsa_keygen_primes:3",
            "-out",
            "mp.pem",
        ],
    );
    openssl(
        d,
        &[
            "rsa",
            "-in",
            "mp.pem",
            "-traditional",
            "-outform",
            "DER",
            "-out",
            "mp.der",
        ],
    );

    let ec = KeyFileError::NotRsa("algorithm 1.2.840.10045.2.1, EC".into());
    assert_eq!(ec.to_string(), "not an RSA key (algorithm 1.2.840.10045.2.1, EC)");
    for f in ["ec.pem", "ec.pub.pem", "ec.der"] {
        let (a, b) = both(&dir.read(f));
        if f != "ec.pub.pem" {
            assert_eq!(a.unwrap_err(), ec, "{f}");
        }
        assert_eq!(b.unwrap_err(), ec, "{f}");
    }
    assert_eq!(
        decode_private_key(&dir.read("ec.trad.pem")).unwrap_err(),
        KeyFileError::NotRsa("PEM type 'EC PRIVATE KEY'".into())
    );
    let ed = KeyFileError::NotRsa("algorithm 1.3.101.112, Ed25519".into());
    assert_both(&dir.read("ed.pem"), &ed);
    assert_eq!(decode_public_key(&dir.read("ed.pub.der")).unwrap_err(), ed);

    for f in ["enc.pem", "enc.der", "legacy.pem"] {
        assert_both(&dir.read(f), &KeyFileError::Encrypted);
    }
    assert!(
        KeyFileError::Encrypted
            .to_string()
            .starts_with("the private key is encrypted and no passphrase was given")
    );

    assert_both(&dir.read("pss.pem"), &KeyFileError::RsaPssRestricted);
    assert_eq!(
        decode_public_key(&dir.read("pss.pub.pem")).unwrap_err(),
        KeyFileError::RsaPssRestricted
    );

    assert_both(&dir.read("mp.pem"), &KeyFileError::MultiPrime);
    assert_both(&dir.read("mp.der"), &KeyFileError::MultiPrime);
    assert_eq!(
        KeyFileError::MultiPrime.to_string(),
        "multi-prime RSA keys are not supported"
    );

    // The plain key is fine.
    assert!(decode_private_key(&dir.read("rsa.pem")).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = both(&bytes);
        let mut pem = b"-----BEGIN RSA PRIVATE KEY-----\n".to_vec();
        pem.extend_from_slice(&bytes);
        let _ = both(&pem);
    }

    #[test]
    fn mutated_keys_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut der = small_key_der();
        for (i, b) in &edits {
            let i = i.index(der.len());
            der[i] = *b;
        }
        let _ = both(&der);
        let _ = both(&der[..cut.index(der.len())]);
        let pem = der::pem::encode_string("PRIVATE KEY", der::pem::LineEnding::LF, &der).unwrap();
        let _ = both(pem.as_bytes());
    }
}
