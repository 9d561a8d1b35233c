//! `redc`: the command line of the redc RSA engine. The binary
//! (`src/main.rs`) only calls [`main`]; the library target exists so that the
//! option parser can be driven in process ([`parse_args`], the fuzz target
//! `cli_args` and its regression replay).
//!
//! Exit status: 0 on success, 2 on bad input (one line on stderr), 1 for a
//! failed verification where a command defines one.

mod bench;
mod hw;
mod io;
mod measure;
mod mont;
mod plot;
mod rsa_cmds;
mod speed;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "redc",
    version,
    about = "Fast, constant-time RSA on Montgomery multiplication"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// One Montgomery product A*B*R^-1 mod N with a chosen algorithm.
    Mont(mont::MontArgs),
    /// RSA sign and verify speed on in-memory keys (optionally beside OpenSSL).
    Speed(speed::SpeedArgs),
    /// Benchmarks of the arithmetic kernels.
    Bench(bench::BenchArgs),
    /// Bit-accurate, cycle-counting models of the seed papers' hardware.
    Hw(hw::HwArgs),
    /// Generate an RSA private key.
    Genrsa(rsa_cmds::GenrsaArgs),
    /// Write the public key of a key file.
    Pubout(rsa_cmds::PuboutArgs),
    /// Sign a file's hash (PKCS#1 v1.5 or PSS).
    Sign(rsa_cmds::SignArgs),
    /// Verify a signature: prints "Verified OK" (status 0) or "Verification failure" (status 1).
    Verify(rsa_cmds::VerifyArgs),
    /// Encrypt a file (OAEP or PKCS#1 v1.5).
    Encrypt(rsa_cmds::CryptArgs),
    /// Decrypt a file (OAEP or PKCS#1 v1.5 with implicit rejection).
    Decrypt(rsa_cmds::CryptArgs),
}

/// Parse `args` (the program name first) as the command line, without
/// running anything: what `redc` does before it touches a file. Bad options
/// are an `Err`, never a panic.
///
/// ```
/// assert!(redc_cli::parse_args(["redc", "verify", "--key", "k", "--in", "m", "--sig", "s"]).is_ok());
/// assert!(redc_cli::parse_args(["redc", "sign", "--scheme", "md5"]).is_err());
/// ```
pub fn parse_args<I, T>(args: I) -> Result<(), clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Cli::try_parse_from(args).map(|_| ())
}

/// The `redc` program: parse the process's arguments, run the command, exit
/// with its status.
pub fn main() -> ! {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => exit_on_parse_error(e),
    };
    let status = match cli.command {
        Command::Mont(args) => mont::run(args),
        Command::Speed(args) => speed::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Hw(args) => hw::run(args),
        Command::Genrsa(args) => rsa_cmds::genrsa(args),
        Command::Pubout(args) => rsa_cmds::pubout(args),
        Command::Sign(args) => rsa_cmds::sign(args),
        Command::Verify(args) => rsa_cmds::verify(args),
        Command::Encrypt(args) => rsa_cmds::encrypt(args),
        Command::Decrypt(args) => rsa_cmds::decrypt(args),
    };
    std::process::exit(status);
}

/// Help and version go to stdout with status 0; any other parse error is
/// reported as its one-line summary on stderr with status 2.
fn exit_on_parse_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            out(&e.to_string());
            std::process::exit(0);
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprint!("{e}");
            std::process::exit(2);
        }
        _ => {
            // clap's message may span lines (a list of missing arguments);
            // keep what precedes the usage block, joined into one line.
            let text = e.render().to_string();
            let message: Vec<&str> = text
                .lines()
                .take_while(|l| !l.starts_with("Usage:"))
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
                .collect();
            let message = message.join(" ");
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            eprintln!("redc: {message} (see 'redc --help')");
            std::process::exit(2);
        }
    }
}

/// Write `text` to stdout. A reader that has gone away (a closed pipe) ends
/// the program quietly with status 141, as SIGPIPE would, instead of a panic.
pub fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        std::process::exit(141);
    }
}

/// [`out`] with a newline.
pub fn outln(text: &str) {
    out(&format!("{text}\n"));
}

/// Report a bad-input error as one line on stderr; the exit status is 2.
pub fn fail(context: &str, message: impl std::fmt::Display) -> i32 {
    eprintln!("redc {context}: {message}");
    2
}
