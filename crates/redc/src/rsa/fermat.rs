//! Inverses modulo a prime by Fermat's little theorem, `x^(p-2) mod p`,
//! through the constant-time window: p and x may be secret.

use super::crt::Secret;
use crate::exp::MontEngine;
use crate::limb;
use zeroize::Zeroizing;

/// `m - 2` for an odd `m > 2` (the Fermat exponent of an inverse mod a prime).
pub(crate) fn minus_two(m: &[u64]) -> Secret {
    let mut e = Zeroizing::new(m.to_vec());
    limb::sub_assign(&mut e, &limb::resize(&[2], m.len()).expect("m has a limb"));
    e
}

/// `x^-1 mod p` for a prime `p` and any `x` not divisible by p: Fermat,
/// `x^(p-2) mod p` through the constant-time window. Errors only for an
/// even or too small p.
pub(crate) fn inverse_mod_prime(p: &[u64], x: &[u64]) -> Result<Secret, crate::Error> {
    let engine = MontEngine::new(p)?;
    let x_p = Zeroizing::new(engine.reduce(x, &mut engine.workspace()));
    Ok(Zeroizing::new(engine.pow_secret_reduced(&x_p, &minus_two(p))))
}
