//! Links libcrypto: the system one (pkg-config), or with the `vendored`
//! feature the newest OpenSSL built from the `openssl-src` crate, statically.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "vendored")]
    {
        let artifacts = openssl_src::Build::new().build();
        println!("cargo:rustc-link-search=native={}", artifacts.lib_dir().display());
        println!("cargo:rustc-link-lib=static=crypto");
        println!(
            "cargo:rustc-env=REDC_ANCHOR_BUILD=vendored openssl-src {}",
            openssl_src::version()
        );
    }
    #[cfg(not(feature = "vendored"))]
    {
        if let Err(e) = pkg_config::Config::new().probe("libcrypto") {
            panic!(
                "redc-openssl-anchor: libcrypto not found through pkg-config ({e}); \
                 install libssl-dev and pkg-config, or build with --features vendored"
            );
        }
        println!("cargo:rustc-env=REDC_ANCHOR_BUILD=system libcrypto (pkg-config)");
    }
}
