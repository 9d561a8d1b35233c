//! `redc mont`: one Montgomery product with a chosen algorithm.
//!
//! `redc mont --list` prints the variant names, one per line.
//! `redc mont --variant NAME --modulus HEX --a HEX --b HEX` prints the
//! lowercase hex of A*B*R^-1 mod N (R = 2^(64 s)), fully reduced, alone on
//! stdout. `--variant sqr` and `--variant karatsuba-sqr` take `--a` only
//! and print A*A*R^-1 mod N.

use crate::fail;
use redc::limb;
use redc::mont::{MontContext, Variant};

/// The largest modulus the command accepts, in bits.
const MAX_MODULUS_BITS: usize = 65536;

/// Arguments of `redc mont`.
#[derive(clap::Args, Debug)]
pub struct MontArgs {
    /// Print the variant names, one per line.
    #[arg(long)]
    list: bool,
    /// The algorithm (see --list).
    #[arg(long, value_name = "NAME", required_unless_present = "list")]
    variant: Option<String>,
    /// The odd modulus N >= 3, in hex.
    #[arg(long, value_name = "HEX", required_unless_present = "list")]
    modulus: Option<String>,
    /// The first operand A < N, in hex.
    #[arg(long, value_name = "HEX", required_unless_present = "list")]
    a: Option<String>,
    /// The second operand B < N, in hex (not for sqr, karatsuba-sqr).
    #[arg(long, value_name = "HEX")]
    b: Option<String>,
}

/// Run `redc mont`; returns the exit status.
pub fn run(args: MontArgs) -> i32 {
    if args.list {
        for v in Variant::ALL {
            crate::outln(v.name());
        }
        return 0;
    }
    match product(&args) {
        Ok(hex) => {
            crate::outln(&hex);
            0
        }
        Err(message) => fail("mont", message),
    }
}

fn product(args: &MontArgs) -> Result<String, String> {
    let name = args.variant.as_deref().unwrap_or_default();
    let variant = Variant::from_name(name).map_err(|e| e.to_string())?;
    let parse = |what: &str, text: &Option<String>| -> Result<Vec<u64>, String> {
        let text = text.as_deref().ok_or_else(|| format!("--{what} is required"))?;
        limb::from_hex(text).map_err(|_| format!("--{what}: '{}' is not a hexadecimal number", clip(text)))
    };
    let n = parse("modulus", &args.modulus)?;
    if limb::bit_len_vartime(&n) > MAX_MODULUS_BITS {
        return Err(format!("--modulus: larger than {MAX_MODULUS_BITS} bits"));
    }
    let ctx = MontContext::new(&n).map_err(|e| format!("--modulus: {e}"))?;
    let a = parse("a", &args.a)?;
    let a = ctx
        .reduced(&a)
        .map_err(|_| "--a: must be less than the modulus".to_string())?;
    let result = if variant.squares_only() {
        if let Some(b) = &args.b {
            let b =
                limb::from_hex(b).map_err(|_| format!("--b: '{}' is not a hexadecimal number", clip(b)))?;
            if limb::trim_vartime(&b) != limb::trim_vartime(&a) {
                return Err(format!("--variant {} squares --a: give --a only", variant.name()));
            }
        }
        ctx.square(variant, &a)
    } else {
        let b = parse("b", &args.b)?;
        let b = ctx
            .reduced(&b)
            .map_err(|_| "--b: must be less than the modulus".to_string())?;
        ctx.mul(variant, &a, &b)
    };
    let result = result.map_err(|e| format!("--variant {}: {e}", variant.name()))?;
    Ok(limb::to_hex_vartime(&result))
}

/// At most 40 characters of user text, for an error line.
fn clip(text: &str) -> String {
    redc::keyfile::clip_untrusted(text, 40)
}
