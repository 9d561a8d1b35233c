//! cargo-fuzz target `verify`: see [`redc_fuzz::verify`] in `fuzz/src/lib.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| redc_fuzz::verify(data));
