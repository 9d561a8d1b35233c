//! `handshake-client ADDR SECONDS THREADS tls13|tls12 [request|close]`:
//! full TLS handshakes (each on a new TCP connection, no resumption)
//! against ADDR for SECONDS, from THREADS threads. After each handshake,
//! `request` (the default) sends one HTTP/1.0 request and reads the
//! response to the end; `close` sends close_notify at once and waits until
//! the server closes the connection (no request: a handshake and nothing
//! else, as `openssl s_time -new` without `-www` makes, except that s_time
//! closes at once where this client waits for the server). Either way the
//! server has read the client's Finished before the connection counts; in
//! `close` mode over TLS 1.3 the only sign of that is the server's close
//! (nginx sends no close_notify back), so a server that died without an
//! alert would count too: `scripts/nginx_handshakes.sh` checks that the
//! worker process survived each case. Prints `handshakes SECONDS_ELAPSED`.
//!
//! The server's certificate chain is accepted without path validation (a
//! self-signed benchmark certificate), but its handshake signature is
//! verified as usual, so the client does a real client's work.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{WebPkiSupportedAlgorithms, ring};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme, StreamOwned};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct AcceptChain(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for AcceptChain {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 && args.len() != 6 {
        eprintln!("usage: handshake-client ADDR SECONDS THREADS tls13|tls12 [request|close]");
        std::process::exit(2);
    }
    let request = match args.get(5).map(String::as_str) {
        None | Some("request") => true,
        Some("close") => false,
        Some(other) => panic!("unknown mode {other} (request or close)"),
    };
    let addr = args[1].clone();
    let seconds: u64 = args[2].parse().expect("SECONDS");
    let threads: usize = args[3].parse().expect("THREADS");
    let version = match args[4].as_str() {
        "tls13" => &rustls::version::TLS13,
        "tls12" => &rustls::version::TLS12,
        other => panic!("unknown protocol {other}"),
    };
    let provider = Arc::new(ring::default_provider());
    let verifier = Arc::new(AcceptChain(provider.signature_verification_algorithms));
    let config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[version])
        .expect("protocol version")
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let mut config = config;
    config.resumption = rustls::client::Resumption::disabled();
    let config = Arc::new(config);
    let count = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (config, addr, count, errors, stop) = (
                config.clone(),
                addr.clone(),
                count.clone(),
                errors.clone(),
                stop.clone(),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match one(&config, &addr, request) {
                        Ok(()) => count.fetch_add(1, Ordering::Relaxed),
                        Err(e) => {
                            if errors.fetch_add(1, Ordering::Relaxed) == 0 {
                                eprintln!("handshake-client: first failure: {e}");
                            }
                            0
                        }
                    };
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let elapsed = start.elapsed().as_secs_f64();
    let errors = errors.load(Ordering::Relaxed);
    if errors > 0 {
        eprintln!("handshake-client: {errors} failed connections");
    }
    println!("{} {elapsed:.3}", count.load(Ordering::Relaxed));
}

fn one(config: &Arc<ClientConfig>, addr: &str, request: bool) -> std::io::Result<()> {
    let mut sock = TcpStream::connect(addr)?;
    sock.set_nodelay(true)?;
    let name = ServerName::try_from("localhost").unwrap();
    let mut conn = ClientConnection::new(config.clone(), name).map_err(std::io::Error::other)?;
    if !request {
        while conn.is_handshaking() {
            conn.complete_io(&mut sock)?;
        }
        conn.send_close_notify();
        let mut tls = StreamOwned::new(conn, sock);
        tls.flush()?;
        // complete_io has written our Finished (in TLS 1.2 the server's
        // Finished, already read, shows it checked ours). The server reads
        // the close_notify after our Finished, and closes; an alert from it
        // (a Finished it rejected) comes back as an error.
        let mut rest = Vec::new();
        return match tls.read_to_end(&mut rest) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(()),
            Err(e) => Err(e),
        };
    }
    let mut tls = StreamOwned::new(conn, sock);
    tls.write_all(b"GET / HTTP/1.0\r\n\r\n")?;
    let mut body = Vec::new();
    match tls.read_to_end(&mut body) {
        Ok(_) => {}
        // nginx closes without close_notify after the response.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !body.is_empty() => {}
        Err(e) => return Err(e),
    }
    if body.starts_with(b"HTTP/1.1 200") {
        Ok(())
    } else {
        Err(std::io::Error::other("bad response"))
    }
}
