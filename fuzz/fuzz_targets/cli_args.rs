//! cargo-fuzz target `cli_args`: see [`redc_fuzz::cli_args`] in `fuzz/src/lib.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| redc_fuzz::cli_args(data));
