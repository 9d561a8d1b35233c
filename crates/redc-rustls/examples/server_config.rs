//! A rustls server configuration whose RSA key signs in redc.
//!
//! ```text
//! cargo run --release -p redc-rustls --example server_config -- CHAIN.pem KEY.pem
//! cargo run --release -p redc-rustls --example server_config
//! ```
//!
//! With a certificate chain and a private key file (PEM, as `openssl req
//! -x509 -newkey rsa:2048 -nodes -keyout KEY.pem -out CHAIN.pem -subj
//! /CN=localhost -addext subjectAltName=DNS:localhost -addext
//! basicConstraints=critical,CA:FALSE` writes them: webpki refuses a CA
//! certificate as the server's own), it builds the `ServerConfig` from
//! them. Without arguments it makes a redc key
//! and a self-signed `localhost` certificate (rcgen, signed through redc).
//! Either way it then runs one TLS 1.3 handshake in memory against a client
//! that trusts the certificate, and prints what was negotiated.

use redc::hash::HashAlg;
use redc::keyfile::{Encoding, PrivateKeyFormat, PublicKeyFormat};
use redc::rsa::{RsaPrivateKey, keygen, os_rng};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

/// rcgen's view of a redc key (sha256WithRSAEncryption certificate signatures).
struct RedcCertKey {
    key: RsaPrivateKey,
    public: Vec<u8>,
}

impl rcgen::PublicKeyData for RedcCertKey {
    fn der_bytes(&self) -> &[u8] {
        &self.public
    }
    fn algorithm(&self) -> &'static rcgen::SignatureAlgorithm {
        &rcgen::PKCS_RSA_SHA256
    }
}

impl rcgen::SigningKey for RedcCertKey {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, rcgen::Error> {
        let digest = HashAlg::Sha256.digest(msg);
        self.key
            .sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digest)
            .map_err(|_| rcgen::Error::RingUnspecified)
    }
}

type Material = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

fn from_files(chain: &str, key: &str) -> Result<Material, String> {
    let certs = CertificateDer::pem_file_iter(chain)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{chain}: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{chain}: no certificate"));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("{key}: {e}"))?;
    Ok((certs, key))
}

fn generated() -> Result<Material, String> {
    let key = keygen::generate(2048, 65537, &mut os_rng()).map_err(|e| e.to_string())?;
    let pkcs8 = key
        .to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Der)
        .map_err(|e| e.to_string())?;
    let public = key
        .public_key()
        .to_key_file(PublicKeyFormat::Pkcs1, Encoding::Der)
        .map_err(|e| e.to_string())?;
    let signer = RedcCertKey { key, public };
    let params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).map_err(|e| e.to_string())?;
    let cert = params.self_signed(&signer).map_err(|e| e.to_string())?;
    let key_der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pkcs8.to_vec()));
    Ok((vec![cert.der().clone()], key_der))
}

fn run(args: &[String]) -> Result<(), String> {
    let (chain, key) = match args {
        [] => generated()?,
        [chain, key] => from_files(chain, key)?,
        _ => return Err("usage: server_config [CHAIN.pem KEY.pem]".to_string()),
    };
    let provider = Arc::new(redc_rustls::provider());
    // What the provider makes of the key (ServerConfig does the same inside).
    let signing_key = provider
        .key_provider
        .load_private_key(key.clone_key())
        .map_err(|e| format!("key: {e}"))?;
    println!("signing key: {signing_key:?}");

    let server_config = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain.clone(), key)
        .map_err(|e| format!("certificate and key: {e}"))?;

    // A client trusting the chain's last certificate, verifying with redc too.
    let mut roots = RootCertStore::empty();
    roots
        .add(chain.last().cloned().ok_or("empty chain")?)
        .map_err(|e| format!("trust anchor: {e}"))?;
    let client_config =
        ClientConfig::builder_with_provider(Arc::new(redc_rustls::provider_with_redc_verify()))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
    let name = ServerName::try_from("localhost").map_err(|e| e.to_string())?;
    let mut client = ClientConnection::new(Arc::new(client_config), name).map_err(|e| e.to_string())?;
    let mut server = ServerConnection::new(Arc::new(server_config)).map_err(|e| e.to_string())?;
    client.writer().write_all(b"hello").map_err(|e| e.to_string())?;
    for _ in 0..8 {
        let mut buf = Vec::new();
        while client.wants_write() {
            client.write_tls(&mut buf).map_err(|e| e.to_string())?;
        }
        server.read_tls(&mut &buf[..]).map_err(|e| e.to_string())?;
        server.process_new_packets().map_err(|e| format!("server: {e}"))?;
        buf.clear();
        while server.wants_write() {
            server.write_tls(&mut buf).map_err(|e| e.to_string())?;
        }
        client.read_tls(&mut &buf[..]).map_err(|e| e.to_string())?;
        client.process_new_packets().map_err(|e| format!("client: {e}"))?;
    }
    let mut got = [0u8; 5];
    server.reader().read_exact(&mut got).map_err(|e| e.to_string())?;
    println!(
        "handshake: {:?}, {:?}; the server read {:?}",
        client.protocol_version().ok_or("no version")?,
        client.negotiated_cipher_suite().ok_or("no suite")?.suite(),
        String::from_utf8_lossy(&got)
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("server_config: {e}");
            ExitCode::from(2)
        }
    }
}
