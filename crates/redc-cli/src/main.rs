//! The `redc` binary: everything is in the library target (`src/lib.rs`),
//! except the look at stdout that must happen before the Rust runtime
//! starts ([`stdout_probe`]).

mod stdout_probe;

fn main() {
    if stdout_probe::was_closed() {
        redc_cli::mark_stdout_closed();
    }
    redc_cli::main()
}
