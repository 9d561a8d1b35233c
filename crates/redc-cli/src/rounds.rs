//! The rounds of `redc speed --compare` and the verdict drawn from them.
//!
//! A shared machine runs fast and slow spells that last seconds (other
//! guests take the core, the clock moves), long enough to fall on redc's row
//! and miss OpenSSL's. So redc and each anchor are measured in turn, round
//! after round, the order flipping every round, and the ratio is taken per
//! round, between figures taken a fraction of a second apart. The verdict
//! for an operation is the median of those per-round ratios, and their
//! slowest and fastest round say how far the machine let it move.

use crate::measure::Spread;

/// One implementation's rounds merged into one figure: the median of the
/// rounds' medians, the slowest and the fastest batch of any round, and
/// every batch counted. `None` for no round.
pub fn merge(rounds: &[Spread]) -> Option<Spread> {
    let mut medians: Vec<f64> = rounds.iter().map(|s| s.median).collect();
    medians.sort_by(f64::total_cmp);
    let median = *medians.get(medians.len() / 2)?;
    Some(Spread {
        median,
        min: rounds.iter().map(|s| s.min).fold(f64::INFINITY, f64::min),
        max: rounds.iter().map(|s| s.max).fold(0.0, f64::max),
        batches: rounds.iter().map(|s| s.batches).sum(),
    })
}

/// redc's ops/s over an anchor's, per round: the median round and the
/// range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Rounds in which both were measured.
    pub rounds: usize,
}

/// The per-round ratios of `redc` to `anchor` (round i with round i; a round
/// the anchor missed is left out). `None` when no round has both.
pub fn ratio(redc: &[Spread], anchor: &[Option<Spread>]) -> Option<Ratio> {
    let mut r: Vec<f64> = redc
        .iter()
        .zip(anchor)
        .filter_map(|(a, b)| b.map(|b| a.median / b.median))
        .collect();
    r.sort_by(f64::total_cmp);
    Some(Ratio {
        median: *r.get(r.len() / 2)?,
        min: r[0],
        max: r[r.len() - 1],
        rounds: r.len(),
    })
}

/// The verdict for one key size, one line: the first operation in full
/// ("RSA-2048 sign: redc 1.13x OpenSSL 4.0.3 on this CPU (rounds
/// 1.10-1.16x)"), the others after it, each with its round range, and a
/// warning where the rounds fall on both sides of 1 (faster in some,
/// slower in others: the machine decided that comparison, not the code).
pub fn verdict(bits: usize, anchor: &str, ops: &[(&str, Ratio)]) -> String {
    let range = |r: &Ratio| {
        let both = if r.min < 1.0 && r.max > 1.0 {
            ", faster in some rounds and slower in others"
        } else {
            ""
        };
        format!("(rounds {:.2}-{:.2}x{both})", r.min, r.max)
    };
    let mut line = String::new();
    for (i, (op, r)) in ops.iter().enumerate() {
        if i == 0 {
            line += &format!(
                "RSA-{bits} {op}: redc {:.2}x {anchor} on this CPU {}",
                r.median,
                range(r)
            );
        } else {
            line += &format!("; {op} {:.2}x {}", r.median, range(r));
        }
    }
    line
}

/// The spread warnings in one line: how many figures spread over more than
/// `limit` of their median across batches, the widest, and what to do.
/// `spreads` holds each figure's name and relative spread. `None` when no
/// figure spread that far.
pub fn spread_summary(spreads: &[(String, f64)], limit: f64) -> Option<String> {
    let over: Vec<&(String, f64)> = spreads.iter().filter(|(_, s)| *s > limit).collect();
    let widest = over.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(format!(
        "{} of {} figures spread by more than {:.0}% of their median across batches (widest: {}, {:.0}%); \
         the ratios, taken round by round, keep their own range; for steadier figures use a longer --seconds \
         or more --rounds, on a quiet machine",
        over.len(),
        spreads.len(),
        100.0 * limit,
        widest.0,
        100.0 * widest.1
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(median: f64, min: f64, max: f64) -> Spread {
        Spread {
            median,
            min,
            max,
            batches: 4,
        }
    }

    #[test]
    fn merge_takes_the_median_round_and_the_extremes() {
        let m = merge(&[s(10.0, 9.0, 11.0), s(30.0, 28.0, 35.0), s(20.0, 5.0, 21.0)]).unwrap();
        assert_eq!((m.median, m.min, m.max, m.batches), (20.0, 5.0, 35.0, 12));
        assert!(merge(&[]).is_none());
    }

    #[test]
    fn ratios_pair_the_rounds_and_skip_the_missed_ones() {
        // Round by round: 100/50 = 2, (missed), 90/60 = 1.5, 120/40 = 3.
        let redc = [
            s(100.0, 0.0, 0.0),
            s(1.0, 0.0, 0.0),
            s(90.0, 0.0, 0.0),
            s(120.0, 0.0, 0.0),
        ];
        let anchor = [
            Some(s(50.0, 0.0, 0.0)),
            None,
            Some(s(60.0, 0.0, 0.0)),
            Some(s(40.0, 0.0, 0.0)),
        ];
        let r = ratio(&redc, &anchor).unwrap();
        assert_eq!(
            r,
            Ratio {
                median: 2.0,
                min: 1.5,
                max: 3.0,
                rounds: 3
            }
        );
        assert!(ratio(&redc, &[None, None, None, None]).is_none());
    }

    #[test]
    fn the_verdict_is_one_line_per_size() {
        let sign = Ratio {
            median: 1.13,
            min: 1.1,
            max: 1.16,
            rounds: 5,
        };
        let verify = Ratio {
            median: 0.98,
            min: 0.9,
            max: 1.04,
            rounds: 5,
        };
        assert_eq!(
            verdict(2048, "OpenSSL 4.0.3", &[("sign", sign), ("verify", verify)]),
            "RSA-2048 sign: redc 1.13x OpenSSL 4.0.3 on this CPU (rounds 1.10-1.16x); \
             verify 0.98x (rounds 0.90-1.04x, faster in some rounds and slower in others)"
        );
    }

    #[test]
    fn spread_warnings_become_one_line() {
        let spreads = vec![
            ("2048 bits sign redc".to_string(), 0.66),
            ("2048 bits sign OpenSSL 4.0.3".to_string(), 0.26),
            ("2048 bits verify redc".to_string(), 0.05),
        ];
        let line = spread_summary(&spreads, 0.10).unwrap();
        assert!(
            line.starts_with("2 of 3 figures spread by more than 10%"),
            "{line}"
        );
        assert!(line.contains("widest: 2048 bits sign redc, 66%"), "{line}");
        assert!(line.contains("--seconds"), "{line}");
        assert!(!line.contains('\n'));
        assert!(spread_summary(&spreads[2..], 0.10).is_none());
    }
}
