//! `redc hw`: placeholder until the hardware models land (owned by the hw work).

/// Arguments of `redc hw`.
#[derive(clap::Args, Debug)]
pub struct HwArgs {
    #[command(subcommand)]
    pub command: HwCommand,
}

/// The `redc hw` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum HwCommand {
    /// Not yet available.
    Reproduce,
}

/// Run `redc hw`; returns the exit status.
pub fn run(_args: HwArgs) -> i32 {
    eprintln!("redc hw: the hardware models are not built yet");
    2
}
