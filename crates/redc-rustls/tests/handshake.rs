//! Full in-process rustls handshakes (client and server exchanging bytes in
//! memory, no sockets), TLS 1.2 and 1.3, over a certificate chain made at
//! test time with rcgen: a CA and a `localhost` end-entity certificate, RSA
//! 2048.
//!
//! The independent oracle is *ring* (rustls's default provider): where redc
//! signs, *ring*'s webpki algorithms verify; where redc verifies, *ring*
//! signs (the handshake signatures and the certificate chain). The last
//! handshakes have redc on both ends. Counters around the signer prove that
//! redc's signer made the handshake signature, with which scheme.

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, PKCS_RSA_SHA256, PublicKeyData};
use redc::hash::HashAlg;
use redc::keyfile::{Encoding, PrivateKeyFormat, PublicKeyFormat};
use redc::rsa::{RsaPrivateKey, keygen, os_rng};
use redc_rustls::{RSA_SCHEMES, is_redc_algorithm, verify};
use rustls::crypto::{CryptoProvider, KeyProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::SignatureVerificationAlgorithm;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs1KeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::sign::{CertifiedKey, Signer, SigningKey, SingleCertAndKey};
use rustls::{
    ClientConfig, ClientConnection, Error, ProtocolVersion, RootCertStore, ServerConfig, ServerConnection,
    SignatureAlgorithm, SignatureScheme, SupportedProtocolVersion,
};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

// ---------------------------------------------------------------------------
// Keys and certificates

/// An RSA key with its PKCS#8 DER, generated once per test binary.
struct TestKey {
    redc: RsaPrivateKey,
    pkcs8: Vec<u8>,
    pkcs1_public: Vec<u8>,
}

fn test_key() -> TestKey {
    let redc = keygen::generate(2048, 65537, &mut os_rng()).unwrap();
    let pkcs8 = redc
        .to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Der)
        .unwrap()
        .to_vec();
    let pkcs1_public = redc
        .public_key()
        .to_key_file(PublicKeyFormat::Pkcs1, Encoding::Der)
        .unwrap();
    TestKey {
        redc,
        pkcs8,
        pkcs1_public,
    }
}

static CA_KEY: LazyLock<TestKey> = LazyLock::new(test_key);
static SERVER_KEY: LazyLock<TestKey> = LazyLock::new(test_key);
static CLIENT_KEY: LazyLock<TestKey> = LazyLock::new(test_key);

/// rcgen's view of a key whose certificate signatures redc makes
/// (sha256WithRSAEncryption).
struct RedcCertKey<'a>(&'a TestKey);

impl PublicKeyData for RedcCertKey<'_> {
    fn der_bytes(&self) -> &[u8] {
        &self.0.pkcs1_public
    }
    fn algorithm(&self) -> &'static rcgen::SignatureAlgorithm {
        &PKCS_RSA_SHA256
    }
}

impl rcgen::SigningKey for RedcCertKey<'_> {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, rcgen::Error> {
        let digest = HashAlg::Sha256.digest(msg);
        self.0
            .redc
            .sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digest)
            .map_err(|_| rcgen::Error::RingUnspecified)
    }
}

/// Who signs the certificates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CertSigner {
    Redc,
    Ring,
}

/// CA certificate and end-entity (`localhost`) certificate for
/// [`SERVER_KEY`], signed by [`CA_KEY`].
struct Chain {
    ca: CertificateDer<'static>,
    end_entity: CertificateDer<'static>,
}

fn make_chain(signer: CertSigner) -> Chain {
    make_chain_for(signer, &SERVER_KEY, "localhost")
}

/// The same CA (same key and name) issuing a certificate for `name` and `ee`.
fn make_chain_for(signer: CertSigner, ee: &TestKey, name: &str) -> Chain {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "redc-rustls test CA");
    let ee_params = CertificateParams::new(vec![name.to_string()]).unwrap();
    let ee_public = RedcCertKey(ee);
    match signer {
        CertSigner::Redc => {
            let ca_key = RedcCertKey(&CA_KEY);
            let ca = ca_params.self_signed(&ca_key).unwrap();
            let issuer = Issuer::new(ca_params, ca_key);
            let ee = ee_params.signed_by(&ee_public, &issuer).unwrap();
            Chain {
                ca: ca.der().clone(),
                end_entity: ee.der().clone(),
            }
        }
        CertSigner::Ring => {
            let der = PrivatePkcs8KeyDer::from(CA_KEY.pkcs8.clone());
            let ca_key = KeyPair::from_pkcs8_der_and_sign_algo(&der, &PKCS_RSA_SHA256).unwrap();
            let ca = ca_params.self_signed(&ca_key).unwrap();
            let issuer = Issuer::new(ca_params, ca_key);
            let ee = ee_params.signed_by(&ee_public, &issuer).unwrap();
            Chain {
                ca: ca.der().clone(),
                end_entity: ee.der().clone(),
            }
        }
    }
}

fn server_key_der() -> PrivateKeyDer<'static> {
    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(SERVER_KEY.pkcs8.clone()))
}

// ---------------------------------------------------------------------------
// A signer wrapper that counts, records the scheme, and can tamper

#[derive(Debug, Default)]
struct Record {
    calls: AtomicUsize,
    schemes: Mutex<Vec<SignatureScheme>>,
    /// Debug of the wrapped signer, to check whose it is.
    signers: Mutex<Vec<String>>,
}

#[derive(Debug)]
struct Watched {
    inner: Arc<dyn SigningKey>,
    record: Arc<Record>,
    tamper: bool,
}

#[derive(Debug)]
struct WatchedSigner {
    inner: Box<dyn Signer>,
    record: Arc<Record>,
    tamper: bool,
}

impl SigningKey for Watched {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        let inner = self.inner.choose_scheme(offered)?;
        Some(Box::new(WatchedSigner {
            inner,
            record: Arc::clone(&self.record),
            tamper: self.tamper,
        }))
    }
    fn public_key(&self) -> Option<rustls::pki_types::SubjectPublicKeyInfoDer<'_>> {
        self.inner.public_key()
    }
    fn algorithm(&self) -> SignatureAlgorithm {
        self.inner.algorithm()
    }
}

impl Signer for WatchedSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        self.record.calls.fetch_add(1, Ordering::SeqCst);
        self.record.schemes.lock().unwrap().push(self.inner.scheme());
        self.record
            .signers
            .lock()
            .unwrap()
            .push(format!("{:?}", self.inner));
        let mut sig = self.inner.sign(message)?;
        if self.tamper {
            let last = sig.len() - 1;
            sig[last] ^= 1;
        }
        Ok(sig)
    }
    fn scheme(&self) -> SignatureScheme {
        self.inner.scheme()
    }
}

// ---------------------------------------------------------------------------
// Configurations and the in-memory handshake

/// *ring*'s verification algorithms, the client offering only `schemes`.
fn ring_algs_only(schemes: &[SignatureScheme]) -> WebPkiSupportedAlgorithms {
    let ring = rustls::crypto::ring::default_provider().signature_verification_algorithms;
    let mapping: Vec<_> = ring
        .mapping
        .iter()
        .filter(|(s, _)| schemes.contains(s))
        .copied()
        .collect();
    assert_eq!(mapping.len(), schemes.len());
    WebPkiSupportedAlgorithms {
        all: ring.all,
        mapping: Vec::leak(mapping),
    }
}

/// redc's verification algorithms, the client offering only `schemes`.
fn redc_algs_only(schemes: &[SignatureScheme]) -> WebPkiSupportedAlgorithms {
    let mapping: Vec<_> = schemes
        .iter()
        .map(|s| (*s, verify::for_scheme(*s).unwrap()))
        .collect();
    WebPkiSupportedAlgorithms {
        all: verify::SUPPORTED_SIG_ALGS.all,
        mapping: Vec::leak(mapping),
    }
}

fn version(v: ProtocolVersion) -> &'static SupportedProtocolVersion {
    match v {
        ProtocolVersion::TLSv1_3 => &rustls::version::TLS13,
        ProtocolVersion::TLSv1_2 => &rustls::version::TLS12,
        _ => unreachable!(),
    }
}

fn client_config(provider: CryptoProvider, v: ProtocolVersion, ca: &CertificateDer<'static>) -> ClientConfig {
    let mut roots = RootCertStore::empty();
    roots.add(ca.clone()).unwrap();
    ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[version(v)])
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth()
}

/// A server config whose key is `key`, watched.
fn server_config(
    provider: CryptoProvider,
    v: ProtocolVersion,
    chain: &Chain,
    key: Arc<dyn SigningKey>,
    tamper: bool,
) -> (ServerConfig, Arc<Record>) {
    let record = Arc::new(Record::default());
    let watched = Arc::new(Watched {
        inner: key,
        record: Arc::clone(&record),
        tamper,
    });
    let certified = CertifiedKey::new(vec![chain.end_entity.clone(), chain.ca.clone()], watched);
    let config = ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[version(v)])
        .unwrap()
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(SingleCertAndKey::from(certified)));
    (config, record)
}

/// Move every pending TLS byte from one side to the other until neither
/// has anything to say; the first side to fail ends it.
fn pump(client: &mut ClientConnection, server: &mut ServerConnection) -> Result<(), Error> {
    for _ in 0..32 {
        let mut moved = false;
        let mut buf = Vec::new();
        while client.wants_write() {
            client.write_tls(&mut buf).unwrap();
        }
        if !buf.is_empty() {
            moved = true;
            let mut rd = &buf[..];
            while !rd.is_empty() {
                server.read_tls(&mut rd).unwrap();
                server.process_new_packets()?;
            }
        }
        buf.clear();
        while server.wants_write() {
            server.write_tls(&mut buf).unwrap();
        }
        if !buf.is_empty() {
            moved = true;
            let mut rd = &buf[..];
            while !rd.is_empty() {
                client.read_tls(&mut rd).unwrap();
                client.process_new_packets()?;
            }
        }
        if !moved {
            return Ok(());
        }
    }
    panic!("handshake did not settle in 32 rounds");
}

/// Handshake, then application data both ways; checks the version.
fn handshake_and_echo(client_cfg: ClientConfig, server_cfg: ServerConfig, v: ProtocolVersion) {
    let mut client =
        ClientConnection::new(Arc::new(client_cfg), ServerName::try_from("localhost").unwrap()).unwrap();
    let mut server = ServerConnection::new(Arc::new(server_cfg)).unwrap();
    pump(&mut client, &mut server).expect("handshake failed");
    assert!(!client.is_handshaking() && !server.is_handshaking());
    assert_eq!(client.protocol_version(), Some(v));
    assert_eq!(server.protocol_version(), Some(v));
    let suite = client.negotiated_cipher_suite().unwrap();
    assert_eq!(Some(suite), server.negotiated_cipher_suite());
    if v == ProtocolVersion::TLSv1_2 {
        // TLS 1.2 names the key type in the suite: ECDHE_RSA.
        assert!(
            format!("{:?}", suite.suite()).contains("_ECDHE_RSA_"),
            "{suite:?}"
        );
    }

    client.writer().write_all(b"ping from the client").unwrap();
    pump(&mut client, &mut server).unwrap();
    let mut got = [0u8; 20];
    server.reader().read_exact(&mut got).unwrap();
    assert_eq!(&got, b"ping from the client");

    server.writer().write_all(b"pong from the server").unwrap();
    pump(&mut client, &mut server).unwrap();
    let mut got = [0u8; 20];
    client.reader().read_exact(&mut got).unwrap();
    assert_eq!(&got, b"pong from the server");
}

/// The key provider the given provider uses, loading the server key.
fn load_server_key(provider: &CryptoProvider) -> Arc<dyn SigningKey> {
    provider.key_provider.load_private_key(server_key_der()).unwrap()
}

fn assert_redc_signed(record: &Record, scheme: SignatureScheme) {
    // One handshake signature (TLS 1.3 CertificateVerify, TLS 1.2
    // ServerKeyExchange), by redc's signer, with the expected scheme.
    assert_eq!(record.calls.load(Ordering::SeqCst), 1);
    assert_eq!(*record.schemes.lock().unwrap(), [scheme]);
    let signers = record.signers.lock().unwrap();
    assert!(signers[0].starts_with("RedcSigner"), "{signers:?}");
}

// ---------------------------------------------------------------------------
// Server key in redc, client verifying with *ring*

#[test]
fn server_key_in_redc_tls13_ring_client() {
    let chain = make_chain(CertSigner::Redc);
    let redc = redc_rustls::provider();
    let key = load_server_key(&redc);
    let (server, record) = server_config(redc, ProtocolVersion::TLSv1_3, &chain, key, false);
    let client = client_config(
        rustls::crypto::ring::default_provider(),
        ProtocolVersion::TLSv1_3,
        &chain.ca,
    );
    handshake_and_echo(client, server, ProtocolVersion::TLSv1_3);
    // The client offers every scheme: PSS with SHA-512 first, like rustls's signer.
    assert_redc_signed(&record, SignatureScheme::RSA_PSS_SHA512);
}

#[test]
fn server_key_in_redc_tls12_ring_client() {
    let chain = make_chain(CertSigner::Redc);
    let redc = redc_rustls::provider();
    let key = load_server_key(&redc);
    let (server, record) = server_config(redc, ProtocolVersion::TLSv1_2, &chain, key, false);
    let client = client_config(
        rustls::crypto::ring::default_provider(),
        ProtocolVersion::TLSv1_2,
        &chain.ca,
    );
    handshake_and_echo(client, server, ProtocolVersion::TLSv1_2);
    assert_redc_signed(&record, SignatureScheme::RSA_PSS_SHA512);
}

/// Every RSA scheme, each the only one the *ring* client offers: PKCS#1
/// v1.5 ones over TLS 1.2 (TLS 1.3 forbids them), PSS ones over both.
#[test]
fn server_key_in_redc_every_scheme() {
    let chain = make_chain(CertSigner::Redc);
    for &scheme in RSA_SCHEMES {
        let pss = format!("{scheme:?}").starts_with("RSA_PSS");
        let versions: &[ProtocolVersion] = if pss {
            &[ProtocolVersion::TLSv1_3, ProtocolVersion::TLSv1_2]
        } else {
            &[ProtocolVersion::TLSv1_2]
        };
        for &v in versions {
            let redc = redc_rustls::provider();
            let key = load_server_key(&redc);
            let (server, record) = server_config(redc, v, &chain, key, false);
            let client_provider = CryptoProvider {
                signature_verification_algorithms: ring_algs_only(&[scheme]),
                ..rustls::crypto::ring::default_provider()
            };
            let client = client_config(client_provider, v, &chain.ca);
            handshake_and_echo(client, server, v);
            assert_redc_signed(&record, scheme);
        }
    }
}

/// `with_single_cert` goes through the provider's key provider: redc's.
#[test]
fn with_single_cert_uses_redc_key_provider() {
    let chain = make_chain(CertSigner::Redc);
    let server = ServerConfig::builder_with_provider(Arc::new(redc_rustls::provider()))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![chain.end_entity.clone(), chain.ca.clone()], server_key_der())
        .unwrap();
    let client = client_config(
        rustls::crypto::ring::default_provider(),
        ProtocolVersion::TLSv1_3,
        &chain.ca,
    );
    handshake_and_echo(client, server, ProtocolVersion::TLSv1_3);
}

// ---------------------------------------------------------------------------
// Client verifying with redc, server (and certificates) signing with *ring*

fn ring_server_redc_client(v: ProtocolVersion, schemes: Option<&[SignatureScheme]>, expect: SignatureScheme) {
    let chain = make_chain(CertSigner::Ring);
    let ring = rustls::crypto::ring::default_provider();
    let key = load_server_key(&ring);
    assert!(!format!("{key:?}").contains("Redc"));
    let (server, record) = server_config(ring, v, &chain, key, false);
    let client_provider = match schemes {
        None => redc_rustls::provider_with_redc_verify(),
        Some(s) => CryptoProvider {
            signature_verification_algorithms: redc_algs_only(s),
            ..redc_rustls::provider()
        },
    };
    // No *ring* RSA algorithm is left to the client: every RSA signature it
    // accepts (chain and handshake) was checked by redc.
    let algs = client_provider.signature_verification_algorithms;
    for alg in algs.all {
        assert!(
            alg.public_key_alg_id() != rustls::pki_types::alg_id::RSA_ENCRYPTION || is_redc_algorithm(*alg)
        );
    }
    for (_, mapped) in algs.mapping {
        assert!(mapped.iter().all(|a| {
            a.public_key_alg_id() != rustls::pki_types::alg_id::RSA_ENCRYPTION || is_redc_algorithm(*a)
        }));
    }
    let client = client_config(client_provider, v, &chain.ca);
    handshake_and_echo(client, server, v);
    assert_eq!(record.calls.load(Ordering::SeqCst), 1);
    assert_eq!(*record.schemes.lock().unwrap(), [expect]);
}

#[test]
fn redc_client_verifies_tls13() {
    ring_server_redc_client(ProtocolVersion::TLSv1_3, None, SignatureScheme::RSA_PSS_SHA512);
}

#[test]
fn redc_client_verifies_tls12() {
    ring_server_redc_client(ProtocolVersion::TLSv1_2, None, SignatureScheme::RSA_PSS_SHA512);
}

#[test]
fn redc_client_verifies_every_scheme() {
    for &scheme in RSA_SCHEMES {
        let pss = format!("{scheme:?}").starts_with("RSA_PSS");
        let v = if pss {
            ProtocolVersion::TLSv1_3
        } else {
            ProtocolVersion::TLSv1_2
        };
        ring_server_redc_client(v, Some(&[scheme]), scheme);
    }
}

// ---------------------------------------------------------------------------
// redc on both ends

#[test]
fn redc_both_ends_tls13_and_tls12() {
    let chain = make_chain(CertSigner::Redc);
    for v in [ProtocolVersion::TLSv1_3, ProtocolVersion::TLSv1_2] {
        let redc = redc_rustls::provider_with_redc_verify();
        let key = load_server_key(&redc);
        let (server, record) = server_config(redc, v, &chain, key, false);
        let client = client_config(redc_rustls::provider_with_redc_verify(), v, &chain.ca);
        handshake_and_echo(client, server, v);
        assert_redc_signed(&record, SignatureScheme::RSA_PSS_SHA512);
    }
}

// ---------------------------------------------------------------------------
// Negative tests

/// A signature made by *ring*, checked by redc's algorithms: accepted as
/// made, refused with one bit flipped, refused over another message and
/// under the other padding.
#[test]
fn tampered_signature_fails_redc_verification() {
    let ring_key = rustls::crypto::ring::default_provider()
        .key_provider
        .load_private_key(server_key_der())
        .unwrap();
    let public = &SERVER_KEY.pkcs1_public;
    let message = b"the handshake transcript";
    for &scheme in RSA_SCHEMES {
        let alg = verify::for_scheme(scheme).unwrap()[0];
        let sig = ring_key.choose_scheme(&[scheme]).unwrap().sign(message).unwrap();
        assert!(alg.verify_signature(public, message, &sig).is_ok(), "{scheme:?}");
        for byte in [0, sig.len() / 2, sig.len() - 1] {
            let mut bad = sig.clone();
            bad[byte] ^= 0x10;
            assert!(
                alg.verify_signature(public, message, &bad).is_err(),
                "{scheme:?} byte {byte}"
            );
        }
        assert!(alg.verify_signature(public, b"another transcript", &sig).is_err());
        assert!(alg.verify_signature(public, message, &sig[1..]).is_err());
    }
    // PKCS#1 v1.5 signature under the PSS algorithm of the same hash, and back.
    let pkcs1 = ring_key
        .choose_scheme(&[SignatureScheme::RSA_PKCS1_SHA256])
        .unwrap()
        .sign(message)
        .unwrap();
    let pss = ring_key
        .choose_scheme(&[SignatureScheme::RSA_PSS_SHA256])
        .unwrap()
        .sign(message)
        .unwrap();
    assert!(
        verify::RSA_PSS_SHA256
            .verify_signature(public, message, &pkcs1)
            .is_err()
    );
    assert!(
        verify::RSA_PKCS1_SHA256
            .verify_signature(public, message, &pss)
            .is_err()
    );
}

/// A server whose handshake signature is tampered with: the redc-verifying
/// client refuses the handshake, in both versions.
#[test]
fn tampered_handshake_signature_refused_by_redc_client() {
    let chain = make_chain(CertSigner::Ring);
    for v in [ProtocolVersion::TLSv1_3, ProtocolVersion::TLSv1_2] {
        let ring = rustls::crypto::ring::default_provider();
        let key = load_server_key(&ring);
        let (server_cfg, record) = server_config(ring, v, &chain, key, true);
        let client_cfg = client_config(redc_rustls::provider_with_redc_verify(), v, &chain.ca);
        let mut client =
            ClientConnection::new(Arc::new(client_cfg), ServerName::try_from("localhost").unwrap()).unwrap();
        let mut server = ServerConnection::new(Arc::new(server_cfg)).unwrap();
        let err = pump(&mut client, &mut server).expect_err("a tampered signature was accepted");
        assert_eq!(record.calls.load(Ordering::SeqCst), 1);
        assert!(client.is_handshaking());
        assert!(
            matches!(
                err,
                Error::InvalidCertificate(rustls::CertificateError::BadSignature) | Error::PeerMisbehaved(_)
            ),
            "{v:?}: {err:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// The key provider

#[test]
fn key_provider_loads_rsa_in_redc_and_hands_on_the_rest() {
    let provider = &redc_rustls::KEY_PROVIDER;
    // PKCS#8 and PKCS#1 RSA keys: redc.
    let pkcs8 = provider.load_private_key(server_key_der()).unwrap();
    assert!(format!("{pkcs8:?}").starts_with("RedcSigningKey"));
    assert_eq!(pkcs8.algorithm(), SignatureAlgorithm::RSA);
    let pkcs1_der = SERVER_KEY
        .redc
        .to_key_file(PrivateKeyFormat::Pkcs1, Encoding::Der)
        .unwrap()
        .to_vec();
    let pkcs1 = provider
        .load_private_key(PrivateKeyDer::Pkcs1(PrivatePkcs1KeyDer::from(pkcs1_der)))
        .unwrap();
    assert!(format!("{pkcs1:?}").starts_with("RedcSigningKey"));
    // The SPKI matches the certificate's key (rustls's keys_match).
    let spki = SERVER_KEY
        .redc
        .public_key()
        .to_key_file(PublicKeyFormat::Spki, Encoding::Der)
        .unwrap();
    assert_eq!(pkcs1.public_key().unwrap().as_ref(), &spki[..]);

    // An ECDSA P-256 key (PKCS#8, made by rcgen with *ring*): *ring*'s.
    let ec = KeyPair::generate().unwrap();
    let ec_der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ec.serialize_der()));
    let ec_key = provider.load_private_key(ec_der).unwrap();
    assert_eq!(ec_key.algorithm(), SignatureAlgorithm::ECDSA);
    assert!(!format!("{ec_key:?}").contains("Redc"));

    // Keys below 2048 bits and malformed keys are refused.
    let small = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    let small_der = small.to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Der).unwrap();
    let err = provider
        .load_private_key(PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(small_der.to_vec())))
        .unwrap_err();
    assert!(err.to_string().contains("1024-bit"), "{err}");
    let mut truncated = SERVER_KEY.pkcs8.clone();
    truncated.truncate(100);
    assert!(
        provider
            .load_private_key(PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(truncated)))
            .is_err()
    );
}

/// The provider helper keeps everything of *ring*'s default but the key provider.
#[test]
fn provider_is_ring_default_with_redc_keys() {
    let ring = rustls::crypto::ring::default_provider();
    let redc = redc_rustls::provider();
    assert_eq!(redc.cipher_suites, ring.cipher_suites);
    assert_eq!(
        redc.signature_verification_algorithms.supported_schemes(),
        ring.signature_verification_algorithms.supported_schemes()
    );
    assert!(format!("{:?}", redc.key_provider).starts_with("RedcKeyProvider"));
    assert!(!format!("{:?}", ring.key_provider).contains("Redc"));
}

// ---------------------------------------------------------------------------
// Counting redc's verifications

/// One of redc's algorithms, with a call counter.
#[derive(Debug)]
struct Counted {
    inner: &'static dyn SignatureVerificationAlgorithm,
    calls: AtomicUsize,
}

impl SignatureVerificationAlgorithm for Counted {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), rustls::pki_types::InvalidSignature> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.verify_signature(public_key, message, signature)
    }
    fn public_key_alg_id(&self) -> rustls::pki_types::AlgorithmIdentifier {
        self.inner.public_key_alg_id()
    }
    fn signature_alg_id(&self) -> rustls::pki_types::AlgorithmIdentifier {
        self.inner.signature_alg_id()
    }
}

/// Every one of redc's algorithms, counted; used by one test only.
static COUNTED: LazyLock<Vec<Counted>> = LazyLock::new(|| {
    verify::ALL
        .iter()
        .map(|&inner| Counted {
            inner,
            calls: AtomicUsize::new(0),
        })
        .collect()
});

fn counted(alg: &'static dyn SignatureVerificationAlgorithm) -> &'static Counted {
    COUNTED.iter().find(|c| std::ptr::addr_eq(c.inner, alg)).unwrap()
}

/// The redc-verifying client calls redc exactly twice per handshake: the
/// end-entity certificate's signature (sha256WithRSAEncryption, by the CA)
/// and the server's handshake signature (rsa_pss_rsae_sha512).
#[test]
fn redc_client_verifies_chain_and_handshake_signature() {
    let all: Vec<&'static dyn SignatureVerificationAlgorithm> = COUNTED
        .iter()
        .map(|c| c as &'static dyn SignatureVerificationAlgorithm)
        .collect();
    let mapping: Vec<(
        SignatureScheme,
        &'static [&'static dyn SignatureVerificationAlgorithm],
    )> = verify::RSA_MAPPING
        .iter()
        .map(|(s, algs)| {
            let one: &'static [&'static dyn SignatureVerificationAlgorithm] = Vec::leak(vec![
                counted(algs[0]) as &'static dyn SignatureVerificationAlgorithm,
            ]);
            (*s, one)
        })
        .collect();
    let algs = WebPkiSupportedAlgorithms {
        all: Vec::leak(all),
        mapping: Vec::leak(mapping),
    };
    let chain = make_chain(CertSigner::Ring);
    for v in [ProtocolVersion::TLSv1_3, ProtocolVersion::TLSv1_2] {
        let calls = || {
            COUNTED
                .iter()
                .map(|c| c.calls.load(Ordering::SeqCst))
                .collect::<Vec<_>>()
        };
        let before = calls();
        let ring = rustls::crypto::ring::default_provider();
        let key = load_server_key(&ring);
        let (server, _) = server_config(ring, v, &chain, key, false);
        let client_provider = CryptoProvider {
            signature_verification_algorithms: algs,
            ..redc_rustls::provider()
        };
        let client = client_config(client_provider, v, &chain.ca);
        handshake_and_echo(client, server, v);
        let delta: Vec<usize> = calls().iter().zip(&before).map(|(a, b)| a - b).collect();
        for (c, d) in COUNTED.iter().zip(&delta) {
            let is = |alg: &'static dyn SignatureVerificationAlgorithm| std::ptr::addr_eq(c.inner, alg);
            let expected = usize::from(is(&verify::RSA_PKCS1_SHA256) || is(&verify::RSA_PSS_SHA512));
            assert_eq!(*d, expected, "{v:?}: {:?}", c.inner);
        }
    }
}

// ---------------------------------------------------------------------------
// Keys and certificates made by the `openssl` binary

/// Run openssl with `args` in `dir`; `None` when there is no openssl binary.
fn openssl(dir: &std::path::Path, args: &[&str]) -> Option<()> {
    let out = match std::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("openssl: {e}"),
    };
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(())
}

/// OpenSSL makes the CA, the server key and its certificate; the server key
/// (as OpenSSL writes it: PKCS#8, and PKCS#1 "traditional") signs in redc,
/// a *ring* client and a redc-verifying client check it, over TLS 1.3 and 1.2.
#[test]
fn openssl_made_chain_and_key_in_redc() {
    use rustls::pki_types::pem::PemObject;
    let dir = std::env::temp_dir().join(format!("redc-rustls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let steps: &[&[&str]] = &[
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=redc-rustls OpenSSL CA",
        ],
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-set_serial",
            "7",
            "-days",
            "2",
            "-sha384",
            "-extfile",
            "ext.cnf",
            "-out",
            "server.pem",
        ],
        &[
            "rsa",
            "-in",
            "server.key",
            "-traditional",
            "-out",
            "server.pkcs1.key",
        ],
    ];
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=DNS:localhost\nbasicConstraints=critical,CA:FALSE\n",
    )
    .unwrap();
    for args in steps {
        if openssl(&dir, args).is_none() {
            eprintln!("SKIPPED: openssl_made_chain_and_key_in_redc: no openssl binary");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
    }
    let pem = |f: &str| CertificateDer::from_pem_file(dir.join(f)).unwrap();
    let chain = Chain {
        ca: pem("ca.pem"),
        end_entity: pem("server.pem"),
    };
    for key_file in ["server.key", "server.pkcs1.key"] {
        let key_der = PrivateKeyDer::from_pem_file(dir.join(key_file)).unwrap();
        let expect_pkcs1 = key_file.contains("pkcs1");
        assert_eq!(matches!(key_der, PrivateKeyDer::Pkcs1(_)), expect_pkcs1);
        for v in [ProtocolVersion::TLSv1_3, ProtocolVersion::TLSv1_2] {
            // The client verifies with *ring*, then with redc (OpenSSL's
            // sha384WithRSAEncryption certificate signature included).
            for client_provider in [
                rustls::crypto::ring::default_provider(),
                redc_rustls::provider_with_redc_verify(),
            ] {
                let redc = redc_rustls::provider();
                let key = redc.key_provider.load_private_key(key_der.clone_key()).unwrap();
                let (server, record) = server_config(redc, v, &chain, key, false);
                let client = client_config(client_provider, v, &chain.ca);
                handshake_and_echo(client, server, v);
                assert_redc_signed(&record, SignatureScheme::RSA_PSS_SHA512);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// Client authentication with the client's key in redc

/// Mutual TLS: the client's certificate key signs in redc (loaded by the
/// redc provider's key provider), a *ring* server verifies it with rustls's
/// `WebPkiClientVerifier`; TLS 1.3 and 1.2.
#[test]
fn client_key_in_redc_mutual_tls() {
    let server_chain = make_chain(CertSigner::Ring);
    let client_chain = make_chain_for(CertSigner::Redc, &CLIENT_KEY, "client.test");
    for v in [ProtocolVersion::TLSv1_3, ProtocolVersion::TLSv1_2] {
        let mut client_roots = RootCertStore::empty();
        client_roots.add(client_chain.ca.clone()).unwrap();
        let ring = Arc::new(rustls::crypto::ring::default_provider());
        let client_verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
            Arc::new(client_roots),
            Arc::clone(&ring),
        )
        .build()
        .unwrap();
        let server = ServerConfig::builder_with_provider(ring)
            .with_protocol_versions(&[version(v)])
            .unwrap()
            .with_client_cert_verifier(client_verifier)
            .with_single_cert(
                vec![server_chain.end_entity.clone(), server_chain.ca.clone()],
                server_key_der(),
            )
            .unwrap();

        let redc = redc_rustls::provider();
        let client_key_der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(CLIENT_KEY.pkcs8.clone()));
        let record = Arc::new(Record::default());
        let watched = Arc::new(Watched {
            inner: redc.key_provider.load_private_key(client_key_der).unwrap(),
            record: Arc::clone(&record),
            tamper: false,
        });
        let certified = CertifiedKey::new(
            vec![client_chain.end_entity.clone(), client_chain.ca.clone()],
            watched,
        );
        let mut server_roots = RootCertStore::empty();
        server_roots.add(server_chain.ca.clone()).unwrap();
        let client = ClientConfig::builder_with_provider(Arc::new(redc))
            .with_protocol_versions(&[version(v)])
            .unwrap()
            .with_root_certificates(server_roots)
            .with_client_cert_resolver(Arc::new(SingleCertAndKey::from(certified)));

        let mut client_conn =
            ClientConnection::new(Arc::new(client), ServerName::try_from("localhost").unwrap()).unwrap();
        let mut server_conn = ServerConnection::new(Arc::new(server)).unwrap();
        pump(&mut client_conn, &mut server_conn).expect("mutual TLS handshake failed");
        assert_eq!(server_conn.protocol_version(), Some(v));
        assert_eq!(
            server_conn.peer_certificates().unwrap()[0].as_ref(),
            client_chain.end_entity.as_ref()
        );
        client_conn.writer().write_all(b"authenticated").unwrap();
        pump(&mut client_conn, &mut server_conn).unwrap();
        let mut got = [0u8; 13];
        server_conn.reader().read_exact(&mut got).unwrap();
        assert_eq!(&got, b"authenticated");
        // The client's CertificateVerify was redc's.
        assert_redc_signed(&record, SignatureScheme::RSA_PSS_SHA512);
    }
}
