//! cargo-fuzz target `private_key`: see [`redc_fuzz::private_key`] in `fuzz/src/lib.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| redc_fuzz::private_key(data));
