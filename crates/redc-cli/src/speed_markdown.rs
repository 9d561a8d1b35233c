//! `redc speed --markdown`: the comparison as a Markdown section, for
//! `docs/PERFORMANCE.md` (one section per CPU and mask, pasted as printed):
//! a heading with the CPU, the date and the kernel, the command that made
//! it, one table row per size and operation with each anchor's ops/s and
//! the per-round ratio's median and range, and the verdict lines.

/// One table row: redc's ops/s and, per anchor, its ops/s and the ratio's
/// median, min and max over the rounds (`None` where it was not measured).
pub struct MdRow {
    pub bits: usize,
    pub op: &'static str,
    pub redc: f64,
    pub anchors: Vec<Option<(f64, f64, f64, f64)>>,
}

/// What the heading and the method line say.
pub struct MdContext<'a> {
    pub cpu: &'a str,
    pub kernel: &'a str,
    pub family: &'a str,
    /// The features `REDC_CPU_DISABLE` hides (empty: none).
    pub disabled: &'a [&'a str],
    pub anchors: &'a [String],
    pub command: &'a str,
    pub threads: usize,
    pub rounds: u16,
    pub seconds: f64,
}

/// The section, ending with a newline.
pub fn section(ctx: &MdContext<'_>, rows: &[MdRow], verdicts: &[String]) -> String {
    let mask = if ctx.disabled.is_empty() {
        String::new()
    } else {
        format!(
            ", `REDC_CPU_DISABLE` hides {} (a proxy for a CPU without them)",
            ctx.disabled.join(", ")
        )
    };
    let mut md = format!(
        "### {}, {}: redc kernel {} (family {}){mask}\n\n",
        ctx.cpu,
        crate::date::today(),
        ctx.kernel,
        ctx.family
    );
    md += &format!(
        "`{}`: RSA PKCS#1 v1.5 SHA-256, {} thread{}, {} s per row in {} round{}; ratio = redc's ops/s over OpenSSL's, per round: the median round (the range over the rounds).\n\n",
        ctx.command,
        ctx.threads,
        if ctx.threads == 1 { "" } else { "s" },
        ctx.seconds,
        ctx.rounds,
        if ctx.rounds == 1 { "" } else { "s" },
    );
    md += "| bits | op | redc ops/s |";
    for a in ctx.anchors {
        md += &format!(" {a} ops/s | redc / {a} |");
    }
    md += "\n|---:|---|---:|";
    for _ in ctx.anchors {
        md += "---:|---|";
    }
    md += "\n";
    for r in rows {
        md += &format!("| {} | {} | {:.1} |", r.bits, r.op, r.redc);
        for a in &r.anchors {
            match a {
                Some((ops, median, min, max)) => {
                    md += &format!(" {ops:.1} | {median:.2}x ({min:.2}-{max:.2}x) |")
                }
                None => md += " - | - |",
            }
        }
        md += "\n";
    }
    if !verdicts.is_empty() {
        md += "\n";
        for v in verdicts {
            md += &format!("- {v}\n");
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_has_the_table_and_the_verdicts() {
        let ctx = MdContext {
            cpu: "CPU X",
            kernel: "adx",
            family: "adx",
            disabled: &["ifma", "avx512"],
            anchors: &["OpenSSL 4.0.3".to_string()],
            command: "redc speed --compare --markdown",
            threads: 1,
            rounds: 5,
            seconds: 2.0,
        };
        let rows = [MdRow {
            bits: 2048,
            op: "sign",
            redc: 1234.56,
            anchors: vec![Some((1000.0, 1.2345, 1.1, 1.3))],
        }];
        let md = section(&ctx, &rows, &["RSA-2048 sign: redc 1.23x".to_string()]);
        assert!(md.starts_with("### CPU X, 20"), "{md}");
        assert!(md.contains("hides ifma, avx512"), "{md}");
        assert!(
            md.contains("| bits | op | redc ops/s | OpenSSL 4.0.3 ops/s | redc / OpenSSL 4.0.3 |"),
            "{md}"
        );
        assert!(
            md.contains("| 2048 | sign | 1234.6 | 1000.0 | 1.23x (1.10-1.30x) |"),
            "{md}"
        );
        assert!(md.ends_with("- RSA-2048 sign: redc 1.23x\n"), "{md}");
    }
}
