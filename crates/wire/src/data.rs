//! Data packets (NDN packet format v0.3) with DigestSha256 signing and checking.
//!
//! ```text
//! Data     = 0x06 TLV-LENGTH Name [MetaInfo] [Content] SignatureInfo SignatureValue
//! MetaInfo = 0x14 TLV-LENGTH [ContentType] [FreshnessPeriod] [FinalBlockId]
//! ```
//!
//! The signed portion runs from the Name to the end of SignatureInfo. For DigestSha256
//! (SignatureType 0) the SignatureValue is the SHA-256 of that portion.

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::name::{Component, ComponentView, Name, NameView};
use crate::tlv::{self, is_critical, packet_fields, Element, Order};
use crate::tt;

/// A Data packet borrowed from the input bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataView<'a> {
    /// The whole Data element.
    pub wire: &'a [u8],
    pub name: NameView<'a>,
    /// True when a MetaInfo element is present (possibly empty, as python-ndn sends it).
    pub has_meta_info: bool,
    /// ContentType; absent means 0 (Blob).
    pub content_type: Option<u64>,
    /// FreshnessPeriod in ms; absent means 0.
    pub freshness: Option<u64>,
    pub final_block_id: Option<ComponentView<'a>>,
    /// The TLV-VALUE of Content (absent and empty differ on the wire).
    pub content: Option<&'a [u8]>,
    pub signature_type: u64,
    /// The TLV-VALUE of KeyLocator, if any (kept, not interpreted).
    pub key_locator: Option<&'a [u8]>,
    /// The TLV-VALUE of SignatureInfo.
    pub signature_info: &'a [u8],
    /// The TLV-VALUE of SignatureValue.
    pub signature_value: &'a [u8],
    /// The bytes the signature covers: Name through SignatureInfo.
    pub signed_portion: &'a [u8],
}

fn rank(typ: u64) -> Option<u32> {
    Some(match typ {
        tt::NAME => 0,
        tt::META_INFO => 1,
        tt::CONTENT => 2,
        tt::SIGNATURE_INFO => 3,
        tt::SIGNATURE_VALUE => 4,
        _ => return None,
    })
}

impl<'a> DataView<'a> {
    /// Decodes one Data element spanning all of `wire`. The signature is parsed but not
    /// checked; see [`DataView::verify_digest_sha256`].
    pub fn decode(wire: &'a [u8]) -> Result<Self> {
        Self::from_element(Element::read_exact_typed(wire, tt::DATA)?)
    }

    /// Decodes a Data element already framed.
    pub fn from_element(outer: Element<'a>) -> Result<Self> {
        outer.expect(tt::DATA)?;
        let mut name = None;
        let mut meta = None;
        let mut content = None;
        let mut sig_info = None;
        let mut sig_value = None;
        let mut signed_end = 0;
        let base = outer.value.as_ptr() as usize;
        for e in packet_fields(&outer, rank, "Name as the first element of the Data") {
            let e = e?;
            match e.typ {
                tt::NAME => name = Some(NameView::from_element(e)?),
                tt::META_INFO => meta = Some(e),
                tt::CONTENT => content = Some(e.value),
                tt::SIGNATURE_INFO => {
                    sig_info = Some(e);
                    let end = (e.wire.as_ptr() as usize).saturating_sub(base) + e.wire.len();
                    signed_end = end;
                }
                _ => sig_value = Some(e.value),
            }
        }
        let name = name.ok_or(Error::Missing("Name"))?;
        let sig_info = sig_info.ok_or(Error::Missing("SignatureInfo"))?;
        let signature_value = sig_value.ok_or(Error::Missing("SignatureValue"))?;
        let (content_type, freshness, final_block_id) = match meta {
            Some(m) => decode_meta_info(m)?,
            None => (None, None, None),
        };
        let (signature_type, key_locator) = decode_signature_info(sig_info)?;
        Ok(DataView {
            wire: outer.wire,
            name,
            has_meta_info: meta.is_some(),
            content_type,
            freshness,
            final_block_id,
            content,
            signature_type,
            key_locator,
            signature_info: sig_info.value,
            signature_value,
            signed_portion: outer.value.get(..signed_end).unwrap_or_default(),
        })
    }

    /// Checks a DigestSha256 signature: SignatureType 0 and a SignatureValue equal to the
    /// SHA-256 of the signed portion.
    pub fn verify_digest_sha256(&self) -> Result<()> {
        if self.signature_type != tt::SIGNATURE_DIGEST_SHA256 {
            return Err(Error::Invalid("SignatureType is not DigestSha256"));
        }
        if Sha256::digest(self.signed_portion).as_slice() != self.signature_value {
            return Err(Error::DigestMismatch("DigestSha256 SignatureValue"));
        }
        Ok(())
    }

    /// The implicit digest: SHA-256 of the whole Data element.
    pub fn implicit_digest(&self) -> [u8; 32] {
        Sha256::digest(self.wire).into()
    }

    /// An owned copy. A DigestSha256 signature becomes [`Signature::DigestSha256`] (recomputed
    /// when encoded); any other is kept as raw bytes.
    pub fn to_owned(&self) -> Data {
        Data {
            name: self.name.to_owned(),
            meta: self.has_meta_info.then(|| MetaInfo {
                content_type: self.content_type,
                freshness: self.freshness,
                final_block_id: self.final_block_id.map(|c| c.to_owned()),
            }),
            content: self.content.map(<[u8]>::to_vec),
            signature: if self.signature_type == tt::SIGNATURE_DIGEST_SHA256
                && self.key_locator.is_none()
                && self.signature_info.len() == 3
            {
                Signature::DigestSha256
            } else {
                Signature::Raw {
                    info: self.signature_info.to_vec(),
                    value: self.signature_value.to_vec(),
                }
            },
        }
    }
}

type MetaFields<'a> = (Option<u64>, Option<u64>, Option<ComponentView<'a>>);

fn decode_meta_info(meta: Element<'_>) -> Result<MetaFields<'_>> {
    let mut order = Order::default();
    let (mut ct, mut fresh, mut fbi) = (None, None, None);
    for e in meta.children() {
        let e = e?;
        let r = match e.typ {
            tt::CONTENT_TYPE => 0,
            tt::FRESHNESS_PERIOD => 1,
            tt::FINAL_BLOCK_ID => 2,
            t if is_critical(t) => return Err(Error::UnknownCritical(t)),
            _ => continue,
        };
        order.see(e.typ, r, false)?;
        match e.typ {
            tt::CONTENT_TYPE => ct = Some(e.nonneg()?),
            tt::FRESHNESS_PERIOD => fresh = Some(e.nonneg()?),
            _ => fbi = Some(ComponentView::decode(e.value)?),
        }
    }
    Ok((ct, fresh, fbi))
}

fn decode_signature_info(info: Element<'_>) -> Result<(u64, Option<&[u8]>)> {
    let mut children = info.children();
    let first = children.next().ok_or(Error::Missing("SignatureType"))??;
    first.expect(tt::SIGNATURE_TYPE)?;
    let sig_type = first.nonneg()?;
    let mut key_locator = None;
    let mut order = Order::default();
    for e in children {
        let e = e?;
        match e.typ {
            tt::KEY_LOCATOR => {
                order.see(e.typ, 0, false)?;
                let inner = Element::read_exact(e.value)?;
                match inner.typ {
                    tt::NAME => {
                        NameView::from_element(inner)?;
                    }
                    tt::KEY_DIGEST => {}
                    t if is_critical(t) => return Err(Error::UnknownCritical(t)),
                    _ => {}
                }
                key_locator = Some(e.value);
            }
            t if is_critical(t) => return Err(Error::UnknownCritical(t)),
            _ => order.see(e.typ, 1, true)?,
        }
    }
    Ok((sig_type, key_locator))
}

/// How an owned Data is signed when encoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Signature {
    /// SignatureType 0; the SignatureValue is computed by [`Data::encode`].
    #[default]
    DigestSha256,
    /// SignatureInfo and SignatureValue TLV-VALUEs passed through unchanged (another signer's
    /// signature; changing any signed field makes it invalid).
    Raw { info: Vec<u8>, value: Vec<u8> },
}

/// MetaInfo fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetaInfo {
    /// ContentType; absent means 0 (Blob).
    pub content_type: Option<u64>,
    /// FreshnessPeriod in ms; absent means 0.
    pub freshness: Option<u64>,
    pub final_block_id: Option<Component>,
}

/// An owned Data packet, for encoding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Data {
    pub name: Name,
    /// `Some` writes a MetaInfo element, even an empty one.
    pub meta: Option<MetaInfo>,
    pub content: Option<Vec<u8>>,
    pub signature: Signature,
}

impl Data {
    /// A DigestSha256-signed Data with this name and content.
    pub fn new(name: Name, content: impl Into<Vec<u8>>) -> Self {
        Data {
            name,
            content: Some(content.into()),
            ..Data::default()
        }
    }

    /// The Data element as bytes, signed as `signature` says.
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(
            self.name.value_len() + self.content.as_ref().map_or(0, Vec::len) + 64,
        );
        self.encode_to(&mut buf);
        buf
    }

    /// Appends the Data element.
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        tlv::write_nested(buf, tt::DATA, |b| {
            let start = b.len();
            self.name.encode(b);
            if let Some(meta) = &self.meta {
                tlv::write_nested(b, tt::META_INFO, |m| {
                    if let Some(ct) = meta.content_type {
                        tlv::write_nonneg_tlv(m, tt::CONTENT_TYPE, ct);
                    }
                    if let Some(f) = meta.freshness {
                        tlv::write_nonneg_tlv(m, tt::FRESHNESS_PERIOD, f);
                    }
                    if let Some(c) = &meta.final_block_id {
                        tlv::write_nested(m, tt::FINAL_BLOCK_ID, |x| c.encode(x));
                    }
                });
            }
            if let Some(content) = &self.content {
                tlv::write_tlv(b, tt::CONTENT, content);
            }
            match &self.signature {
                Signature::DigestSha256 => {
                    tlv::write_nested(b, tt::SIGNATURE_INFO, |s| {
                        tlv::write_nonneg_tlv(s, tt::SIGNATURE_TYPE, tt::SIGNATURE_DIGEST_SHA256);
                    });
                    let digest = Sha256::digest(b.get(start..).unwrap_or_default());
                    tlv::write_tlv(b, tt::SIGNATURE_VALUE, digest.as_slice());
                }
                Signature::Raw { info, value } => {
                    tlv::write_tlv(b, tt::SIGNATURE_INFO, info);
                    tlv::write_tlv(b, tt::SIGNATURE_VALUE, value);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_signed_round_trip() {
        let d = Data {
            name: Name::from_uri("/a/b/seg=3").unwrap(),
            meta: Some(MetaInfo {
                content_type: Some(0),
                freshness: Some(4000),
                final_block_id: Some(Component::segment(9)),
            }),
            content: Some(b"hello".to_vec()),
            signature: Signature::DigestSha256,
        };
        let wire = d.encode();
        let v = DataView::decode(&wire).unwrap();
        v.verify_digest_sha256().unwrap();
        assert_eq!(v.final_block_id.unwrap().to_string(), "seg=9");
        assert_eq!(v.content, Some(&b"hello"[..]));
        assert_eq!(v.to_owned(), d);
        assert_eq!(v.to_owned().encode(), wire);
        assert_eq!(v.implicit_digest(), <[u8; 32]>::from(Sha256::digest(&wire)));
    }

    #[test]
    fn tampered_content_fails_the_digest() {
        let mut wire = Data::new(Name::from_uri("/x").unwrap(), b"abc".to_vec()).encode();
        let at = wire.windows(3).position(|w| w == b"abc").unwrap();
        wire[at] = b'z';
        let v = DataView::decode(&wire).unwrap();
        assert_eq!(
            v.verify_digest_sha256(),
            Err(Error::DigestMismatch("DigestSha256 SignatureValue"))
        );
    }

    #[test]
    fn hand_written_data() {
        // Data { Name /A, Content "B", SignatureInfo { SignatureType 0 }, SignatureValue 32 x 0 }.
        let mut wire = vec![
            0x06, 0, 0x07, 3, 0x08, 1, b'A', 0x15, 1, b'B', 0x16, 3, 0x1B, 1, 0,
        ];
        wire.extend_from_slice(&[0x17, 32]);
        wire.extend_from_slice(&[0; 32]);
        wire[1] = (wire.len() - 2) as u8;
        let v = DataView::decode(&wire).unwrap();
        assert_eq!(v.name.to_string(), "/A");
        assert_eq!(v.signed_portion, &wire[2..15]);
        assert!(v.verify_digest_sha256().is_err());
        // Missing signature.
        let short = [0x06, 8, 0x07, 3, 0x08, 1, b'A', 0x15, 1, b'B'];
        assert_eq!(
            DataView::decode(&short),
            Err(Error::Missing("SignatureInfo"))
        );
        // Content before MetaInfo.
        let bad = [0x06, 9, 0x07, 0, 0x15, 0, 0x14, 0, 0x16, 3, 0x1B, 1, 0];
        assert!(DataView::decode(&bad[..]).is_err());
    }

    #[test]
    fn raw_signatures_pass_through() {
        let d = Data {
            name: Name::from_uri("/k").unwrap(),
            signature: Signature::Raw {
                info: vec![0x1B, 1, 3, 0x1C, 5, 0x07, 3, 0x08, 1, b'k'],
                value: vec![9; 64],
            },
            ..Data::default()
        };
        let wire = d.encode();
        let v = DataView::decode(&wire).unwrap();
        assert_eq!(v.signature_type, 3);
        assert!(v.key_locator.is_some());
        assert_eq!(v.to_owned(), d);
    }
}
