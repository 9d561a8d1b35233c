//! `redc hw`: the bit-accurate, cycle-counting hardware models of `redc-hw`.
//!
//! * `redc hw modexp --design csa5to2|csa4to2|hrm --modulus HEX --base HEX
//!   --exp HEX [--radix-bits K] [--json]`
//! * `redc hw montmul --design csa5to2|csa4to2|hrm|qpipe --modulus HEX --a HEX
//!   --b HEX [--radix-bits K] [--depth D] [--json]`
//! * `redc hw reproduce [--json]`
//!
//! `cycles` is what the paper's formula counts (McIvor et al. Table 4 / Table 1, Zhao et al.
//! eq. (1), Shand and Vuillemin section 8.2), `total_cycles` everything the model simulates;
//! both are counted by the simulations.  Bad input: one line on stderr,
//! status 2.  See docs/HARDWARE.md.

use crate::fail;
use redc_hw::csa_mont::CsaDesign;
use redc_hw::num_bigint::BigUint;
use redc_hw::{csa_exp, csa_mont, formulas, hrm, qpipe, reproduce};
use serde_json::json;

/// Largest modulus the models accept, in bits (the bit-serial models take
/// O(k · k_e) simulated clocks, each O(k) work).
const MAX_MODULUS_BITS: u64 = 4096;
/// Largest exponent the models accept, in bits.
const MAX_EXPONENT_BITS: u64 = 4096;
/// Default radix exponent of the Zhao et al. pipeline (SEA-II's k = 32).
const DEFAULT_HRM_RADIX_BITS: u32 = 32;
/// Default digit size of the Shand and Vuillemin multiplier (the PAM's radix 4).
const DEFAULT_QPIPE_RADIX_BITS: u32 = 2;

/// Arguments of `redc hw`.
#[derive(clap::Args, Debug)]
pub struct HwArgs {
    /// The model to run.
    #[command(subcommand)]
    pub command: HwCommand,
}

/// The `redc hw` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum HwCommand {
    /// One modular exponentiation base^exp mod modulus on a simulated circuit.
    Modexp(ModexpArgs),
    /// One Montgomery product a*b*R^-1 mod modulus on a simulated circuit.
    Montmul(MontmulArgs),
    /// The seed papers' table rows against the models.
    Reproduce(ReproduceArgs),
    /// Write synthesizable Verilog-2005 of a design and its testbench tb.v.
    Rtl(RtlArgs),
}

/// Arguments of `redc hw rtl`.
#[derive(clap::Args, Debug)]
pub struct RtlArgs {
    /// Design: csa5to2, csa4to2 or hrm.
    #[arg(long, value_name = "NAME")]
    pub design: String,
    /// Modulus width in bits (the design serves moduli of exactly this width).
    #[arg(long, value_name = "N")]
    pub bits: u32,
    /// Radix exponent k of the hrm pipeline (2 to 64, default 32).
    #[arg(long, value_name = "K")]
    pub radix_bits: Option<u32>,
    /// Output directory (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: std::path::PathBuf,
}

/// Arguments of `redc hw modexp`.
#[derive(clap::Args, Debug)]
pub struct ModexpArgs {
    /// csa5to2 (McIvor et al. Alg. 2 + Alg. 5), csa4to2 (McIvor et al. Alg. 3 + Alg. 5) or hrm (Zhao et al. pipeline).
    #[arg(long, value_name = "NAME")]
    pub design: String,
    /// The odd modulus >= 3, in hex.
    #[arg(long, value_name = "HEX")]
    pub modulus: String,
    /// The base, smaller than the modulus, in hex.
    #[arg(long, value_name = "HEX")]
    pub base: String,
    /// The exponent, in hex.
    #[arg(long, value_name = "HEX")]
    pub exp: String,
    /// Radix 2^K of the hrm pipeline, K from 2 to 64 (default 32).
    #[arg(long, value_name = "K")]
    pub radix_bits: Option<u32>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `redc hw montmul`.
#[derive(clap::Args, Debug)]
pub struct MontmulArgs {
    /// csa5to2, csa4to2, hrm or qpipe (Shand and Vuillemin Alg. 6 with quotient pipelining).
    #[arg(long, value_name = "NAME")]
    pub design: String,
    /// The odd modulus >= 3, in hex.
    #[arg(long, value_name = "HEX")]
    pub modulus: String,
    /// The first operand, smaller than the modulus, in hex.
    #[arg(long, value_name = "HEX")]
    pub a: String,
    /// The second operand, smaller than the modulus, in hex.
    #[arg(long, value_name = "HEX")]
    pub b: String,
    /// Digit size in bits: hrm 2..64 (default 32), qpipe 1..64 (default 2).
    #[arg(long, value_name = "K")]
    pub radix_bits: Option<u32>,
    /// Quotient-pipelining depth d of qpipe, 0..16 (default 0).
    #[arg(long, value_name = "D")]
    pub depth: Option<u32>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `redc hw reproduce`.
#[derive(clap::Args, Debug)]
pub struct ReproduceArgs {
    /// Print a JSON array of rows.
    #[arg(long)]
    pub json: bool,
    /// Also draw model / paper for every row (log scale, 1 = exact) as SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<String>,
    /// Show progress even when stderr is not a terminal (the models take
    /// seconds; shown on a terminal anyway).
    #[arg(long)]
    pub progress: bool,
}

/// Run `redc hw`; returns the exit status.
pub fn run(args: HwArgs) -> i32 {
    let outcome = match args.command {
        HwCommand::Modexp(a) => modexp(&a),
        HwCommand::Montmul(a) => montmul(&a),
        HwCommand::Reproduce(a) => reproduce_cmd(&a),
        HwCommand::Rtl(a) => rtl_cmd(&a),
    };
    match outcome {
        Ok(()) => 0,
        Err(message) => fail("hw", message),
    }
}

/// Parses a hexadecimal number: optional `0x`, case-insensitive, not empty.
fn parse_hex(what: &str, text: &str) -> Result<BigUint, String> {
    let t = text.trim();
    let digits = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    if digits.is_empty() {
        return Err(format!("--{what}: empty hexadecimal number"));
    }
    if !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("--{what}: '{}' is not a hexadecimal number", clip(text)));
    }
    BigUint::parse_bytes(digits.as_bytes(), 16)
        .ok_or_else(|| format!("--{what}: '{}' is not a hexadecimal number", clip(text)))
}

fn clip(text: &str) -> String {
    redc::keyfile::clip_untrusted(text, 40)
}

fn hex(x: &BigUint) -> String {
    x.to_str_radix(16)
}

fn parse_modulus(text: &str) -> Result<BigUint, String> {
    let n = parse_hex("modulus", text)?;
    if n.bits() > MAX_MODULUS_BITS {
        return Err(format!("--modulus: larger than {MAX_MODULUS_BITS} bits"));
    }
    redc_hw::check_modulus(&n).map_err(|e| format!("--modulus: {e}"))?;
    Ok(n)
}

fn reduced(what: &str, text: &str, n: &BigUint) -> Result<BigUint, String> {
    let x = parse_hex(what, text)?;
    if &x >= n {
        return Err(format!("--{what}: must be smaller than the modulus"));
    }
    Ok(x)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Design {
    Csa(CsaDesign),
    Hrm,
    Qpipe,
}

fn parse_design(name: &str, allow_qpipe: bool) -> Result<Design, String> {
    match name.trim().to_ascii_lowercase().as_str() {
        "csa5to2" => Ok(Design::Csa(CsaDesign::FiveToTwo)),
        "csa4to2" => Ok(Design::Csa(CsaDesign::FourToTwo)),
        "hrm" => Ok(Design::Hrm),
        "qpipe" if allow_qpipe => Ok(Design::Qpipe),
        _ if allow_qpipe => Err(format!(
            "--design: unknown design '{}' (expected csa5to2, csa4to2, hrm or qpipe)",
            clip(name)
        )),
        _ => Err(format!(
            "--design: unknown design '{}' (expected csa5to2, csa4to2 or hrm)",
            clip(name)
        )),
    }
}

fn print_object(value: serde_json::Value, as_json: bool) {
    if as_json {
        crate::outln(&value.to_string());
        return;
    }
    if let serde_json::Value::Object(map) = value {
        for (k, v) in map {
            match v {
                // The numbers' values (result, R) are hexadecimal: say so with
                // 0x; every other figure is a decimal count.
                serde_json::Value::String(s) if HEX_FIELDS.contains(&k.as_str()) => {
                    crate::outln(&format!("{k}: 0x{s}"))
                }
                serde_json::Value::String(s) => crate::outln(&format!("{k}: {s}")),
                other => crate::outln(&format!("{k}: {other}")),
            }
        }
    }
}

/// The fields of `modexp`/`montmul` that hold numbers in hexadecimal (the
/// JSON form keeps them as bare lowercase hex strings).
const HEX_FIELDS: [&str; 2] = ["result", "r"];

/// A paper's short name for the table, with the number the README's Papers
/// section gives it (the JSON gives authors and title).
fn paper_name(paper: &str) -> &'static str {
    match paper {
        reproduce::SEED_002 => "002 Zhao et al.",
        reproduce::SEED_003 => "003 Shand, Vuillemin",
        reproduce::SEED_004 => "004 McIvor et al.",
        _ => "(unknown)",
    }
}

fn modexp(args: &ModexpArgs) -> Result<(), String> {
    let design = parse_design(&args.design, false)?;
    let n = parse_modulus(&args.modulus)?;
    let base = reduced("base", &args.base, &n)?;
    let e = parse_hex("exp", &args.exp)?;
    if e.bits() > MAX_EXPONENT_BITS {
        return Err(format!("--exp: larger than {MAX_EXPONENT_BITS} bits"));
    }
    let k = n.bits();
    let l = e.bits();
    let value = match design {
        Design::Csa(d) => {
            if args.radix_bits.is_some() {
                return Err("--radix-bits applies to --design hrm only".into());
            }
            let rep = csa_exp::modexp(d, &n, &base, &e).map_err(|e| e.to_string())?;
            let (paper, formula) = match d {
                CsaDesign::FiveToTwo => (
                    formulas::mcivor_exp_cycles(k, l),
                    "(k+2)(k_e+3), McIvor et al. Table 4",
                ),
                CsaDesign::FourToTwo => (
                    (k + 3) * (l + 3),
                    "(k+3)(k_e+3): Table 4 with Alg. 3's k+2 per product",
                ),
            };
            json!({
                "design": d.name(),
                "result": hex(&rep.result),
                "cycles": rep.cycles,
                "total_cycles": rep.total_cycles,
                "r": hex(&(BigUint::from(1u32) << rep.r_bits)),
                "r_bits": rep.r_bits,
                "k": k,
                "exp_bits": l,
                "pre_cycles": rep.pre_cycles,
                "loop_cycles": rep.loop_cycles,
                "post_cycles": rep.post_cycles,
                "add_cycles": rep.add_cycles,
                "paper_cycles": paper,
                "paper_formula": formula,
            })
        }
        Design::Hrm => {
            let rb = args.radix_bits.unwrap_or(DEFAULT_HRM_RADIX_BITS);
            let rep = hrm::modexp(&n, &base, &e, rb).map_err(|e| format!("--radix-bits: {e}"))?;
            json!({
                "design": "hrm",
                "result": hex(&rep.result),
                "cycles": rep.cycles,
                "total_cycles": rep.total_cycles,
                "radix_bits": rep.radix_bits,
                "m": rep.m,
                "units": rep.units,
                "r": hex(&(BigUint::from(1u32) << rep.r_bits)),
                "r_bits": rep.r_bits,
                "exp_bits": l,
                "paper_cycles": if l == 0 { 0 } else { formulas::zhao_eq1(l, rep.m as u64) },
                "paper_formula": "l[2(m+3)+1]+m+2, Zhao et al. eq. (1)",
            })
        }
        Design::Qpipe => return Err("--design qpipe is a multiplier only (use montmul)".into()),
    };
    print_object(value, args.json);
    Ok(())
}

fn montmul(args: &MontmulArgs) -> Result<(), String> {
    let design = parse_design(&args.design, true)?;
    let n = parse_modulus(&args.modulus)?;
    let a = reduced("a", &args.a, &n)?;
    let b = reduced("b", &args.b, &n)?;
    if args.depth.is_some() && design != Design::Qpipe {
        return Err("--depth applies to --design qpipe only".into());
    }
    let k = n.bits();
    let value = match design {
        Design::Csa(d) => {
            if args.radix_bits.is_some() {
                return Err("--radix-bits applies to --design hrm and qpipe only".into());
            }
            let rep = csa_mont::montmul(d, &n, &a, &b).map_err(|e| e.to_string())?;
            json!({
                "design": d.name(),
                "result": hex(&rep.result),
                "cycles": rep.cycles,
                "total_cycles": rep.total_cycles,
                "r": hex(&(BigUint::from(1u32) << rep.r_bits)),
                "r_bits": rep.r_bits,
                "k": k,
                "paper_cycles": formulas::mcivor_mult_cycles(k, d == CsaDesign::FourToTwo),
                "paper_formula": "k+1 (Alg. 2) / k+2 (Alg. 3), McIvor et al. Table 1",
            })
        }
        Design::Hrm => {
            let rb = args.radix_bits.unwrap_or(DEFAULT_HRM_RADIX_BITS);
            let rep = hrm::montmul(&n, &a, &b, rb).map_err(|e| format!("--radix-bits: {e}"))?;
            json!({
                "design": "hrm",
                "result": hex(&rep.result),
                "cycles": rep.cycles,
                "total_cycles": rep.total_cycles,
                "radix_bits": rep.radix_bits,
                "m": rep.m,
                "r": hex(&(BigUint::from(1u32) << rep.r_bits)),
                "r_bits": rep.r_bits,
                "paper_cycles": formulas::zhao_eq1(1, rep.m as u64),
                "paper_formula": "eq. (1) with l = 1, Zhao et al.",
            })
        }
        Design::Qpipe => {
            let rb = args.radix_bits.unwrap_or(DEFAULT_QPIPE_RADIX_BITS);
            let d = args.depth.unwrap_or(0);
            let rep = qpipe::montmul(&n, &a, &b, rb, d).map_err(|e| match e {
                redc_hw::HwError::DepthOutOfRange { .. } => format!("--depth: {e}"),
                redc_hw::HwError::RadixOutOfRange { .. } => format!("--radix-bits: {e}"),
                other => other.to_string(),
            })?;
            json!({
                "design": "qpipe",
                "result": hex(&rep.result),
                "cycles": rep.cycles,
                "total_cycles": rep.total_cycles,
                "radix_bits": rep.radix_bits,
                "depth": rep.depth,
                "digits": rep.digits,
                "r": hex(&(BigUint::from(1u32) << rep.r_bits)),
                "r_bits": rep.r_bits,
                "realign_cycles": rep.realign_cycles,
                "carry_cycles": rep.carry_cycles,
                "reduce_cycles": rep.reduce_cycles,
                "paper_cycles": formulas::shand_qpipe_iterations(rep.digits, d as u64),
                "paper_formula": "n+d iterations, Shand and Vuillemin section 8.2",
            })
        }
    };
    print_object(value, args.json);
    Ok(())
}

fn rtl_cmd(args: &RtlArgs) -> Result<(), String> {
    let design = parse_design(&args.design, false)?;
    if !(redc_hw::rtl::MIN_BITS..=redc_hw::rtl::MAX_BITS).contains(&args.bits) {
        return Err(format!(
            "--bits: {} is out of range (accepted: {} to {})",
            args.bits,
            redc_hw::rtl::MIN_BITS,
            redc_hw::rtl::MAX_BITS
        ));
    }
    let files = match design {
        Design::Csa(d) => {
            if args.radix_bits.is_some() {
                return Err("--radix-bits: only for --design hrm".to_string());
            }
            redc_hw::rtl::csa_files(d, args.bits)
        }
        Design::Hrm => {
            let rb = args.radix_bits.unwrap_or(DEFAULT_HRM_RADIX_BITS);
            if !(hrm::MIN_RADIX_BITS..=hrm::MAX_RADIX_BITS).contains(&rb) {
                return Err(format!(
                    "--radix-bits: {rb} is out of range (accepted: {} to {})",
                    hrm::MIN_RADIX_BITS,
                    hrm::MAX_RADIX_BITS
                ));
            }
            redc_hw::rtl_hrm::hrm_files(args.bits, rb)
        }
        Design::Qpipe => return Err("--design qpipe: no RTL generator".to_string()),
    };
    std::fs::create_dir_all(&args.output)
        .map_err(|e| format!("-o: cannot create {}: {e}", args.output.display()))?;
    // write every file under a temporary name first, then rename: no partial output
    let mut staged = Vec::new();
    for (name, text) in &files {
        let tmp = args.output.join(format!(".{name}.tmp"));
        if let Err(e) = std::fs::write(&tmp, text) {
            for (t, _) in &staged {
                let _ = std::fs::remove_file(t);
            }
            let _ = std::fs::remove_file(&tmp);
            return Err(format!("-o: cannot write {}: {e}", tmp.display()));
        }
        staged.push((tmp, args.output.join(name)));
    }
    for (tmp, dst) in &staged {
        std::fs::rename(tmp, dst).map_err(|e| format!("-o: cannot write {}: {e}", dst.display()))?;
    }
    Ok(())
}

fn reproduce_cmd(args: &ReproduceArgs) -> Result<(), String> {
    // A plot that could not be written fails before the (seconds long) models run.
    if let Some(path) = &args.plot {
        let dir = std::path::Path::new(path)
            .parent()
            .filter(|d| !d.as_os_str().is_empty());
        if dir.is_some_and(|d| !d.is_dir()) {
            return Err(format!(
                "--plot '{}': no such directory",
                redc::keyfile::quote_untrusted(path)
            ));
        }
    }
    let spinner =
        crate::progress::spinner(args.progress, "redc hw reproduce: running the models".to_string());
    let rows = reproduce::rows();
    if let Some(bar) = &spinner {
        bar.finish_and_clear();
    }
    if let Some(path) = &args.plot {
        // One point per table row: the paper's figure across, the model's
        // up (each row in its own unit: cycles, ms, counts), beside the
        // line of exact agreement.
        let points: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.ratio().is_finite() && r.ratio() > 0.0 && r.paper_value > 0.0)
            .map(|r| (r.paper_value, r.model_value))
            .collect();
        crate::plot::agreement_chart(
            path,
            &format!(
                "redc hw reproduce: the models against the papers' tables ({} rows)",
                points.len()
            ),
            "the paper's figure (each row in its own unit: cycles, ms, counts)",
            "the model's figure (same unit)",
            &points,
        )?;
    }
    if args.json {
        let arr: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut v = json!({
                    "paper": r.paper,
                    "table": r.table,
                    "row": r.row,
                    "quantity": r.quantity,
                    "paper_value": r.paper_value,
                    "model_value": r.model_value,
                    "ratio": r.ratio(),
                    "within_2pct": r.within_2pct(),
                    "paper_source": r.source.name(),
                    "same_formula": r.same_formula,
                });
                // The model's further counts behind a row (003's Karatsuba
                // rows), only where there are some.
                if !r.detail.is_empty() {
                    let detail: serde_json::Map<String, serde_json::Value> =
                        r.detail.iter().map(|&(k, x)| (k.to_string(), json!(x))).collect();
                    v["detail"] = serde_json::Value::Object(detail);
                }
                v
            })
            .collect();
        crate::outln(&serde_json::Value::Array(arr).to_string());
        return Ok(());
    }
    crate::outln(&format!(
        "{:<26} {:<12} {:<52} {:<44} {:>12} {:<7} {:>12} {:>7}",
        "paper", "table", "row", "quantity", "paper", "source", "model", "ratio"
    ));
    for r in &rows {
        let mut flag = if r.within_2pct() { "" } else { "  *" }.to_string();
        if r.same_formula.is_some() {
            flag.push_str("  =");
        }
        crate::outln(&format!(
            "{:<26} {:<12} {:<52} {:<44} {:>12} {:<7} {:>12} {:>7.4}{flag}",
            paper_name(r.paper),
            r.table,
            r.row,
            r.quantity,
            fmt_num(r.paper_value),
            r.source.name(),
            fmt_num(r.model_value),
            r.ratio()
        ));
    }
    for r in rows.iter().filter(|r| !r.detail.is_empty()) {
        // Not at the start of a line: table rows are the lines starting "00".
        crate::outln(&format!(
            "model detail, {} {}, {}:",
            paper_name(r.paper),
            r.table,
            r.row
        ));
        for (name, x) in &r.detail {
            crate::outln(&format!("  {name} = {}", fmt_num(*x)));
        }
    }
    crate::outln("* outside 2%: see docs/HARDWARE.md for the cause");
    crate::outln(
        "= no evidence: the model's figure follows from the same formula as the paper's \
         (--json gives the reason in same_formula)",
    );
    crate::outln(
        "source: printed = the figure is printed in the paper; formula = computed from the paper's formula",
    );
    Ok(())
}

fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modexp_args(design: &str, modulus: &str, base: &str, exp: &str, radix: Option<u32>) -> HwArgs {
        HwArgs {
            command: HwCommand::Modexp(ModexpArgs {
                design: design.into(),
                modulus: modulus.into(),
                base: base.into(),
                exp: exp.into(),
                radix_bits: radix,
                json: true,
            }),
        }
    }

    fn montmul_args(
        design: &str,
        modulus: &str,
        a: &str,
        b: &str,
        radix: Option<u32>,
        depth: Option<u32>,
    ) -> HwArgs {
        HwArgs {
            command: HwCommand::Montmul(MontmulArgs {
                design: design.into(),
                modulus: modulus.into(),
                a: a.into(),
                b: b.into(),
                radix_bits: radix,
                depth,
                json: true,
            }),
        }
    }

    #[test]
    fn hex_parsing() {
        assert_eq!(parse_hex("x", "0xFf").unwrap(), BigUint::from(255u32));
        assert_eq!(parse_hex("x", "0XaB").unwrap(), BigUint::from(171u32));
        assert_eq!(parse_hex("x", "10").unwrap(), BigUint::from(16u32));
        assert!(parse_hex("x", "").is_err());
        assert!(parse_hex("x", "0x").is_err());
        assert!(parse_hex("x", "12g").is_err());
        assert!(parse_hex("x", "-1").is_err());
        assert!(parse_hex("x", "1 2").is_err());
    }

    #[test]
    fn good_inputs_succeed() {
        for d in ["csa5to2", "csa4to2", "hrm", "HRM"] {
            assert_eq!(run(modexp_args(d, "0xc5", "0x12", "0x10001", None)), 0, "{d}");
        }
        assert_eq!(run(modexp_args("hrm", "c5", "0", "0", Some(2))), 0);
        for d in ["csa5to2", "csa4to2", "hrm", "qpipe"] {
            assert_eq!(run(montmul_args(d, "0xc5", "0x12", "0xc4", None, None)), 0, "{d}");
        }
        assert_eq!(run(montmul_args("qpipe", "c5", "1", "2", Some(3), Some(4))), 0);
    }

    #[test]
    fn bad_inputs_exit_2() {
        let bad_modexp = [
            modexp_args("csa3to2", "c5", "1", "1", None),
            modexp_args("qpipe", "c5", "1", "1", None),
            modexp_args("hrm", "c4", "1", "1", None),
            modexp_args("hrm", "1", "0", "1", None),
            modexp_args("hrm", "", "0", "1", None),
            modexp_args("hrm", "c5", "c5", "1", None),
            modexp_args("hrm", "c5", "1", "zz", None),
            modexp_args("hrm", "c5", "1", "1", Some(1)),
            modexp_args("hrm", "c5", "1", "1", Some(65)),
            modexp_args("csa5to2", "c5", "1", "1", Some(8)),
        ];
        for a in bad_modexp {
            assert_eq!(run(a), 2);
        }
        let bad_montmul = [
            montmul_args("csa", "c5", "1", "1", None, None),
            montmul_args("qpipe", "c5", "1", "1", None, Some(17)),
            montmul_args("qpipe", "c5", "1", "1", Some(0), None),
            montmul_args("hrm", "c5", "1", "1", None, Some(1)),
            montmul_args("csa4to2", "c5", "c6", "1", None, None),
            montmul_args("csa4to2", "2", "1", "1", None, None),
        ];
        for a in bad_montmul {
            assert_eq!(run(a), 2);
        }
    }
}
