//! Issue 13 item 3: nginx (the Debian package) serving TLS 1.2 and 1.3 with
//! RSA-2048 and RSA-4096 certificates through the redc provider, loaded by
//! an openssl.cnf this test writes; `openssl s_client` (default provider,
//! the independent side) checks each handshake, and the provider's trace
//! on nginx's stderr shows that redc made the server's signatures.

mod common;
use common::*;
use std::process::{Command, Stdio};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn nginx_handshakes_through_the_provider() {
    let dir = need_openssl!();
    let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(nginx) = nginx else {
        eprintln!("SKIPPED: nginx not installed (scripts/test.sh installs the Debian package)");
        return;
    };
    let w = work_dir().join("nginx");
    std::fs::create_dir_all(w.join("tmp")).unwrap();
    let cnf = w.join("openssl.cnf");
    std::fs::write(
        &cnf,
        format!(
            "openssl_conf = init\n[init]\nproviders = providers\nalg_section = algs\n\
             [providers]\ndefault = default_sect\nredc = redc_sect\n[default_sect]\nactivate = 1\n\
             [redc_sect]\nmodule = {}\nactivate = 1\n[algs]\ndefault_properties = ?provider=redc\n",
            dir.join("redc.so").display()
        ),
    )
    .unwrap();
    let mut servers = String::new();
    let mut ports = Vec::new();
    for bits in [2048, 4096] {
        let (key, _, cert) = key(bits);
        let port = free_port();
        ports.push((bits, port, cert.clone()));
        servers += &format!(
            "server {{ listen 127.0.0.1:{port} ssl; ssl_certificate {wd}/{cert}; ssl_certificate_key {wd}/{key}; \
             ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache off; ssl_session_tickets off; \
             location / {{ return 200 \"redc\\n\"; }} }}\n",
            wd = work_dir().display()
        );
    }
    let w_s = w.display();
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {w_s}/nginx.pid;\nerror_log {w_s}/error.log warn;\n\
         env REDC_PROVIDER_TRACE;\nevents {{ worker_connections 64; }}\n\
         http {{ access_log off; client_body_temp_path {w_s}/tmp/b; proxy_temp_path {w_s}/tmp/p; \
         fastcgi_temp_path {w_s}/tmp/f; uwsgi_temp_path {w_s}/tmp/u; scgi_temp_path {w_s}/tmp/s;\n{servers}}}\n"
    );
    std::fs::write(w.join("nginx.conf"), conf).unwrap();
    let mut server = Command::new(nginx)
        .args([
            "-p",
            &w.display().to_string(),
            "-c",
            &w.join("nginx.conf").display().to_string(),
        ])
        .args(["-e", &w.join("error.log").display().to_string()])
        .env("OPENSSL_CONF", &cnf)
        .env("REDC_PROVIDER_TRACE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut results = Vec::new();
    for (bits, port, cert) in &ports {
        for proto in ["-tls1_3", "-tls1_2"] {
            let addr = format!("127.0.0.1:{port}");
            let mut ok = None;
            for _ in 0..150 {
                let o = Command::new("openssl")
                    .args([
                        "s_client",
                        "-connect",
                        &addr,
                        "-CAfile",
                        cert,
                        "-verify_return_error",
                        "-brief",
                        proto,
                    ])
                    .current_dir(work_dir())
                    .stdin(Stdio::null())
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&o.stderr).into_owned();
                if err.contains("CONNECTION ESTABLISHED") {
                    ok = Some(err);
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            results.push((*bits, proto, ok));
        }
    }
    let _ = server.kill();
    let out = server.wait_with_output().unwrap();
    let trace = String::from_utf8_lossy(&out.stderr);
    let log = std::fs::read_to_string(w.join("error.log")).unwrap_or_default();
    for (bits, proto, ok) in &results {
        let err = ok
            .as_ref()
            .unwrap_or_else(|| panic!("no handshake with nginx, RSA-{bits} {proto}:\n{log}\n{trace}"));
        assert!(err.contains("Verification: OK"), "{err}");
        let want = if *proto == "-tls1_3" { "TLSv1.3" } else { "TLSv1.2" };
        assert!(err.contains(&format!("Protocol version: {want}")), "{err}");
    }
    // Four handshakes, four server signatures by redc (PSS: OpenSSL's
    // client prefers rsa_pss_rsae_* in both protocols).
    // (nginx points its stderr at the error log once it has started.)
    let signs = trace
        .lines()
        .chain(log.lines())
        .filter(|l| l.starts_with("redc-provider: sign"))
        .count();
    assert!(signs >= 4, "redc made {signs} signatures:\n{trace}\n{log}");
}
