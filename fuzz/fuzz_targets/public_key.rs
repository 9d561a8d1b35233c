//! cargo-fuzz target `public_key`: see [`redc_fuzz::public_key`] in `fuzz/src/lib.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| redc_fuzz::public_key(data));
