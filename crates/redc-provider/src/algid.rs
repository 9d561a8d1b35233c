//! The DER `AlgorithmIdentifier` of a signature scheme: what the signature
//! context answers for "algorithm-id" (OpenSSL writes it into certificates,
//! CSRs and CMS), encoded through RustCrypto's `der` and `spki`.
//!
//! PKCS#1 v1.5: `<hash>WithRSAEncryption` (RFC 8017 appendix C) or, for
//! SHA-3, `id-rsassa-pkcs1-v1_5-with-sha3-*` (NIST CSOR), with NULL
//! parameters. PSS: `id-RSASSA-PSS` with `RSASSA-PSS-params` (RFC 8017
//! appendix A.2.3), each hash identifier with NULL parameters as OpenSSL
//! writes them, and the fields at their DEFAULT (SHA-1, MGF1 with SHA-1,
//! salt 20, trailer 1) omitted, as DER requires.

use der::asn1::{Any, ContextSpecific, Null, ObjectIdentifier};
use der::{Encode, EncodeValue, FixedTag, Length, Tag, TagMode, TagNumber, Writer};
use redc::hash::HashAlg;
use redc::keyfile::hash_oid;
use spki::{AlgorithmIdentifier, AlgorithmIdentifierOwned};

/// `id-RSASSA-PSS`.
const ID_RSASSA_PSS: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");
/// `id-mgf1`.
const ID_MGF1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.8");

/// The OID of PKCS#1 v1.5 signatures with `h`.
fn pkcs1_oid(h: HashAlg) -> ObjectIdentifier {
    ObjectIdentifier::new_unwrap(match h {
        HashAlg::Sha1 => "1.2.840.113549.1.1.5",
        HashAlg::Sha256 => "1.2.840.113549.1.1.11",
        HashAlg::Sha384 => "1.2.840.113549.1.1.12",
        HashAlg::Sha512 => "1.2.840.113549.1.1.13",
        HashAlg::Sha224 => "1.2.840.113549.1.1.14",
        HashAlg::Sha512_224 => "1.2.840.113549.1.1.15",
        HashAlg::Sha512_256 => "1.2.840.113549.1.1.16",
        HashAlg::Sha3_224 => "2.16.840.1.101.3.4.3.13",
        HashAlg::Sha3_256 => "2.16.840.1.101.3.4.3.14",
        HashAlg::Sha3_384 => "2.16.840.1.101.3.4.3.15",
        HashAlg::Sha3_512 => "2.16.840.1.101.3.4.3.16",
    })
}

/// `oid` with NULL parameters.
fn with_null(oid: ObjectIdentifier) -> AlgorithmIdentifier<Null> {
    AlgorithmIdentifier {
        oid,
        parameters: Some(Null),
    }
}

/// `[n] EXPLICIT value`.
fn explicit<T>(n: u32, value: T) -> ContextSpecific<T> {
    ContextSpecific {
        tag_number: TagNumber(n),
        tag_mode: TagMode::Explicit,
        value,
    }
}

/// `RSASSA-PSS-params`, each field `None` at its DEFAULT; the trailer
/// field is always the default 1.
struct PssParams {
    hash: Option<ContextSpecific<AlgorithmIdentifier<Null>>>,
    mask_gen: Option<ContextSpecific<AlgorithmIdentifier<AlgorithmIdentifier<Null>>>>,
    salt_len: Option<ContextSpecific<u64>>,
}

impl EncodeValue for PssParams {
    fn value_len(&self) -> der::Result<Length> {
        (self.hash.encoded_len()? + self.mask_gen.encoded_len()?)? + self.salt_len.encoded_len()?
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        self.hash.encode(writer)?;
        self.mask_gen.encode(writer)?;
        self.salt_len.encode(writer)
    }
}

impl FixedTag for PssParams {
    const TAG: Tag = Tag::Sequence;
}

/// The DER AlgorithmIdentifier of PKCS#1 v1.5 signatures with `h`.
pub fn pkcs1_algorithm_id(h: HashAlg) -> der::Result<Vec<u8>> {
    with_null(pkcs1_oid(h)).to_der()
}

/// The DER AlgorithmIdentifier of RSASSA-PSS with `h` for the message,
/// `mgf1` for MGF1 and `salt` bytes of salt.
pub fn pss_algorithm_id(h: HashAlg, mgf1: HashAlg, salt: usize) -> der::Result<Vec<u8>> {
    let params = PssParams {
        hash: (h != HashAlg::Sha1).then(|| explicit(0, with_null(hash_oid(h)))),
        mask_gen: (mgf1 != HashAlg::Sha1).then(|| {
            explicit(
                1,
                AlgorithmIdentifier {
                    oid: ID_MGF1,
                    parameters: Some(with_null(hash_oid(mgf1))),
                },
            )
        }),
        salt_len: match salt {
            20 => None,
            n => Some(explicit(
                2,
                u64::try_from(n).map_err(|_| der::ErrorKind::Overflow)?,
            )),
        },
    };
    AlgorithmIdentifierOwned {
        oid: ID_RSASSA_PSS,
        parameters: Some(Any::encode_from(&params)?),
    }
    .to_der()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Each PKCS#1 v1.5 identifier against OpenSSL's encoding of the same
    /// ASN.1, made independently of this code by `openssl asn1parse
    /// -genconf` from `asn1=SEQUENCE:a`, `[a] o=OID:<oid> p=NULL`.
    #[test]
    fn pkcs1_identifiers_match_openssl() {
        let want = [
            (HashAlg::Sha1, "300d06092a864886f70d0101050500"),
            (HashAlg::Sha256, "300d06092a864886f70d01010b0500"),
            (HashAlg::Sha384, "300d06092a864886f70d01010c0500"),
            (HashAlg::Sha512, "300d06092a864886f70d01010d0500"),
            (HashAlg::Sha224, "300d06092a864886f70d01010e0500"),
            (HashAlg::Sha512_224, "300d06092a864886f70d01010f0500"),
            (HashAlg::Sha512_256, "300d06092a864886f70d0101100500"),
            (HashAlg::Sha3_224, "300d060960864801650304030d0500"),
            (HashAlg::Sha3_256, "300d060960864801650304030e0500"),
            (HashAlg::Sha3_384, "300d060960864801650304030f0500"),
            (HashAlg::Sha3_512, "300d06096086480165030403100500"),
        ];
        for (h, der) in want {
            assert_eq!(pkcs1_algorithm_id(h).unwrap(), hex(der), "{h:?}");
        }
    }

    /// PSS identifiers against `openssl asn1parse -genconf` encodings of
    /// `SEQUENCE { OID id-RSASSA-PSS, SEQUENCE { [0] EXPLICIT hash, [1]
    /// EXPLICIT SEQUENCE { OID id-mgf1, hash }, [2] EXPLICIT INTEGER salt }
    /// }` with each hash `SEQUENCE { OID, NULL }` and the DEFAULT fields
    /// left out: every field, none, one, a salt of 0, one needing a
    /// leading zero byte (200) and one of two bytes (478).
    #[test]
    fn pss_identifiers_match_openssl() {
        use HashAlg::*;
        let want = [
            (Sha1, Sha1, 20, "300d06092a864886f70d01010a3000"),
            (
                Sha256,
                Sha256,
                32,
                "304106092a864886f70d01010a3034a00f300d06096086480165030402010500a11c301a06092a864886f70d010108\
                 300d06096086480165030402010500a203020120",
            ),
            (
                Sha512,
                Sha256,
                0,
                "304106092a864886f70d01010a3034a00f300d06096086480165030402030500a11c301a06092a864886f70d010108\
                 300d06096086480165030402010500a203020100",
            ),
            (
                Sha1,
                Sha384,
                20,
                "302b06092a864886f70d01010a301ea11c301a06092a864886f70d010108300d06096086480165030402020500",
            ),
            (
                Sha3_256,
                Sha3_256,
                200,
                "304206092a864886f70d01010a3035a00f300d06096086480165030402080500a11c301a06092a864886f70d010108\
                 300d06096086480165030402080500a204020200c8",
            ),
            (
                Sha384,
                Sha1,
                478,
                "302406092a864886f70d01010a3017a00f300d06096086480165030402020500a204020201de",
            ),
            (
                Sha512_224,
                Sha512_256,
                28,
                "304106092a864886f70d01010a3034a00f300d06096086480165030402050500a11c301a06092a864886f70d010108\
                 300d06096086480165030402060500a20302011c",
            ),
        ];
        for (h, mgf1, salt, der) in want {
            assert_eq!(
                pss_algorithm_id(h, mgf1, salt).unwrap(),
                hex(der),
                "{h:?} {mgf1:?} {salt}"
            );
        }
    }
}
