//! A decrypted message whose wipe does not tell its length.
//!
//! `Zeroizing<Vec<u8>>` wipes a vector's spare capacity with one loop and
//! its `len` bytes with another (zeroize 1.9's `Vec::zeroize`); the two
//! cost differently per byte, so a k-byte buffer truncated to the message
//! takes longer to drop the longer the message (docs/CONSTANT_TIME.md,
//! "Findings on other CPUs", the result's wipe). With implicit rejection a
//! length is an oracle on the padding's shape, so the decoder keeps the
//! whole buffer: `len` is only a view's bound, and the drop wipes all k
//! bytes in one loop, whatever the length.

use core::fmt;
use core::ops::Deref;

use zeroize::Zeroizing;

/// A message of `len` bytes at the front of a buffer whose size does not
/// depend on it (the modulus's k bytes for PKCS#1 v1.5 decryption). Reads
/// as a byte slice (`Deref<Target = [u8]>`); wiped whole on drop.
#[derive(Clone)]
pub struct Plaintext {
    buf: Zeroizing<Vec<u8>>,
    len: usize,
}

impl Plaintext {
    /// The first `len` bytes of `buf` (`len <= buf.len()`; else the whole
    /// buffer). `buf`'s length, not `len`, sets the cost of the wipe.
    pub fn new(buf: Zeroizing<Vec<u8>>, len: usize) -> Plaintext {
        let len = len.min(buf.len());
        Plaintext { buf, len }
    }

    /// The message as a slice (as `Vec::as_slice`).
    pub fn as_slice(&self) -> &[u8] {
        self
    }
}

impl From<Zeroizing<Vec<u8>>> for Plaintext {
    /// A message already in a vector of its own length (the buffer is the
    /// message: the wipe costs what it did).
    fn from(v: Zeroizing<Vec<u8>>) -> Plaintext {
        let len = v.len();
        Plaintext { buf: v, len }
    }
}

impl Deref for Plaintext {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl AsRef<[u8]> for Plaintext {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl fmt::Debug for Plaintext {
    /// The message's bytes, as `Zeroizing<Vec<u8>>` showed them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Plaintext {
    fn eq(&self, other: &Plaintext) -> bool {
        **self == **other
    }
}

impl Eq for Plaintext {}

impl PartialEq<[u8]> for Plaintext {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl PartialEq<&[u8]> for Plaintext {
    fn eq(&self, other: &&[u8]) -> bool {
        **self == **other
    }
}

impl PartialEq<Vec<u8>> for Plaintext {
    fn eq(&self, other: &Vec<u8>) -> bool {
        **self == other[..]
    }
}

impl<const N: usize> PartialEq<[u8; N]> for Plaintext {
    fn eq(&self, other: &[u8; N]) -> bool {
        **self == other[..]
    }
}

impl<const N: usize> PartialEq<&[u8; N]> for Plaintext {
    fn eq(&self, other: &&[u8; N]) -> bool {
        **self == other[..]
    }
}

#[cfg(test)]
mod tests {
    use crate::hash::HashAlg;
    use crate::padding::{
        eme_oaep_decode, eme_oaep_encode, eme_pkcs1v15_decode_implicit, oaep_max_message_len,
    };

    /// The decoder's result keeps all k bytes (the wipe's length) for every
    /// message length, real or synthetic, and reads as the message.
    #[test]
    fn decoder_keeps_k_bytes_whatever_the_length() {
        let k = 128;
        let kdk = [7u8; 32];
        for msg_len in [0usize, 1, 48, k - 11] {
            let mut em = vec![0u8, 2];
            em.extend(std::iter::repeat_n(0x5a, k - 3 - msg_len));
            em.push(0);
            em.extend((0..msg_len).map(|i| i as u8));
            let pt = eme_pkcs1v15_decode_implicit(&em, k, &kdk);
            assert_eq!(pt.len(), msg_len);
            assert_eq!(&*pt, &em[k - msg_len..]);
            assert_eq!(pt.buf.len(), k, "message of {msg_len} bytes");
        }
        let synthetic = eme_pkcs1v15_decode_implicit(&[1u8; 128], k, &kdk);
        assert!(synthetic.len() <= k - 11);
        assert_eq!(synthetic.buf.len(), k);
    }

    /// OAEP's result keeps all k bytes too, for every message length, so
    /// that a valid decryption's wipe costs what a rejected one's does.
    #[test]
    fn oaep_decoder_keeps_k_bytes_whatever_the_length() {
        let (h, k) = (HashAlg::Sha256, 128);
        let max = oaep_max_message_len(h, k).unwrap();
        for msg_len in [0usize, 1, 17, max] {
            let msg: Vec<u8> = (0..msg_len).map(|i| (i * 7 + 1) as u8).collect();
            let em = eme_oaep_encode(h, b"l", &msg, &[3u8; 32], k).unwrap();
            let pt = eme_oaep_decode(h, b"l", &em, k).unwrap();
            assert_eq!(pt, msg);
            assert_eq!(pt.buf.len(), k, "message of {msg_len} bytes");
        }
    }
}
