//! Guards around the option parser for users with OpenSSL habits: a
//! single-dash word such as `-out` is refused with the double-dash option
//! meant (clap would read it as `-o ut`), at most one input may come from
//! stdin, and clap's own errors keep their suggestions and usage, prefixed
//! with the subcommand.

use std::ffi::OsString;

/// OpenSSL's single-dash words and what redc calls them.
const OPENSSL_WORDS: &[(&str, &str)] = &[
    ("out", "--out (or -o)"),
    ("in", "--in"),
    ("key", "--key"),
    ("inkey", "--key"),
    ("signkey", "--key"),
    ("pubin", "--key (it accepts public keys)"),
    ("sigfile", "--sig"),
    ("signature", "--sig"),
    ("sign", "'redc sign --key FILE'"),
    ("verify", "'redc verify --key FILE --sig FILE'"),
    ("prverify", "'redc verify --key FILE --sig FILE'"),
    ("encrypt", "'redc encrypt'"),
    ("decrypt", "'redc decrypt'"),
    ("pubout", "'redc pubout'"),
    ("outform", "--der"),
    ("inform", "nothing: key files are read as PEM or DER alike"),
    ("pkeyopt", "--scheme, --hash or --label"),
    ("sha1", "--hash sha1"),
    ("sha256", "--hash sha256"),
    ("sha384", "--hash sha384"),
    ("sha512", "--hash sha512"),
];

/// The one-line refusal of a single-dash word (`-out`, `-in`, `-key`,
/// `-sign`), or `None` for anything else. Arguments after `--` are
/// operands and are not looked at; a dash followed by a digit (`-1`) is a
/// value, and `-o`, `-h`, `-V` are the real short options.
///
/// ```
/// # use std::ffi::OsString;
/// let args: Vec<OsString> = ["redc", "genrsa", "--bits", "2048", "-out"].iter().map(Into::into).collect();
/// assert!(redc_cli::single_dash_word(&args).unwrap().contains("--out"));
/// let fine: Vec<OsString> = ["redc", "verify", "--salt-len", "-1", "-o", "-"].iter().map(Into::into).collect();
/// assert_eq!(redc_cli::single_dash_word(&fine), None);
/// ```
pub fn single_dash_word(args: &[OsString]) -> Option<String> {
    for arg in args.iter().skip(1) {
        let Some(text) = arg.to_str() else { continue };
        if text == "--" {
            break;
        }
        let Some(word) = text.strip_prefix('-') else {
            continue;
        };
        if word.starts_with('-') || word.chars().count() < 2 {
            continue;
        }
        if !word.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        let name = word.split('=').next().unwrap_or(word);
        let shown = redc::keyfile::quote_untrusted(text);
        let meant = OPENSSL_WORDS
            .iter()
            .find(|(w, _)| *w == name)
            .map(|(_, m)| (*m).to_string())
            .unwrap_or_else(|| format!("--{}", redc::keyfile::quote_untrusted(name)));
        return Some(format!(
            "'{shown}' is not an option: redc's options take two dashes; did you mean {meant}?"
        ));
    }
    None
}

/// Refuse more than one input read from stdin: `names` pairs an option's
/// name with its value, `-` for one that reads stdin (an input given as
/// `-`, or `--passin stdin`).
pub fn one_stdin(names: &[(&str, &str)]) -> Result<(), String> {
    let from_stdin: Vec<&str> = names.iter().filter(|(_, v)| *v == "-").map(|(n, _)| *n).collect();
    if from_stdin.len() > 1 {
        return Err(format!(
            "{} all read stdin; at most one input can come from stdin",
            from_stdin.join(" and ")
        ));
    }
    Ok(())
}

/// The subcommand named on the command line, for prefixing messages.
pub fn subcommand_of(args: &[OsString], names: &[String]) -> Option<String> {
    args.iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find(|a| !a.starts_with('-'))
        .filter(|a| names.iter().any(|n| n == a))
        .map(str::to_string)
}

/// clap's rendered error with its suggestions ("tip: ...") and usage kept,
/// its leading "error: " replaced by `redc SUBCOMMAND: `.
pub fn render_parse_error(text: &str, subcommand: Option<&str>) -> String {
    let prefix = match subcommand {
        Some(s) => format!("redc {s}: "),
        None => "redc: ".to_string(),
    };
    let body = text.strip_prefix("error: ").unwrap_or(text);
    let mut out = format!("{prefix}{body}");
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// A long option of `names` one typo away from `typed` (a swapped pair of
/// neighbours, or one letter added, dropped or changed): for the short
/// options clap's own similarity test does not reach (`--sgi` for `--sig`).
pub fn near_option<'a>(typed: &str, names: &[&'a str]) -> Option<&'a str> {
    let t: Vec<char> = typed.chars().collect();
    names.iter().copied().find(|name| {
        let n: Vec<char> = name.chars().collect();
        if n == t {
            return false;
        }
        if n.len() == t.len() {
            let diff: Vec<usize> = (0..n.len()).filter(|&i| n[i] != t[i]).collect();
            return diff.len() == 1
                || (diff.len() == 2
                    && diff[1] == diff[0] + 1
                    && n[diff[0]] == t[diff[1]]
                    && n[diff[1]] == t[diff[0]]);
        }
        let (long, short) = if n.len() > t.len() { (&n, &t) } else { (&t, &n) };
        long.len() == short.len() + 1
            && (0..long.len()).any(|skip| {
                long.iter()
                    .enumerate()
                    .filter(|&(i, _)| i != skip)
                    .map(|(_, c)| c)
                    .eq(short.iter())
            })
    })
}
