//! TLV primitives: VAR-NUMBER, NonNegativeInteger, element framing, and writers.
//!
//! Reading never allocates and never indexes without a bounds check; writing appends to a
//! `Vec<u8>`.

use crate::error::{Error, Result};
use crate::tt;

/// Bytes the shortest VAR-NUMBER encoding of `n` takes (1, 3, 5 or 9).
pub const fn varnum_len(n: u64) -> usize {
    if n < 253 {
        1
    } else if n <= 0xFFFF {
        3
    } else if n <= 0xFFFF_FFFF {
        5
    } else {
        9
    }
}

/// Appends the shortest VAR-NUMBER encoding of `n`.
pub fn write_varnum(buf: &mut Vec<u8>, n: u64) {
    if n < 253 {
        buf.push(n as u8);
    } else if n <= 0xFFFF {
        buf.push(0xFD);
        buf.extend_from_slice(&(n as u16).to_be_bytes());
    } else if n <= 0xFFFF_FFFF {
        buf.push(0xFE);
        buf.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        buf.push(0xFF);
        buf.extend_from_slice(&n.to_be_bytes());
    }
}

/// Reads a VAR-NUMBER from the front of `input`: `(value, bytes used)`.
///
/// Lenient: a longer form than necessary (e.g. `FD 00 05` for 5) is accepted, as ndn-cxx and
/// ndnd accept it. [`read_varnum_strict`] rejects it.
pub fn read_varnum(input: &[u8]) -> Result<(u64, usize)> {
    let (&first, rest) = input
        .split_first()
        .ok_or(Error::Truncated { need: 1, have: 0 })?;
    let width = match first {
        0..=252 => return Ok((u64::from(first), 1)),
        253 => 2,
        254 => 4,
        255 => 8,
    };
    let bytes = rest.get(..width).ok_or(Error::Truncated {
        need: width as u64,
        have: rest.len(),
    })?;
    let value = bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    Ok((value, 1 + width))
}

/// Like [`read_varnum`], but a non-shortest encoding is an error.
pub fn read_varnum_strict(input: &[u8]) -> Result<(u64, usize)> {
    let (value, used) = read_varnum(input)?;
    if used != varnum_len(value) {
        return Err(Error::Invalid("VAR-NUMBER not in its shortest form"));
    }
    Ok((value, used))
}

/// Bytes the shortest NonNegativeInteger encoding of `n` takes (1, 2, 4 or 8).
pub const fn nonneg_len(n: u64) -> usize {
    if n <= 0xFF {
        1
    } else if n <= 0xFFFF {
        2
    } else if n <= 0xFFFF_FFFF {
        4
    } else {
        8
    }
}

/// Appends the shortest NonNegativeInteger encoding of `n` (no TLV header).
pub fn write_nonneg(buf: &mut Vec<u8>, n: u64) {
    let len = nonneg_len(n);
    let bytes = n.to_be_bytes();
    buf.extend_from_slice(bytes.get(8 - len..).unwrap_or(&bytes));
}

/// Decodes a NonNegativeInteger TLV-VALUE: its length must be 1, 2, 4 or 8.
pub fn read_nonneg(value: &[u8]) -> Result<u64> {
    match value.len() {
        1 | 2 | 4 | 8 => Ok(value.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))),
        len => Err(Error::BadLength {
            what: "NonNegativeInteger",
            len,
        }),
    }
}

/// True when an unrecognised element of this type must make the decoder fail: types 0–31 and
/// odd types are critical (NDN packet format v0.3, "evolvability").
pub const fn is_critical(typ: u64) -> bool {
    typ <= 31 || typ % 2 == 1
}

/// One TLV element, borrowed from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element<'a> {
    /// TLV-TYPE.
    pub typ: u64,
    /// TLV-VALUE.
    pub value: &'a [u8],
    /// The whole element: TLV-TYPE, TLV-LENGTH and TLV-VALUE.
    pub wire: &'a [u8],
}

impl<'a> Element<'a> {
    /// Reads one element from the front of `input`; returns it and the bytes after it.
    pub fn read(input: &'a [u8]) -> Result<(Element<'a>, &'a [u8])> {
        let (typ, t_len) = read_varnum(input)?;
        if typ == 0 {
            return Err(Error::ZeroType);
        }
        let after_t = input.get(t_len..).unwrap_or_default();
        let (len, l_len) = read_varnum(after_t)?;
        let body = after_t.get(l_len..).unwrap_or_default();
        let len_usize = usize::try_from(len).map_err(|_| Error::Truncated {
            need: len,
            have: body.len(),
        })?;
        if len_usize > body.len() {
            return Err(Error::Truncated {
                need: len,
                have: body.len(),
            });
        }
        let (value, rest) = body.split_at(len_usize);
        let whole = t_len + l_len + len_usize;
        let wire = input.get(..whole).unwrap_or_default();
        Ok((Element { typ, value, wire }, rest))
    }

    /// Reads exactly one element spanning all of `input`.
    pub fn read_exact(input: &'a [u8]) -> Result<Element<'a>> {
        let (e, rest) = Element::read(input)?;
        if !rest.is_empty() {
            return Err(Error::TrailingBytes(rest.len()));
        }
        Ok(e)
    }

    /// Reads exactly one element of type `typ` spanning all of `input`.
    pub fn read_exact_typed(input: &'a [u8], typ: u64) -> Result<Element<'a>> {
        let e = Element::read_exact(input)?;
        e.expect(typ)?;
        Ok(e)
    }

    /// Errors unless this element has type `typ`.
    pub fn expect(&self, typ: u64) -> Result<()> {
        if self.typ == typ {
            Ok(())
        } else {
            Err(Error::UnexpectedType {
                expected: typ,
                found: self.typ,
            })
        }
    }

    /// The value as a NonNegativeInteger.
    pub fn nonneg(&self) -> Result<u64> {
        read_nonneg(self.value)
    }

    /// The sub-elements of the value.
    pub fn children(&self) -> Elements<'a> {
        Elements::new(self.value)
    }
}

/// Iterator over consecutive elements of a buffer. After the first error it yields that error
/// once and then stops.
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    rest: &'a [u8],
}

impl<'a> Elements<'a> {
    pub fn new(input: &'a [u8]) -> Self {
        Elements { rest: input }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Result<Element<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        match Element::read(self.rest) {
            Ok((e, rest)) => {
                self.rest = rest;
                Some(Ok(e))
            }
            Err(err) => {
                self.rest = &[];
                Some(Err(err))
            }
        }
    }
}

/// Tracks the order of recognised elements inside one parent: each recognised element has a
/// rank; ranks must not decrease, and a rank may repeat only where the caller allows it.
#[derive(Debug, Default)]
pub(crate) struct Order {
    last: Option<u32>,
}

impl Order {
    /// Records an element of type `typ` at `rank`; errors on a repeat (unless `repeatable`) or a
    /// step backwards.
    pub(crate) fn see(&mut self, typ: u64, rank: u32, repeatable: bool) -> Result<()> {
        match self.last {
            Some(last) if rank < last => return Err(Error::OutOfOrder(typ)),
            Some(last) if rank == last && !repeatable => return Err(Error::Duplicate(typ)),
            _ => {}
        }
        self.last = Some(rank);
        Ok(())
    }
}

/// The recognised children of a packet element (Interest, Data), checked as NDN 0.3 wants: an
/// unknown non-critical element is skipped, an unknown critical one is an error, the first
/// recognised one must be the Name (`missing` says which packet lacks it), and recognised
/// elements follow their `rank` order without repeats.
pub(crate) fn packet_fields<'a>(
    outer: &Element<'a>,
    rank: fn(u64) -> Option<u32>,
    missing: &'static str,
) -> impl Iterator<Item = Result<Element<'a>>> + 'a {
    let mut order = Order::default();
    let mut named = false;
    outer.children().filter_map(move |e| {
        let field = (|| {
            let e = e?;
            let Some(r) = rank(e.typ) else {
                if is_critical(e.typ) {
                    return Err(Error::UnknownCritical(e.typ));
                }
                return Ok(None);
            };
            if !named && e.typ != tt::NAME {
                return Err(Error::Missing(missing));
            }
            named = true;
            order.see(e.typ, r, false)?;
            Ok(Some(e))
        })();
        field.transpose()
    })
}

/// Appends a TLV header (type and length).
pub fn write_header(buf: &mut Vec<u8>, typ: u64, len: usize) {
    write_varnum(buf, typ);
    write_varnum(buf, len as u64);
}

/// Appends a whole element with the given value.
pub fn write_tlv(buf: &mut Vec<u8>, typ: u64, value: &[u8]) {
    write_header(buf, typ, value.len());
    buf.extend_from_slice(value);
}

/// Appends an element whose value is the shortest NonNegativeInteger encoding of `n`.
pub fn write_nonneg_tlv(buf: &mut Vec<u8>, typ: u64, n: u64) {
    write_header(buf, typ, nonneg_len(n));
    write_nonneg(buf, n);
}

/// Appends an element whose value `fill` writes; the header is inserted in front afterwards.
pub fn write_nested(buf: &mut Vec<u8>, typ: u64, fill: impl FnOnce(&mut Vec<u8>)) {
    let start = buf.len();
    fill(buf);
    let len = buf.len() - start;
    let mut header = Vec::with_capacity(18);
    write_header(&mut header, typ, len);
    buf.splice(start..start, header);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataView, InterestView};

    #[test]
    fn a_packet_must_open_with_its_name() {
        // Interest: a Nonce before the Name; Data: a Content before the Name
        let interest = [
            0x05, 0x0b, 0x0a, 0x04, 1, 2, 3, 4, 0x07, 0x03, 0x08, 0x01, b'a',
        ];
        assert!(matches!(
            InterestView::decode(&interest),
            Err(Error::Missing(_))
        ));
        let data = [0x06, 0x07, 0x15, 0x00, 0x07, 0x03, 0x08, 0x01, b'a'];
        assert!(matches!(DataView::decode(&data), Err(Error::Missing(_))));
    }

    #[test]
    fn varnum_forms() {
        for (n, hex) in [
            (0u64, "00"),
            (252, "fc"),
            (253, "fd00fd"),
            (0xFFFF, "fdffff"),
            (0x1_0000, "fe00010000"),
            (0xFFFF_FFFF, "feffffffff"),
            (0x1_0000_0000, "ff0000000100000000"),
            (u64::MAX, "ffffffffffffffffff"),
        ] {
            let mut buf = Vec::new();
            write_varnum(&mut buf, n);
            assert_eq!(hex_of(&buf), hex, "{n}");
            assert_eq!(buf.len(), varnum_len(n));
            assert_eq!(read_varnum(&buf), Ok((n, buf.len())));
            assert_eq!(read_varnum_strict(&buf), Ok((n, buf.len())));
        }
    }

    #[test]
    fn varnum_non_minimal_is_lenient_unless_strict() {
        for bytes in [
            &[0xFD, 0, 5][..],
            &[0xFE, 0, 0, 0, 5],
            &[0xFF, 0, 0, 0, 0, 0, 0, 0, 5],
        ] {
            assert_eq!(read_varnum(bytes), Ok((5, bytes.len())));
            assert!(read_varnum_strict(bytes).is_err());
        }
    }

    #[test]
    fn varnum_truncated() {
        assert!(read_varnum(&[]).is_err());
        assert!(read_varnum(&[0xFD, 1]).is_err());
        assert!(read_varnum(&[0xFE, 1, 2, 3]).is_err());
        assert!(read_varnum(&[0xFF, 1, 2, 3, 4, 5, 6, 7]).is_err());
    }

    #[test]
    fn nonneg_examples_from_the_spec() {
        // The spec's table: 0 => TT0100, 255 => TT01FF, 256 => TT020100, 65536 => TT0400010000.
        for (n, hex) in [
            (0u64, "0100"),
            (1, "0101"),
            (255, "01ff"),
            (256, "020100"),
            (65535, "02ffff"),
            (65536, "0400010000"),
            (1 << 32, "080000000100000000"),
        ] {
            let mut buf = Vec::new();
            write_nonneg_tlv(&mut buf, 0x19, n);
            assert_eq!(hex_of(&buf), format!("19{hex}"));
            let e = Element::read_exact(&buf).unwrap();
            assert_eq!(e.nonneg(), Ok(n));
        }
        assert!(read_nonneg(&[]).is_err());
        assert!(read_nonneg(&[0, 0, 1]).is_err());
        assert_eq!(read_nonneg(&[0, 0, 0, 0, 0, 0, 0, 7]), Ok(7));
    }

    #[test]
    fn element_framing() {
        assert_eq!(Element::read(&[0, 0]), Err(Error::ZeroType));
        assert!(matches!(
            Element::read(&[8, 3, 1, 2]),
            Err(Error::Truncated { need: 3, have: 2 })
        ));
        let huge = [8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];
        assert!(Element::read(&huge).is_err());
        let (e, rest) = Element::read(&[8, 1, 0x61, 9]).unwrap();
        assert_eq!(
            (e.typ, e.value, e.wire, rest),
            (8, &[0x61][..], &[8, 1, 0x61][..], &[9][..])
        );
        assert_eq!(
            Element::read_exact(&[8, 0, 1]),
            Err(Error::TrailingBytes(1))
        );
    }

    #[test]
    fn nested_writer_inserts_the_right_header() {
        let mut buf = vec![0xAA];
        write_nested(&mut buf, 7, |b| b.extend(std::iter::repeat_n(1u8, 300)));
        assert_eq!(&buf[..5], &[0xAA, 7, 0xFD, 0x01, 0x2C]);
        assert_eq!(buf.len(), 1 + 4 + 300);
    }

    #[test]
    fn criticality() {
        assert!(is_critical(1) && is_critical(31) && is_critical(33) && is_critical(801));
        assert!(!is_critical(32) && !is_critical(128) && !is_critical(852));
    }

    fn hex_of(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}
