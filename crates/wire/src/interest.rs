//! Interest packets (NDN packet format v0.3).
//!
//! ```text
//! Interest = 0x05 TLV-LENGTH Name [CanBePrefix] [MustBeFresh] [ForwardingHint] [Nonce]
//!            [InterestLifetime] [HopLimit]
//!            [ApplicationParameters [InterestSignatureInfo InterestSignatureValue]]
//! ```
//!
//! When ApplicationParameters is present the Name holds exactly one ParametersSha256Digest
//! component: the SHA-256 of everything from ApplicationParameters to the end of the Interest.
//! Decoding checks it; encoding computes it.

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::name::{Component, Name, NameView};
use crate::tlv::{self, packet_fields, Element, Elements};
use crate::tt;

/// InterestLifetime when the element is absent, in milliseconds.
pub const DEFAULT_LIFETIME_MS: u64 = 4000;

/// An Interest borrowed from the input bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterestView<'a> {
    /// The whole Interest element.
    pub wire: &'a [u8],
    pub name: NameView<'a>,
    pub can_be_prefix: bool,
    pub must_be_fresh: bool,
    forwarding_hint: Option<&'a [u8]>,
    /// The 4-byte Nonce as a big-endian number.
    pub nonce: Option<u32>,
    /// InterestLifetime in ms, if present (see [`InterestView::lifetime_ms`]).
    pub lifetime: Option<u64>,
    pub hop_limit: Option<u8>,
    /// The TLV-VALUE of ApplicationParameters.
    pub app_params: Option<&'a [u8]>,
    /// The TLV-VALUE of InterestSignatureInfo (kept, not interpreted).
    pub signature_info: Option<&'a [u8]>,
    /// The TLV-VALUE of InterestSignatureValue (kept, not checked).
    pub signature_value: Option<&'a [u8]>,
}

/// Ranks give the required order of the recognised elements.
fn rank(typ: u64) -> Option<u32> {
    Some(match typ {
        tt::NAME => 0,
        tt::CAN_BE_PREFIX => 1,
        tt::MUST_BE_FRESH => 2,
        tt::FORWARDING_HINT => 3,
        tt::NONCE => 4,
        tt::INTEREST_LIFETIME => 5,
        tt::HOP_LIMIT => 6,
        tt::APPLICATION_PARAMETERS => 7,
        tt::INTEREST_SIGNATURE_INFO => 8,
        tt::INTEREST_SIGNATURE_VALUE => 9,
        _ => return None,
    })
}

impl<'a> InterestView<'a> {
    /// Decodes one Interest element spanning all of `wire`.
    pub fn decode(wire: &'a [u8]) -> Result<Self> {
        let outer = Element::read_exact_typed(wire, tt::INTEREST)?;
        Self::from_element(outer)
    }

    /// Decodes an Interest element already framed.
    pub fn from_element(outer: Element<'a>) -> Result<Self> {
        outer.expect(tt::INTEREST)?;
        let mut name = None;
        let mut v = InterestView {
            wire: outer.wire,
            name: NameView::from_value(&[])?,
            can_be_prefix: false,
            must_be_fresh: false,
            forwarding_hint: None,
            nonce: None,
            lifetime: None,
            hop_limit: None,
            app_params: None,
            signature_info: None,
            signature_value: None,
        };
        // Where ApplicationParameters starts, as an offset into the Interest's value.
        let mut params_at = None;
        let base = outer.value.as_ptr() as usize;
        for e in packet_fields(&outer, rank, "Name as the first element of the Interest") {
            let e = e?;
            match e.typ {
                tt::NAME => name = Some(NameView::from_element(e)?),
                tt::CAN_BE_PREFIX => v.can_be_prefix = true,
                tt::MUST_BE_FRESH => v.must_be_fresh = true,
                tt::FORWARDING_HINT => {
                    check_forwarding_hint(e.value)?;
                    v.forwarding_hint = Some(e.value);
                }
                tt::NONCE => {
                    let bytes: [u8; 4] = e.value.try_into().map_err(|_| Error::BadLength {
                        what: "Nonce",
                        len: e.value.len(),
                    })?;
                    v.nonce = Some(u32::from_be_bytes(bytes));
                }
                tt::INTEREST_LIFETIME => v.lifetime = Some(e.nonneg()?),
                tt::HOP_LIMIT => match e.value {
                    [h] => v.hop_limit = Some(*h),
                    _ => {
                        return Err(Error::BadLength {
                            what: "HopLimit",
                            len: e.value.len(),
                        })
                    }
                },
                tt::APPLICATION_PARAMETERS => {
                    v.app_params = Some(e.value);
                    params_at = Some((e.wire.as_ptr() as usize).saturating_sub(base));
                }
                tt::INTEREST_SIGNATURE_INFO => v.signature_info = Some(e.value),
                _ => v.signature_value = Some(e.value),
            }
        }
        v.name = name.ok_or(Error::Missing("Name"))?;
        if v.name.is_empty() {
            return Err(Error::Invalid(
                "an Interest name needs at least one component",
            ));
        }
        if (v.signature_info.is_some() || v.signature_value.is_some()) && v.app_params.is_none() {
            return Err(Error::Missing(
                "ApplicationParameters before the Interest signature",
            ));
        }
        if v.signature_info.is_some() != v.signature_value.is_some() {
            return Err(Error::Missing(
                "InterestSignatureInfo and InterestSignatureValue together",
            ));
        }
        let digests: Vec<_> = v
            .name
            .components()
            .filter(|c| c.typ == tt::PARAMETERS_SHA256_DIGEST)
            .take(2)
            .collect();
        match (params_at, digests.as_slice()) {
            (None, []) => {}
            (None, _) => {
                return Err(Error::Invalid(
                    "ParametersSha256Digest component without ApplicationParameters",
                ))
            }
            (Some(at), [d]) => {
                let covered = outer.value.get(at..).unwrap_or_default();
                if Sha256::digest(covered).as_slice() != d.value {
                    return Err(Error::DigestMismatch("ParametersSha256Digest"));
                }
            }
            (Some(_), _) => {
                return Err(Error::Invalid(
                    "ApplicationParameters needs exactly one ParametersSha256Digest component",
                ))
            }
        }
        Ok(v)
    }

    /// InterestLifetime in ms, the default 4000 when absent.
    pub fn lifetime_ms(&self) -> u64 {
        self.lifetime.unwrap_or(DEFAULT_LIFETIME_MS)
    }

    /// The names of the ForwardingHint (empty when absent). The pre-2022 Delegation form is
    /// read too: its Preference is dropped.
    pub fn forwarding_hint(&self) -> impl Iterator<Item = NameView<'a>> + 'a {
        Elements::new(self.forwarding_hint.unwrap_or_default()).filter_map(|e| {
            let e = e.ok()?;
            match e.typ {
                tt::NAME => NameView::from_element(e).ok(),
                _ => delegation_name(e).ok(),
            }
        })
    }

    /// An owned copy (the Interest signature is kept as raw bytes).
    pub fn to_owned(&self) -> Interest {
        let mut name = self.name.to_owned();
        if self.app_params.is_some() {
            name.components_mut()
                .retain(|c| c.typ() != tt::PARAMETERS_SHA256_DIGEST);
        }
        Interest {
            name,
            can_be_prefix: self.can_be_prefix,
            must_be_fresh: self.must_be_fresh,
            forwarding_hint: self.forwarding_hint().map(|n| n.to_owned()).collect(),
            nonce: self.nonce,
            lifetime: self.lifetime,
            hop_limit: self.hop_limit,
            app_params: self.app_params.map(<[u8]>::to_vec),
            signature: match (self.signature_info, self.signature_value) {
                (Some(i), Some(v)) => Some((i.to_vec(), v.to_vec())),
                _ => None,
            },
        }
    }
}

fn delegation_name(e: Element<'_>) -> Result<NameView<'_>> {
    e.expect(tt::DELEGATION)?;
    let mut it = e.children();
    let pref = it.next().ok_or(Error::Missing("Delegation Preference"))??;
    pref.expect(tt::PREFERENCE)?;
    pref.nonneg()?;
    let name = it.next().ok_or(Error::Missing("Delegation Name"))??;
    if it.next().is_some() {
        return Err(Error::Invalid("extra element in Delegation"));
    }
    NameView::from_element(name)
}

fn check_forwarding_hint(value: &[u8]) -> Result<()> {
    let mut count = 0;
    for e in Elements::new(value) {
        let e = e?;
        match e.typ {
            tt::NAME => {
                NameView::from_element(e)?;
            }
            tt::DELEGATION => {
                delegation_name(e)?;
            }
            t => {
                return Err(Error::UnexpectedType {
                    expected: tt::NAME,
                    found: t,
                })
            }
        }
        count += 1;
    }
    if count == 0 {
        return Err(Error::Missing("a Name in ForwardingHint"));
    }
    Ok(())
}

/// An owned Interest, for encoding.
///
/// `name` never holds the ParametersSha256Digest component: [`Interest::encode`] appends it
/// when `app_params` is set (and rejects a name that already has one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interest {
    pub name: Name,
    pub can_be_prefix: bool,
    pub must_be_fresh: bool,
    pub forwarding_hint: Vec<Name>,
    /// ndnd drops Interests without a Nonce; set one before sending to it.
    pub nonce: Option<u32>,
    /// InterestLifetime in ms; absent means 4000.
    pub lifetime: Option<u64>,
    pub hop_limit: Option<u8>,
    pub app_params: Option<Vec<u8>>,
    /// InterestSignatureInfo and InterestSignatureValue TLV-VALUEs, passed through unchanged.
    pub signature: Option<(Vec<u8>, Vec<u8>)>,
}

impl Interest {
    /// An Interest for `name` with a nonce and no other fields.
    pub fn new(name: Name, nonce: u32) -> Self {
        Interest {
            name,
            nonce: Some(nonce),
            ..Interest::default()
        }
    }

    /// The Interest element as bytes.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(64 + self.name.value_len());
        self.encode_to(&mut buf)?;
        Ok(buf)
    }

    /// Appends the Interest element.
    pub fn encode_to(&self, buf: &mut Vec<u8>) -> Result<()> {
        if self.name.is_empty() {
            return Err(Error::Invalid(
                "an Interest name needs at least one component",
            ));
        }
        if self
            .name
            .components()
            .iter()
            .any(|c| c.typ() == tt::PARAMETERS_SHA256_DIGEST)
        {
            return Err(Error::Invalid(
                "leave the ParametersSha256Digest component out: encode adds it",
            ));
        }
        if self.signature.is_some() && self.app_params.is_none() {
            return Err(Error::Missing(
                "ApplicationParameters before the Interest signature",
            ));
        }
        let mut tail = Vec::new();
        if let Some(params) = &self.app_params {
            tlv::write_tlv(&mut tail, tt::APPLICATION_PARAMETERS, params);
            if let Some((info, value)) = &self.signature {
                tlv::write_tlv(&mut tail, tt::INTEREST_SIGNATURE_INFO, info);
                tlv::write_tlv(&mut tail, tt::INTEREST_SIGNATURE_VALUE, value);
            }
        }
        tlv::write_nested(buf, tt::INTEREST, |b| {
            if self.app_params.is_some() {
                let digest: [u8; 32] = Sha256::digest(&tail).into();
                self.name
                    .clone()
                    .with(Component::params_digest(digest))
                    .encode(b);
            } else {
                self.name.encode(b);
            }
            if self.can_be_prefix {
                tlv::write_header(b, tt::CAN_BE_PREFIX, 0);
            }
            if self.must_be_fresh {
                tlv::write_header(b, tt::MUST_BE_FRESH, 0);
            }
            if !self.forwarding_hint.is_empty() {
                tlv::write_nested(b, tt::FORWARDING_HINT, |h| {
                    self.forwarding_hint.iter().for_each(|n| n.encode(h));
                });
            }
            if let Some(nonce) = self.nonce {
                tlv::write_tlv(b, tt::NONCE, &nonce.to_be_bytes());
            }
            if let Some(ms) = self.lifetime {
                tlv::write_nonneg_tlv(b, tt::INTEREST_LIFETIME, ms);
            }
            if let Some(h) = self.hop_limit {
                tlv::write_tlv(b, tt::HOP_LIMIT, &[h]);
            }
            b.extend_from_slice(&tail);
        });
        Ok(())
    }
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

    #[test]
    fn minimal_interest_by_hand() {
        // Interest { Name /a/seg=1, CanBePrefix, Nonce 01020304, InterestLifetime 1000 ms }.
        let wire = hex("0514 0706 080161 320101 2100 0a0401020304 0c0203e8"
            .replace(' ', "")
            .as_str());
        let wire = {
            let mut w = wire;
            w[1] = (w.len() - 2) as u8;
            w
        };
        let v = InterestView::decode(&wire).unwrap();
        assert_eq!(v.name.to_string(), "/a/seg=1");
        assert!(v.can_be_prefix && !v.must_be_fresh);
        assert_eq!(v.nonce, Some(0x01020304));
        assert_eq!(v.lifetime_ms(), 1000);
        assert_eq!(v.hop_limit, None);
        let again = v.to_owned().encode().unwrap();
        assert_eq!(again, wire);
    }

    #[test]
    fn round_trip_with_everything() {
        let i = Interest {
            name: Name::from_uri("/ndn/x/seq=7").unwrap(),
            can_be_prefix: true,
            must_be_fresh: true,
            forwarding_hint: vec![
                Name::from_uri("/hint/a").unwrap(),
                Name::from_uri("/b").unwrap(),
            ],
            nonce: Some(0xDEADBEEF),
            lifetime: Some(250),
            hop_limit: Some(32),
            app_params: Some(b"params".to_vec()),
            signature: Some((vec![0x1B, 1, 0], vec![1, 2, 3])),
        };
        let wire = i.encode().unwrap();
        let v = InterestView::decode(&wire).unwrap();
        assert_eq!(v.name.len(), 4);
        assert_eq!(v.name.last().unwrap().typ, tt::PARAMETERS_SHA256_DIGEST);
        assert_eq!(v.forwarding_hint().count(), 2);
        assert_eq!(v.to_owned(), i);
    }

    #[test]
    fn params_digest_is_checked() {
        let i = Interest {
            app_params: Some(vec![1, 2, 3]),
            ..Interest::new(Name::from_uri("/p").unwrap(), 1)
        };
        let mut wire = i.encode().unwrap();
        let last = wire.len() - 1;
        wire[last] ^= 1;
        assert_eq!(
            InterestView::decode(&wire),
            Err(Error::DigestMismatch("ParametersSha256Digest"))
        );
    }

    #[test]
    fn structural_errors() {
        // Nonce of 3 bytes.
        assert!(
            InterestView::decode(&hex("05080703080161 0a03010203".replace(' ', "").as_str()))
                .is_err()
        );
        // Out of order: MustBeFresh before CanBePrefix.
        assert_eq!(
            InterestView::decode(&hex("0509070308016112002100")),
            Err(Error::OutOfOrder(0x21))
        );
        // Empty name.
        assert!(InterestView::decode(&hex("05020700")).is_err());
        // Not an Interest at all.
        assert!(InterestView::decode(&hex("070308016105")).is_err());
        // Unknown non-critical element 0x80 is skipped; unknown critical 0x81 is an error.
        let ok = hex("0507070308016180 00".replace(' ', "").as_str());
        assert!(InterestView::decode(&ok).is_ok());
        let crit = hex("0507070308016181 00".replace(' ', "").as_str());
        assert_eq!(
            InterestView::decode(&crit),
            Err(Error::UnknownCritical(0x81))
        );
        // Params digest component without params.
        let mut name = Name::from_uri("/p").unwrap();
        name.push(Component::params_digest([0; 32]));
        let mut w = Vec::new();
        tlv::write_nested(&mut w, tt::INTEREST, |b| name.encode(b));
        assert!(InterestView::decode(&w).is_err());
    }
}
