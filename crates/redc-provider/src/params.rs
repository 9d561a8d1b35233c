//! Parameter values as the safe side sees them: what [`crate::ffi`] reads
//! out of, and writes into, OpenSSL's `OSSL_PARAM` arrays.

use zeroize::Zeroizing;

/// One parameter value. Big integers are big-endian magnitudes (OpenSSL
/// passes them little-endian; [`crate::ffi`] converts) and are wiped on drop.
#[derive(Clone, Debug)]
pub enum Value {
    /// An `OSSL_PARAM_INTEGER` (or a small unsigned one when written).
    Int(i64),
    /// An `OSSL_PARAM_UNSIGNED_INTEGER` of any size, big-endian.
    Big(Zeroizing<Vec<u8>>),
    /// A UTF-8 string (`OSSL_PARAM_UTF8_STRING` or `_PTR`).
    Utf8(String),
    /// An octet string (`OSSL_PARAM_OCTET_STRING` or `_PTR`).
    Octet(Vec<u8>),
    /// A value OpenSSL asks for either as a number or as a name (the RSA
    /// padding mode, the PSS salt length): written as whichever the caller's
    /// parameter type is.
    Named(i64, String),
}

impl Value {
    /// The value as a signed number: an integer, a short unsigned one, or
    /// a decimal string.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(v) | Value::Named(v, _) => Some(*v),
            Value::Big(b) => {
                let first = b.iter().position(|&x| x != 0).unwrap_or(b.len());
                let b = &b[first..];
                if b.len() > 7 {
                    return None;
                }
                Some(b.iter().fold(0i64, |acc, &x| (acc << 8) | i64::from(x)))
            }
            Value::Utf8(s) => s.trim().parse().ok(),
            Value::Octet(_) => None,
        }
    }

    /// The value as a string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Utf8(s) | Value::Named(_, s) => Some(s),
            _ => None,
        }
    }
}

/// A parameter read from OpenSSL: its key and value.
#[derive(Clone, Debug)]
pub struct Param {
    /// The key, such as `"n"` or `"pad-mode"`.
    pub key: String,
    /// The value.
    pub value: Value,
}

/// The value of `key` in `params`, if present.
pub fn find<'a>(params: &'a [Param], key: &str) -> Option<&'a Value> {
    params.iter().find(|p| p.key == key).map(|p| &p.value)
}

/// The OpenSSL name of a hash (`EVP_get_digestbyname` accepts it).
pub fn md_name(h: redc::hash::HashAlg) -> &'static str {
    use redc::hash::HashAlg;
    match h {
        HashAlg::Sha1 => "SHA1",
        HashAlg::Sha224 => "SHA224",
        HashAlg::Sha256 => "SHA256",
        HashAlg::Sha384 => "SHA384",
        HashAlg::Sha512 => "SHA512",
        HashAlg::Sha512_224 => "SHA512-224",
        HashAlg::Sha512_256 => "SHA512-256",
        HashAlg::Sha3_224 => "SHA3-224",
        HashAlg::Sha3_256 => "SHA3-256",
        HashAlg::Sha3_384 => "SHA3-384",
        HashAlg::Sha3_512 => "SHA3-512",
    }
}

/// A digest name as OpenSSL spells it ("SHA256", "SHA2-256", "sha-256",
/// "SHA3-256", "SHA1", or the dotted OID, which OpenSSL's name map also
/// accepts and passes on as given); `None` for a digest the provider does
/// not offer (MD5, SHAKE, ...).
pub fn parse_md(name: &str) -> Option<redc::hash::HashAlg> {
    use redc::hash::HashAlg;
    // OIDs: RFC 3279 2.2.1 (SHA-1), NIST CSOR hashAlgs (SHA-2, SHA-3).
    match name.trim() {
        "1.3.14.3.2.26" => Some(HashAlg::Sha1),
        "2.16.840.1.101.3.4.2.1" => Some(HashAlg::Sha256),
        "2.16.840.1.101.3.4.2.2" => Some(HashAlg::Sha384),
        "2.16.840.1.101.3.4.2.3" => Some(HashAlg::Sha512),
        "2.16.840.1.101.3.4.2.4" => Some(HashAlg::Sha224),
        "2.16.840.1.101.3.4.2.5" => Some(HashAlg::Sha512_224),
        "2.16.840.1.101.3.4.2.6" => Some(HashAlg::Sha512_256),
        "2.16.840.1.101.3.4.2.7" => Some(HashAlg::Sha3_224),
        "2.16.840.1.101.3.4.2.8" => Some(HashAlg::Sha3_256),
        "2.16.840.1.101.3.4.2.9" => Some(HashAlg::Sha3_384),
        "2.16.840.1.101.3.4.2.10" => Some(HashAlg::Sha3_512),
        other => HashAlg::from_name(other),
    }
}

/// The RSA padding modes, with OpenSSL's numbers (`RSA_PKCS1_PADDING` = 1, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pad {
    /// PKCS#1 v1.5 (signatures and encryption).
    Pkcs1,
    /// No padding: the raw primitive on k-byte inputs.
    None,
    /// OAEP (encryption).
    Oaep,
    /// X9.31 (not supported by redc; named so it can be refused).
    X931,
    /// PSS (signatures).
    Pss,
    /// PKCS#1 v1.5 with the TLS pre-master secret checks (not supported).
    Tls,
}

impl Pad {
    /// From the number or the name OpenSSL sends.
    pub fn parse(v: &Value) -> Option<Pad> {
        if let Some(s) = v.as_str() {
            return match s {
                "pkcs1" => Some(Pad::Pkcs1),
                "none" => Some(Pad::None),
                "oaep" | "oeap" => Some(Pad::Oaep),
                "x931" => Some(Pad::X931),
                "pss" => Some(Pad::Pss),
                _ => s.parse::<i64>().ok().and_then(Pad::from_number),
            };
        }
        v.as_int().and_then(Pad::from_number)
    }

    fn from_number(n: i64) -> Option<Pad> {
        match n {
            1 => Some(Pad::Pkcs1),
            3 => Some(Pad::None),
            4 => Some(Pad::Oaep),
            5 => Some(Pad::X931),
            6 => Some(Pad::Pss),
            7 => Some(Pad::Tls),
            _ => None,
        }
    }

    /// The value to answer a `get` with.
    pub fn value(self) -> Value {
        let (n, s) = match self {
            Pad::Pkcs1 => (1, "pkcs1"),
            Pad::None => (3, "none"),
            Pad::Oaep => (4, "oaep"),
            Pad::X931 => (5, "x931"),
            Pad::Pss => (6, "pss"),
            Pad::Tls => (7, "7"),
        };
        Value::Named(n, s.to_string())
    }
}

/// A PSS salt length as OpenSSL's applications set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Salt {
    /// The digest's length (`RSA_PSS_SALTLEN_DIGEST`, -1).
    Digest,
    /// Signing: the longest that fits; verifying: whatever the signature
    /// holds (`RSA_PSS_SALTLEN_AUTO`, -2; OpenSSL's default).
    Auto,
    /// The longest that fits (`RSA_PSS_SALTLEN_MAX`, -3).
    Max,
    /// Signing: the digest length capped by the maximum; verifying: auto
    /// (`RSA_PSS_SALTLEN_AUTO_DIGEST_MAX`, -4, OpenSSL 3.1 and later).
    AutoDigestMax,
    /// Exactly this many bytes.
    Len(usize),
}

impl Salt {
    /// From the number or the name OpenSSL sends.
    pub fn parse(v: &Value) -> Option<Salt> {
        if let Some(s) = v.as_str() {
            return match s {
                "digest" => Some(Salt::Digest),
                "auto" => Some(Salt::Auto),
                "max" => Some(Salt::Max),
                "auto-digestmax" => Some(Salt::AutoDigestMax),
                _ => s.trim().parse::<i64>().ok().and_then(Salt::from_number),
            };
        }
        v.as_int().and_then(Salt::from_number)
    }

    fn from_number(n: i64) -> Option<Salt> {
        match n {
            -1 => Some(Salt::Digest),
            -2 => Some(Salt::Auto),
            -3 => Some(Salt::Max),
            -4 => Some(Salt::AutoDigestMax),
            n if n >= 0 => usize::try_from(n).ok().map(Salt::Len),
            _ => None,
        }
    }

    /// The value to answer a `get` with.
    pub fn value(self) -> Value {
        match self {
            Salt::Digest => Value::Named(-1, "digest".into()),
            Salt::Auto => Value::Named(-2, "auto".into()),
            Salt::Max => Value::Named(-3, "max".into()),
            Salt::AutoDigestMax => Value::Named(-4, "auto-digestmax".into()),
            Salt::Len(n) => Value::Named(n as i64, n.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pad_and_salt_parse_numbers_and_names() {
        assert_eq!(Pad::parse(&Value::Int(6)), Some(Pad::Pss));
        assert_eq!(Pad::parse(&Value::Utf8("pkcs1".into())), Some(Pad::Pkcs1));
        assert_eq!(Pad::parse(&Value::Int(2)), None);
        assert_eq!(Salt::parse(&Value::Utf8("digest".into())), Some(Salt::Digest));
        assert_eq!(Salt::parse(&Value::Utf8("20".into())), Some(Salt::Len(20)));
        assert_eq!(Salt::parse(&Value::Int(-3)), Some(Salt::Max));
        assert_eq!(Salt::parse(&Value::Int(-9)), None);
    }

    #[test]
    fn big_values_read_as_numbers() {
        let v = Value::Big(Zeroizing::new(vec![0, 1, 0, 1]));
        assert_eq!(v.as_int(), Some(65537));
    }
}
