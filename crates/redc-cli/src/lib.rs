//! `redc`: the command line of the redc RSA engine. The binary
//! (`src/main.rs`) only calls [`main`]; the library target exists so that the
//! option parser can be driven in process ([`parse_args`], the fuzz target
//! `cli_args` and its regression replay).
//!
//! Exit status: 0 on success, 2 on bad input (one line on stderr), 1 for a
//! failed verification where a command defines one.

mod bench;
mod date;
mod guard;
mod hw;
mod io;
mod measure;
mod mont;
mod pass;
mod pkey;
mod plot;
mod progress;
mod rounds;
mod rsa_args;
mod rsa_cmds;
mod sign_common;
mod sign_many;
mod speed;
mod speed_markdown;

pub use guard::single_dash_word;
pub use io::mark_stdout_closed;

/// The running subcommand's name, for [`out`]'s messages.
static SUBCOMMAND: std::sync::OnceLock<String> = std::sync::OnceLock::new();

use clap::{CommandFactory, Parser, Subcommand};

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
    /// Generate an RSA private key.
    Genrsa(rsa_args::GenrsaArgs),
    /// Write the public key of a key file.
    Pubout(rsa_args::PuboutArgs),
    /// Sign a file's hash (PKCS#1 v1.5 or PSS).
    Sign(rsa_args::SignArgs),
    /// Verify a signature: prints "Verified OK" (status 0) or "Verification failure" (status 1).
    Verify(rsa_args::VerifyArgs),
    /// Encrypt a file (OAEP or PKCS#1 v1.5).
    Encrypt(rsa_args::CryptArgs),
    /// Decrypt a file (OAEP, or PKCS#1 v1.5 with implicit rejection: see `redc decrypt --help`).
    #[command(long_about = rsa_args::DECRYPT_ABOUT)]
    Decrypt(rsa_args::CryptArgs),
    /// Look inside a key: size, exponent, type; --text components; --check consistency.
    Pkey(pkey::PkeyArgs),
    /// RSA sign and verify speed on in-memory keys (optionally beside OpenSSL).
    Speed(speed::SpeedArgs),
    /// Benchmarks of the arithmetic kernels and of key generation.
    Bench(bench::BenchArgs),
    /// One Montgomery product A*B*R^-1 mod N with a chosen algorithm.
    Mont(mont::MontArgs),
    /// Bit-accurate, cycle-counting models of the seed papers' hardware.
    Hw(hw::HwArgs),
    /// Print a shell completion script: `redc completions bash > ~/.local/share/bash-completion/completions/redc`.
    Completions(CompletionsArgs),
}

/// Arguments of `redc completions`.
#[derive(clap::Args, Debug)]
struct CompletionsArgs {
    /// The shell.
    shell: CompletionShell,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

fn completions(args: CompletionsArgs) -> i32 {
    let shell = match args.shell {
        CompletionShell::Bash => clap_complete::Shell::Bash,
        CompletionShell::Zsh => clap_complete::Shell::Zsh,
        CompletionShell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "redc", &mut script);
    out(&String::from_utf8_lossy(&script));
    0
}

/// The single-dash guard ([`single_dash_word`]), then clap.
fn try_parse(args: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
    if let Some(message) = single_dash_word(&args) {
        return Err(clap::Error::raw(
            clap::error::ErrorKind::UnknownArgument,
            format!("{message}\n"),
        ));
    }
    Cli::try_parse_from(args)
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
    try_parse(args.into_iter().map(Into::into).collect()).map(|_| ())
}

/// The `redc` program: parse the process's arguments, run the command, exit
/// with its status.
pub fn main() -> ! {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match try_parse(args.clone()) {
        Ok(cli) => cli,
        Err(e) => exit_on_parse_error(e, &args),
    };
    // REDC_KERNEL, REDC_CPU_DISABLE and REDC_FORCE_PORTABLE take fixed
    // values: an unknown one is refused before any command runs.
    if let Some(msg) = redc::arch::select::settings_error() {
        eprintln!("redc: {msg}");
        std::process::exit(2);
    }
    let names: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    if let Some(name) = guard::subcommand_of(&args, &names) {
        let _ = SUBCOMMAND.set(name);
    }
    let status = match cli.command {
        Command::Genrsa(args) => rsa_cmds::genrsa(args),
        Command::Pubout(args) => rsa_cmds::pubout(args),
        Command::Sign(args) => rsa_cmds::sign(args),
        Command::Verify(args) => rsa_cmds::verify(args),
        Command::Encrypt(args) => rsa_cmds::encrypt(args),
        Command::Decrypt(args) => rsa_cmds::decrypt(args),
        Command::Pkey(args) => pkey::run(args),
        Command::Speed(args) => speed::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Mont(args) => mont::run(args),
        Command::Hw(args) => hw::run(args),
        Command::Completions(args) => completions(args),
    };
    std::process::exit(status);
}

/// Help and version go to stdout with status 0; any other parse error goes
/// to stderr with status 2: clap's message with its suggestions and usage,
/// prefixed with the subcommand ("redc sign: unexpected argument ...").
fn exit_on_parse_error(e: clap::Error, args: &[std::ffi::OsString]) -> ! {
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
            let names: Vec<String> = Cli::command()
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let sub = guard::subcommand_of(args, &names);
            let mut text = e.render().to_string();
            if let (ErrorKind::UnknownArgument, Some(sub), Some(typed)) =
                (e.kind(), sub.as_deref(), unknown_long(&text))
                && !text.contains("tip:")
            {
                let longs: Vec<String> = Cli::command()
                    .find_subcommand(sub)
                    .map(|c| {
                        c.get_arguments()
                            .filter_map(|a| a.get_long())
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                let longs: Vec<&str> = longs.iter().map(String::as_str).collect();
                if let Some(near) = guard::near_option(&typed, &longs)
                    && let Some(i) = text.find("\n\n")
                {
                    text.insert_str(i, &format!("\n\n  tip: a similar argument exists: '--{near}'"));
                }
            }
            eprint!("{}", guard::render_parse_error(&text, sub.as_deref()));
            std::process::exit(2);
        }
    }
}

/// The long option named in clap's "unexpected argument '--sgi' found".
fn unknown_long(text: &str) -> Option<String> {
    let rest = text.split("unexpected argument '--").nth(1)?;
    Some(rest.split(['\'', '=']).next()?.to_string())
}

/// Write `text` to stdout. A failed write (a full device, a closed stdout,
/// a reader that has gone away) ends the program with one line on stderr
/// and status 2, as every other write failure does.
pub fn out(text: &str) {
    if let Err(message) = io::write_stdout(text.as_bytes()) {
        let sub = SUBCOMMAND.get().map_or(String::new(), |s| format!(" {s}"));
        eprintln!("redc{sub}: {message}");
        std::process::exit(2);
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
