//! cargo-fuzz target `decrypt`: see [`redc_fuzz::decrypt`] in `fuzz/src/lib.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| redc_fuzz::decrypt(data));
