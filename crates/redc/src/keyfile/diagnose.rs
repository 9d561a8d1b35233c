//! Why DER that is none of the key structures failed, in words for the
//! error message: truncation, trailing data, or the PKCS#1 field at fault.
//! Only explains; never accepts anything.

use der::asn1::{AnyRef, UintRef};
use der::{Encode, Reader, SliceReader};

/// Why DER that is none of the structures failed: truncation is the usual
/// reason worth telling.
pub(super) fn describe_der_failure(der: &[u8]) -> String {
    let header = SliceReader::new(der)
        .ok()
        .and_then(|r| der::Header::peek(&r).ok());
    if let Some(h) = header {
        let header_len = h
            .encoded_len()
            .ok()
            .and_then(|l| usize::try_from(l).ok())
            .unwrap_or(0);
        let body_len = usize::try_from(h.length()).unwrap_or(usize::MAX);
        let total = header_len.saturating_add(body_len);
        if total > der.len() {
            return format!("truncated DER ({} bytes of {total})", der.len());
        }
        if total < der.len() {
            return format!(
                "{} bytes of trailing data after the DER structure",
                der.len() - total
            );
        }
    }
    // A SEQUENCE of INTEGERs: PKCS#1, and the field at fault can be named.
    if let Some(count) = integer_sequence_len(der) {
        let fields: &[&str] = if count >= PRIVATE_FIELDS.len() {
            &PRIVATE_FIELDS
        } else {
            &PUBLIC_FIELDS
        };
        if let Some(why) = field_at_fault(der, fields) {
            let what = if count >= PRIVATE_FIELDS.len() {
                "RSAPrivateKey"
            } else {
                "RSAPublicKey"
            };
            return format!("PKCS#1 {what}: {why}");
        }
    }
    "not a PKCS#8, PKCS#1 or SubjectPublicKeyInfo structure".to_string()
}

/// The number of elements of a SEQUENCE whose first element is an INTEGER
/// (`None` for anything else).
fn integer_sequence_len(der: &[u8]) -> Option<usize> {
    let mut reader = SliceReader::new(der).ok()?;
    let mut count = 0usize;
    let mut first_is_integer = false;
    let _: der::Result<()> = reader.sequence(|r| {
        while !r.is_finished() {
            let any: AnyRef<'_> = r.decode()?;
            if count == 0 {
                first_is_integer = der::Tagged::tag(&any) == der::Tag::Integer;
            }
            count += 1;
        }
        Ok(())
    });
    (first_is_integer && count > 0).then_some(count)
}

/// The fields of `RSAPrivateKey` (RFC 8017 §A.1.2), as OpenSSL names them.
pub(super) const PRIVATE_FIELDS: [&str; 9] = [
    "version",
    "modulus",
    "publicExponent",
    "privateExponent",
    "prime1",
    "prime2",
    "exponent1",
    "exponent2",
    "coefficient",
];

/// The fields of `RSAPublicKey` (RFC 8017 §A.1.1).
pub(super) const PUBLIC_FIELDS: [&str; 2] = ["modulus", "publicExponent"];

/// Which field of a SEQUENCE of INTEGERs is at fault, and why: walks the
/// fields in order (a `version` field must be 0, or 1 for the multi-prime
/// form). `None` when every named field reads (the fault is elsewhere).
pub(super) fn field_at_fault(der: &[u8], fields: &[&str]) -> Option<String> {
    let mut reader = SliceReader::new(der).ok()?;
    let mut fault = None;
    let _: der::Result<()> = reader.sequence(|r| {
        for name in fields {
            match r.decode::<UintRef<'_>>() {
                Ok(v) if *name == "version" => {
                    let bytes = v.as_bytes();
                    if bytes.len() > 1 || bytes.first().is_some_and(|&b| b > 1) {
                        let shown = if bytes.len() <= 8 {
                            bytes
                                .iter()
                                .fold(0u64, |a, &b| (a << 8) | u64::from(b))
                                .to_string()
                        } else {
                            "too large".to_string()
                        };
                        fault = Some(format!(
                            "version {shown} (expected 0, or 1 for a multi-prime key)"
                        ));
                        return Err(der::ErrorKind::Failed.into());
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    fault = Some(format!("{name}: {e}"));
                    return Err(e);
                }
            }
        }
        // Whatever follows (otherPrimeInfos) is not ours to judge here.
        while !r.is_finished() {
            let _: AnyRef<'_> = r.decode()?;
        }
        Ok(())
    });
    fault
}
