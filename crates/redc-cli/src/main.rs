//! The `redc` binary: everything is in the library target (`src/lib.rs`).

fn main() {
    redc_cli::main()
}
