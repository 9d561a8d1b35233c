//! The Montgomery multiplication algorithms by name (`mont::Variant`): the
//! list, the default and each one's command-line name. The kernel each one
//! runs is chosen in [`crate::mont`].

/// The Montgomery multiplication algorithms, by the names the command line uses.
///
/// ```
/// use redc::mont::{MontContext, Variant};
/// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
/// let a = ctx.to_mont(&[17]).unwrap();
/// // Every variant computes the same squares (Sqr and Almost included).
/// for v in Variant::ALL {
///     let sq = ctx.square(v, &a).unwrap();
///     assert_eq!(ctx.from_mont(&sq).unwrap(), vec![17 * 17 % 241], "{v}");
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Radix 2, one bit of A per step ([`bitserial`](crate::mont::bitserial)).
    Bitserial,
    /// Separated Operand Scanning ([`sos`](crate::mont::sos)).
    Sos,
    /// Coarsely Integrated Operand Scanning ([`cios`](crate::mont::cios)).
    Cios,
    /// Finely Integrated Operand Scanning ([`fios`](crate::mont::fios)).
    Fios,
    /// Finely Integrated Product Scanning ([`fips`](crate::mont::fips)).
    Fips,
    /// Coarsely Integrated Hybrid Scanning ([`cihs`](crate::mont::cihs)).
    Cihs,
    /// Itoh's pipelined FIOS ([`itoh`](crate::mont::itoh)).
    Itoh,
    /// The enhanced Itoh form of 000 section 3.2 ([`itoh_enhanced`](crate::mont::itoh_enhanced)).
    ItohEnhanced,
    /// Dedicated squaring ([`sqr`](crate::mont::sqr)); one operand.
    Sqr,
    /// Almost-Montgomery, output below 2N ([`almost`](crate::mont::almost)).
    Almost,
    /// Number-level Karatsuba product, then SOS reduction ([`karatsuba`](crate::mont::karatsuba)).
    Karatsuba,
    /// Karatsuba squaring, then SOS reduction ([`karatsuba`](crate::mont::karatsuba)); one operand.
    KaratsubaSqr,
}

impl Variant {
    /// Every variant, in the order `redc mont --list` prints them.
    ///
    /// ```
    /// use redc::mont::Variant;
    /// assert_eq!(Variant::ALL.len(), 12);
    /// assert_eq!(Variant::ALL[0], Variant::Bitserial);
    /// assert!(Variant::ALL.contains(&Variant::DEFAULT));
    /// ```
    pub const ALL: [Variant; 12] = [
        Variant::Bitserial,
        Variant::Sos,
        Variant::Cios,
        Variant::Fios,
        Variant::Fips,
        Variant::Cihs,
        Variant::Itoh,
        Variant::ItohEnhanced,
        Variant::Sqr,
        Variant::Almost,
        Variant::Karatsuba,
        Variant::KaratsubaSqr,
    ];

    /// The library's default, chosen from the benchmark in docs/lab/.
    ///
    /// ```
    /// assert_eq!(redc::mont::Variant::DEFAULT.name(), "fips");
    /// ```
    pub const DEFAULT: Variant = Variant::Fips;

    /// The command-line name.
    ///
    /// ```
    /// use redc::mont::Variant;
    /// assert_eq!(Variant::ItohEnhanced.name(), "itoh-enhanced");
    /// assert_eq!(Variant::Cios.to_string(), "cios"); // Display is the name
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Variant::Bitserial => "bitserial",
            Variant::Sos => "sos",
            Variant::Cios => "cios",
            Variant::Fios => "fios",
            Variant::Fips => "fips",
            Variant::Cihs => "cihs",
            Variant::Itoh => "itoh",
            Variant::ItohEnhanced => "itoh-enhanced",
            Variant::Sqr => "sqr",
            Variant::Almost => "almost",
            Variant::Karatsuba => "karatsuba",
            Variant::KaratsubaSqr => "karatsuba-sqr",
        }
    }

    /// Whether the kernel squares its first operand and ignores the second
    /// ([`Variant::Sqr`], [`Variant::KaratsubaSqr`]).
    ///
    /// ```
    /// use redc::mont::Variant;
    /// assert!(Variant::KaratsubaSqr.squares_only());
    /// assert!(!Variant::Karatsuba.squares_only());
    /// ```
    pub fn squares_only(self) -> bool {
        matches!(self, Variant::Sqr | Variant::KaratsubaSqr)
    }
}

impl core::fmt::Display for Variant {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
