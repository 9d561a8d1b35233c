use redc::hash::HashAlg;
use redc::rsa::{keygen, os_rng};
fn main() {
    let bits: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2048);
    let key = keygen::generate(bits, 65537, &mut os_rng()).unwrap();
    let ds: Vec<Vec<u8>> = (0..32u32)
        .map(|i| HashAlg::Sha256.digest(&i.to_le_bytes()))
        .collect();
    let refs: Vec<&[u8]> = ds.iter().map(|d| &d[..]).collect();
    let t = std::time::Instant::now();
    let mut n = 0;
    while t.elapsed().as_secs_f64() < 4.0 {
        std::hint::black_box(key.sign_pkcs1v15_batch(&mut os_rng(), HashAlg::Sha256, &refs));
        n += 32;
    }
    eprintln!("{:.1} us/sig", t.elapsed().as_secs_f64() * 1e6 / n as f64);
}
