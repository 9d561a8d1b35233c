//! The RFC 8017 schemes on redc's keys: RSASSA-PKCS1-v1_5 and RSASSA-PSS
//! (section 8), RSAES-OAEP and RSAES-PKCS1-v1_5 (section 7). The byte
//! encodings are in [`crate::padding`]; this file joins them to the RSA
//! primitives.
//!
//! Signing and decryption go through the blinded, fault-checked private
//! primitive. Decryption failures are the one opaque [`Error::Decryption`];
//! PKCS#1 v1.5 decryption never fails on bad padding at all: it returns a
//! synthetic message derived from the key and the ciphertext (implicit
//! rejection, as OpenSSL 3.2 and later), computed without secret-dependent
//! branches ([`crate::padding::eme_pkcs1v15_decode_implicit`]).

use super::{Error, RsaPrivateKey, RsaPublicKey};
use crate::hash::HashAlg;
use crate::padding::{self, PaddingError, SaltLen};
use rand_core::CryptoRng;

/// Every encoding failure means the message (or salt) does not fit the key.
fn encoding_error(_: PaddingError) -> Error {
    Error::MessageTooLong
}

fn check_digest(hash: HashAlg, digest: &[u8]) -> Result<(), Error> {
    if digest.len() != hash.output_len() {
        return Err(Error::WrongLength {
            expected: hash.output_len(),
            got: digest.len(),
        });
    }
    Ok(())
}

impl RsaPrivateKey {
    /// RSASSA-PKCS1-v1_5 signature (RFC 8017 8.2.1) of a message `digest`
    /// made with `hash`; blinding from `rng`. Deterministic output.
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digest = HashAlg::Sha256.digest(b"hello");
    /// let sig = key.sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digest).unwrap();
    /// key.public_key().verify_pkcs1v15(HashAlg::Sha256, &digest, &sig).unwrap();
    /// ```
    pub fn sign_pkcs1v15<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        digest: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let em = self.encode_pkcs1v15_signature(hash, digest)?;
        Ok(self.raw_private(rng, &em)?.to_vec())
    }

    /// EMSA-PKCS1-v1_5 of `digest` at this key's size (RFC 8017 9.2): the
    /// input of [`RsaPrivateKey::raw_private`] that
    /// [`RsaPrivateKey::sign_pkcs1v15`] signs, for callers that queue the
    /// private operations themselves (e.g. in batches).
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digest = HashAlg::Sha256.digest(b"hello");
    /// let em = key.encode_pkcs1v15_signature(HashAlg::Sha256, &digest).unwrap();
    /// let sig = key.raw_private(&mut os_rng(), &em).unwrap();
    /// assert_eq!(*sig, key.sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digest).unwrap());
    /// ```
    pub fn encode_pkcs1v15_signature(&self, hash: HashAlg, digest: &[u8]) -> Result<Vec<u8>, Error> {
        check_digest(hash, digest)?;
        padding::emsa_pkcs1v15_encode(hash, digest, self.size()).map_err(encoding_error)
    }

    /// RSASSA-PSS signature (RFC 8017 8.1.1) of `digest`, MGF1 with the same
    /// hash, a random salt of `salt_len` bytes (`None`: the hash length, as
    /// RFC 8017 recommends and `openssl dgst -sigopt rsa_pss_saltlen:digest` does).
    ///
    /// ```
    /// use redc::{hash::HashAlg, padding::SaltLen, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digest = HashAlg::Sha256.digest(b"hello");
    /// let sig = key.sign_pss(&mut os_rng(), HashAlg::Sha256, &digest, None).unwrap();
    /// assert_eq!(sig.len(), key.size());
    /// let public = key.public_key();
    /// public.verify_pss(HashAlg::Sha256, &digest, &sig, SaltLen::Exact(32)).unwrap();
    /// ```
    pub fn sign_pss<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        digest: &[u8],
        salt_len: Option<usize>,
    ) -> Result<Vec<u8>, Error> {
        self.sign_pss_mgf1(rng, hash, hash, digest, salt_len)
    }

    /// [`RsaPrivateKey::sign_pss`] with MGF1 over `mgf1_hash`.
    ///
    /// ```
    /// use redc::{hash::HashAlg, padding::SaltLen, rsa::{Error, keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let d = HashAlg::Sha384.digest(b"hello");
    /// let sig = key.sign_pss_mgf1(&mut os_rng(), HashAlg::Sha384, HashAlg::Sha1, &d, None).unwrap();
    /// let public = key.public_key();
    /// assert_eq!(public.verify_pss_mgf1(HashAlg::Sha384, HashAlg::Sha1, &d, &sig, SaltLen::Auto), Ok(()));
    /// assert_eq!(public.verify_pss(HashAlg::Sha384, &d, &sig, SaltLen::Auto), Err(Error::Verification));
    /// ```
    pub fn sign_pss_mgf1<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        mgf1_hash: HashAlg,
        digest: &[u8],
        salt_len: Option<usize>,
    ) -> Result<Vec<u8>, Error> {
        let x = self.encode_pss_signature(rng, hash, mgf1_hash, digest, salt_len)?;
        Ok(self.raw_private(rng, &x)?.to_vec())
    }

    /// EMSA-PSS of `digest` (MGF1 over `mgf1_hash`) with a fresh random salt
    /// (`None`: the hash length), as k bytes (a leading zero byte when emBits
    /// is a multiple of 8): the input of [`RsaPrivateKey::raw_private`] that
    /// [`RsaPrivateKey::sign_pss_mgf1`] signs.
    ///
    /// ```
    /// use redc::{hash::HashAlg, padding::SaltLen, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let d = HashAlg::Sha256.digest(b"hello");
    /// let em = key.encode_pss_signature(&mut os_rng(), HashAlg::Sha256, HashAlg::Sha256, &d, None).unwrap();
    /// let sig = key.raw_private(&mut os_rng(), &em).unwrap();
    /// key.public_key().verify_pss(HashAlg::Sha256, &d, &sig, SaltLen::Exact(32)).unwrap();
    /// ```
    pub fn encode_pss_signature<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        mgf1_hash: HashAlg,
        digest: &[u8],
        salt_len: Option<usize>,
    ) -> Result<Vec<u8>, Error> {
        check_digest(hash, digest)?;
        let em_bits = self.bits() - 1;
        let salt_len = salt_len.unwrap_or(hash.output_len());
        let em = padding::emsa_pss_encode_random_mgf1(hash, mgf1_hash, digest, salt_len, em_bits, rng)
            .map_err(encoding_error)?;
        let mut x = vec![0u8; self.size() - em.len()];
        x.extend_from_slice(&em);
        Ok(x)
    }

    /// RSAES-OAEP decryption (RFC 8017 7.1.2): label hash and MGF1 with
    /// `hash`, blinded with `rng` ([`RsaPrivateKey::decrypt_oaep`] uses the
    /// OS generator). Every failure is [`Error::Decryption`], except a ciphertext
    /// of the wrong length or not below n (public facts).
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{Error, keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let ct = key.public_key().encrypt_oaep(&mut os_rng(), HashAlg::Sha256, b"label", b"secret").unwrap();
    /// let pt = key.decrypt_oaep_with_rng(&mut os_rng(), HashAlg::Sha256, b"label", &ct).unwrap();
    /// assert_eq!(pt.as_slice(), b"secret");
    /// let wrong_label = key.decrypt_oaep_with_rng(&mut os_rng(), HashAlg::Sha256, b"other", &ct);
    /// assert_eq!(wrong_label, Err(Error::Decryption));
    /// ```
    pub fn decrypt_oaep_with_rng<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        label: &[u8],
        ciphertext: &[u8],
    ) -> Result<padding::Plaintext, Error> {
        self.decrypt_oaep_mgf1(rng, hash, hash, label, ciphertext)
    }

    /// [`RsaPrivateKey::decrypt_oaep`] with MGF1 over `mgf1_hash`.
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{Error, keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let (h, m) = (HashAlg::Sha256, HashAlg::Sha1);
    /// let ct = key.public_key().encrypt_oaep_mgf1(&mut os_rng(), h, m, b"", b"secret").unwrap();
    /// assert_eq!(key.decrypt_oaep_mgf1(&mut os_rng(), h, m, b"", &ct).unwrap().as_slice(), b"secret");
    /// assert_eq!(key.decrypt_oaep_with_rng(&mut os_rng(), h, b"", &ct), Err(Error::Decryption));
    /// ```
    pub fn decrypt_oaep_mgf1<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        mgf1_hash: HashAlg,
        label: &[u8],
        ciphertext: &[u8],
    ) -> Result<padding::Plaintext, Error> {
        let em = self.raw_private(rng, ciphertext).map_err(public_or_decryption)?;
        padding::eme_oaep_decode_mgf1(hash, mgf1_hash, label, &em, self.size()).map_err(|_| Error::Decryption)
    }

    /// RSAES-PKCS1-v1_5 decryption (RFC 8017 7.2.2), blinded with `rng`
    /// ([`RsaPrivateKey::decrypt_pkcs1v15`] uses the OS generator), with implicit rejection:
    /// on invalid padding the result is a synthetic message derived from d
    /// and the ciphertext, indistinguishable in timing from a real one.
    /// Errors only for a ciphertext of the wrong length or not below n.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let ct = key.public_key().encrypt_pkcs1v15(&mut os_rng(), b"secret").unwrap();
    /// let pt = key.decrypt_pkcs1v15_with_rng(&mut os_rng(), &ct).unwrap();
    /// assert_eq!(pt.as_slice(), b"secret");
    /// // A ciphertext with bad padding gives a synthetic message, not an error,
    /// // and the same one every time.
    /// let mut bad = ct.clone();
    /// bad[10] ^= 1;
    /// let synthetic = key.decrypt_pkcs1v15_with_rng(&mut os_rng(), &bad).unwrap();
    /// assert_eq!(synthetic, key.decrypt_pkcs1v15_with_rng(&mut os_rng(), &bad).unwrap());
    /// ```
    pub fn decrypt_pkcs1v15_with_rng<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        ciphertext: &[u8],
    ) -> Result<padding::Plaintext, Error> {
        let em = self.raw_private(rng, ciphertext).map_err(public_or_decryption)?;
        let d = self.d_be_fixed();
        Ok(padding::pkcs1v15_decrypt_implicit(
            &em,
            self.size(),
            &d,
            ciphertext,
        ))
    }
}

/// Input-shape errors stay descriptive (they are public); anything from
/// inside the private operation becomes the opaque decryption error.
fn public_or_decryption(e: Error) -> Error {
    match e {
        Error::WrongLength { .. } | Error::OutOfRange => e,
        _ => Error::Decryption,
    }
}

impl RsaPublicKey {
    /// RSASSA-PKCS1-v1_5 verification (RFC 8017 8.2.2) of `sig` over `digest`.
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{Error, keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digest = HashAlg::Sha384.digest(b"hello");
    /// let mut sig = key.sign_pkcs1v15(&mut os_rng(), HashAlg::Sha384, &digest).unwrap();
    /// let public = key.public_key();
    /// assert_eq!(public.verify_pkcs1v15(HashAlg::Sha384, &digest, &sig), Ok(()));
    /// sig[0] ^= 1;
    /// assert_eq!(public.verify_pkcs1v15(HashAlg::Sha384, &digest, &sig), Err(Error::Verification));
    /// ```
    pub fn verify_pkcs1v15(&self, hash: HashAlg, digest: &[u8], sig: &[u8]) -> Result<(), Error> {
        check_digest(hash, digest)?;
        let em = self.raw_public(sig).map_err(|_| Error::Verification)?;
        if padding::emsa_pkcs1v15_verify(hash, digest, &em) {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }

    /// RSASSA-PSS verification (RFC 8017 8.1.2): the salt length exact or
    /// recovered ([`SaltLen::Auto`]).
    ///
    /// ```
    /// use redc::{hash::HashAlg, padding::SaltLen, rsa::{Error, keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digest = HashAlg::Sha256.digest(b"hello");
    /// let sig = key.sign_pss(&mut os_rng(), HashAlg::Sha256, &digest, Some(10)).unwrap();
    /// let public = key.public_key();
    /// assert_eq!(public.verify_pss(HashAlg::Sha256, &digest, &sig, SaltLen::Auto), Ok(()));
    /// assert_eq!(public.verify_pss(HashAlg::Sha256, &digest, &sig, SaltLen::Exact(10)), Ok(()));
    /// let other = HashAlg::Sha256.digest(b"other");
    /// assert_eq!(public.verify_pss(HashAlg::Sha256, &other, &sig, SaltLen::Auto), Err(Error::Verification));
    /// ```
    pub fn verify_pss(
        &self,
        hash: HashAlg,
        digest: &[u8],
        sig: &[u8],
        salt_len: SaltLen,
    ) -> Result<(), Error> {
        self.verify_pss_mgf1(hash, hash, digest, sig, salt_len)
    }

    /// [`RsaPublicKey::verify_pss`] with MGF1 over `mgf1_hash`.
    pub fn verify_pss_mgf1(
        &self,
        hash: HashAlg,
        mgf1_hash: HashAlg,
        digest: &[u8],
        sig: &[u8],
        salt_len: SaltLen,
    ) -> Result<(), Error> {
        check_digest(hash, digest)?;
        let em = self.raw_public(sig).map_err(|_| Error::Verification)?;
        if padding::emsa_pss_verify_mgf1(hash, mgf1_hash, digest, &em, self.bits() - 1, salt_len) {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }

    /// RSAES-OAEP encryption (RFC 8017 7.1.1) with `hash` for the label and MGF1.
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{Error, keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let public = key.public_key();
    /// let ct = public.encrypt_oaep(&mut os_rng(), HashAlg::Sha256, b"", b"secret").unwrap();
    /// assert_eq!(ct.len(), public.size());
    /// // At most k - 2 hLen - 2 = 128 - 66 = 62 bytes fit.
    /// let long = public.encrypt_oaep(&mut os_rng(), HashAlg::Sha256, b"", &[0; 63]);
    /// assert_eq!(long, Err(Error::MessageTooLong));
    /// ```
    pub fn encrypt_oaep<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        label: &[u8],
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.encrypt_oaep_mgf1(rng, hash, hash, label, msg)
    }

    /// [`RsaPublicKey::encrypt_oaep`] with MGF1 over `mgf1_hash`.
    pub fn encrypt_oaep_mgf1<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        mgf1_hash: HashAlg,
        label: &[u8],
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let em = padding::eme_oaep_encode_random_mgf1(hash, mgf1_hash, label, msg, self.size(), rng)
            .map_err(encoding_error)?;
        self.raw_public(&em)
    }

    /// RSAES-PKCS1-v1_5 encryption (RFC 8017 7.2.1).
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let ct = key.public_key().encrypt_pkcs1v15(&mut os_rng(), b"secret").unwrap();
    /// assert_eq!(ct.len(), 128);
    /// assert_eq!(key.decrypt_pkcs1v15_with_rng(&mut os_rng(), &ct).unwrap().as_slice(), b"secret");
    /// ```
    pub fn encrypt_pkcs1v15<R: CryptoRng + ?Sized>(&self, rng: &mut R, msg: &[u8]) -> Result<Vec<u8>, Error> {
        let em = padding::eme_pkcs1v15_encode(msg, self.size(), rng).map_err(encoding_error)?;
        self.raw_public(&em)
    }
}
