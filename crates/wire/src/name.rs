//! Names and typed name components: borrowed views for decoding, owned values for building and
//! encoding, and the NDN URI form (percent-encoding, `seg=`/`v=`/`t=`/`seq=`/`off=` aliases,
//! `sha256digest=`/`params-sha256=` hex, `<type>=` for other types).

use std::cmp::Ordering;
use std::fmt;

use crate::error::{Error, Result};
use crate::tlv::{self, Element, Elements};
use crate::tt;

/// The highest name component type (the spec limits component types to [1, 65535]).
pub const MAX_COMPONENT_TYPE: u64 = 0xFFFF;

/// Checks one component's type and value against the spec's rules.
fn validate_component(typ: u64, value: &[u8]) -> Result<()> {
    if typ == 0 {
        return Err(Error::ZeroType);
    }
    if typ > MAX_COMPONENT_TYPE {
        return Err(Error::TypeOutOfRange(typ));
    }
    if (typ == tt::IMPLICIT_SHA256_DIGEST || typ == tt::PARAMETERS_SHA256_DIGEST)
        && value.len() != 32
    {
        return Err(Error::BadLength {
            what: "digest name component",
            len: value.len(),
        });
    }
    Ok(())
}

/// A name component borrowed from a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ComponentView<'a> {
    pub typ: u64,
    pub value: &'a [u8],
}

impl<'a> ComponentView<'a> {
    /// Decodes one whole component element (type, length, value).
    pub fn decode(wire: &'a [u8]) -> Result<Self> {
        let e = Element::read_exact(wire)?;
        validate_component(e.typ, e.value)?;
        Ok(ComponentView {
            typ: e.typ,
            value: e.value,
        })
    }

    /// An owned copy.
    pub fn to_owned(&self) -> Component {
        Component {
            typ: self.typ,
            value: self.value.to_vec(),
        }
    }

    /// The value as a NonNegativeInteger, if it is one and the type is `typ`.
    pub fn number_of(&self, typ: u64) -> Option<u64> {
        if self.typ == typ {
            tlv::read_nonneg(self.value).ok()
        } else {
            None
        }
    }
}

impl fmt::Display for ComponentView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_component_uri(f, self.typ, self.value)
    }
}

/// An owned name component.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Component {
    typ: u64,
    value: Vec<u8>,
}

impl Component {
    /// A component of any type in [1, 65535]; digest types need a 32-byte value.
    pub fn new(typ: u64, value: impl Into<Vec<u8>>) -> Result<Self> {
        let value = value.into();
        validate_component(typ, &value)?;
        Ok(Component { typ, value })
    }
    /// A GenericNameComponent (type 8).
    pub fn generic(value: impl Into<Vec<u8>>) -> Self {
        Component {
            typ: tt::GENERIC_NAME_COMPONENT,
            value: value.into(),
        }
    }
    /// A KeywordNameComponent (type 0x20).
    pub fn keyword(value: impl Into<Vec<u8>>) -> Self {
        Component {
            typ: tt::KEYWORD_NAME_COMPONENT,
            value: value.into(),
        }
    }
    /// A component of type `typ` whose value is the NonNegativeInteger `n`.
    pub fn number(typ: u64, n: u64) -> Result<Self> {
        let mut value = Vec::with_capacity(8);
        tlv::write_nonneg(&mut value, n);
        Component::new(typ, value)
    }
    fn num(typ: u64, n: u64) -> Self {
        let mut value = Vec::with_capacity(8);
        tlv::write_nonneg(&mut value, n);
        Component { typ, value }
    }
    /// SegmentNameComponent (0x32), printed `seg=N`.
    pub fn segment(n: u64) -> Self {
        Self::num(tt::SEGMENT_NAME_COMPONENT, n)
    }
    /// ByteOffsetNameComponent (0x34), printed `off=N`.
    pub fn byte_offset(n: u64) -> Self {
        Self::num(tt::BYTE_OFFSET_NAME_COMPONENT, n)
    }
    /// VersionNameComponent (0x36), printed `v=N`.
    pub fn version(n: u64) -> Self {
        Self::num(tt::VERSION_NAME_COMPONENT, n)
    }
    /// TimestampNameComponent (0x38, microseconds since the Unix epoch), printed `t=N`.
    pub fn timestamp(n: u64) -> Self {
        Self::num(tt::TIMESTAMP_NAME_COMPONENT, n)
    }
    /// SequenceNumNameComponent (0x3A), printed `seq=N`.
    pub fn sequence_num(n: u64) -> Self {
        Self::num(tt::SEQUENCE_NUM_NAME_COMPONENT, n)
    }
    /// ImplicitSha256DigestComponent (1), printed `sha256digest=<hex>`.
    pub fn implicit_digest(digest: [u8; 32]) -> Self {
        Component {
            typ: tt::IMPLICIT_SHA256_DIGEST,
            value: digest.to_vec(),
        }
    }
    /// ParametersSha256DigestComponent (2), printed `params-sha256=<hex>`.
    pub fn params_digest(digest: [u8; 32]) -> Self {
        Component {
            typ: tt::PARAMETERS_SHA256_DIGEST,
            value: digest.to_vec(),
        }
    }
    pub fn typ(&self) -> u64 {
        self.typ
    }
    pub fn value(&self) -> &[u8] {
        &self.value
    }
    /// A borrowed view of this component.
    pub fn view(&self) -> ComponentView<'_> {
        ComponentView {
            typ: self.typ,
            value: &self.value,
        }
    }
    /// The value as a NonNegativeInteger, if it is one and the type is `typ`.
    pub fn number_of(&self, typ: u64) -> Option<u64> {
        self.view().number_of(typ)
    }
    /// The segment number, if this is a well-formed SegmentNameComponent.
    pub fn as_segment(&self) -> Option<u64> {
        self.number_of(tt::SEGMENT_NAME_COMPONENT)
    }
    /// The version, if this is a well-formed VersionNameComponent.
    pub fn as_version(&self) -> Option<u64> {
        self.number_of(tt::VERSION_NAME_COMPONENT)
    }
    /// The sequence number, if this is a well-formed SequenceNumNameComponent.
    pub fn as_sequence_num(&self) -> Option<u64> {
        self.number_of(tt::SEQUENCE_NUM_NAME_COMPONENT)
    }
    /// Appends the component element.
    pub fn encode(&self, buf: &mut Vec<u8>) {
        tlv::write_tlv(buf, self.typ, &self.value);
    }
    /// Parses one component in URI form (already split at `/`).
    pub fn from_uri(text: &str) -> Result<Self> {
        parse_component(text)
    }
}

/// The spec's canonical order: by type, then by length, then bytewise.
impl Ord for Component {
    fn cmp(&self, other: &Self) -> Ordering {
        self.typ
            .cmp(&other.typ)
            .then(self.value.len().cmp(&other.value.len()))
            .then_with(|| self.value.cmp(&other.value))
    }
}

impl PartialOrd for Component {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view().fmt(f)
    }
}

/// A Name borrowed from a packet; validated when it was made, so iterating cannot fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NameView<'a> {
    value: &'a [u8],
    len: usize,
}

impl<'a> NameView<'a> {
    /// Decodes the Name element `e` (checks the type and every component).
    pub fn from_element(e: Element<'a>) -> Result<Self> {
        e.expect(tt::NAME)?;
        Self::from_value(e.value)
    }

    /// Decodes a whole Name element (type 7) spanning `wire`.
    pub fn decode(wire: &'a [u8]) -> Result<Self> {
        Self::from_element(Element::read_exact(wire)?)
    }

    /// Decodes the TLV-VALUE of a Name: a sequence of components.
    pub fn from_value(value: &'a [u8]) -> Result<Self> {
        let mut len = 0;
        for c in Elements::new(value) {
            let c = c?;
            validate_component(c.typ, c.value)?;
            len += 1;
        }
        Ok(NameView { value, len })
    }

    /// The number of components.
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The TLV-VALUE (the encoded components).
    pub fn value(&self) -> &'a [u8] {
        self.value
    }
    /// The components in order.
    pub fn components(&self) -> impl Iterator<Item = ComponentView<'a>> + 'a {
        Elements::new(self.value).map_while(|e| {
            e.ok().map(|e| ComponentView {
                typ: e.typ,
                value: e.value,
            })
        })
    }
    /// The component at `i`.
    pub fn get(&self, i: usize) -> Option<ComponentView<'a>> {
        self.components().nth(i)
    }
    /// The last component.
    pub fn last(&self) -> Option<ComponentView<'a>> {
        self.components().last()
    }
    /// An owned copy.
    pub fn to_owned(&self) -> Name {
        Name {
            components: self.components().map(|c| c.to_owned()).collect(),
        }
    }
}

impl fmt::Display for NameView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("/");
        }
        for c in self.components() {
            f.write_str("/")?;
            c.fmt(f)?;
        }
        Ok(())
    }
}

/// An owned Name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    components: Vec<Component>,
}

impl Name {
    /// The empty name `/`.
    pub fn new() -> Self {
        Name::default()
    }
    /// A name of these components.
    pub fn from_components(components: Vec<Component>) -> Self {
        Name { components }
    }
    /// Parses the URI form: an optional `ndn:` scheme, an ignored `//authority`, then
    /// `/`-separated components. A trailing `/` adds nothing; an empty segment between two
    /// slashes is an empty generic component (python-ndn prints those), as is `...`.
    pub fn from_uri(uri: &str) -> Result<Self> {
        let mut rest = uri.strip_prefix("ndn:").unwrap_or(uri);
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('/').and_then(|i| after.get(i..)).unwrap_or("");
        }
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let mut components = Vec::new();
        if !rest.is_empty() {
            for part in rest.split('/') {
                components.push(parse_component(part)?);
            }
        }
        Ok(Name { components })
    }
    pub fn components(&self) -> &[Component] {
        &self.components
    }
    pub fn len(&self) -> usize {
        self.components.len()
    }
    pub fn is_empty(&self) -> bool {
        self.components.is_empty()
    }
    pub fn get(&self, i: usize) -> Option<&Component> {
        self.components.get(i)
    }
    pub fn last(&self) -> Option<&Component> {
        self.components.last()
    }
    /// Appends a component.
    pub fn push(&mut self, c: Component) {
        self.components.push(c);
    }
    /// This name with `c` appended.
    pub fn with(mut self, c: Component) -> Self {
        self.components.push(c);
        self
    }
    /// Removes and returns the last component.
    pub fn pop(&mut self) -> Option<Component> {
        self.components.pop()
    }
    /// True when `prefix`'s components are the first components of this name.
    pub fn starts_with(&self, prefix: &Name) -> bool {
        self.components.starts_with(&prefix.components)
    }
    pub(crate) fn components_mut(&mut self) -> &mut Vec<Component> {
        &mut self.components
    }
    /// Bytes of the encoded components (the Name's TLV-VALUE).
    pub fn value_len(&self) -> usize {
        self.components
            .iter()
            .map(|c| tlv::varnum_len(c.typ) + tlv::varnum_len(c.value.len() as u64) + c.value.len())
            .sum()
    }
    /// Appends the Name element.
    pub fn encode(&self, buf: &mut Vec<u8>) {
        tlv::write_header(buf, tt::NAME, self.value_len());
        for c in &self.components {
            c.encode(buf);
        }
    }
    /// The Name element as bytes.
    pub fn to_wire(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.encode(&mut buf);
        buf
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.components.is_empty() {
            return f.write_str("/");
        }
        for c in &self.components {
            f.write_str("/")?;
            c.fmt(f)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Name {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Name::from_uri(s)
    }
}

impl PartialEq<Name> for NameView<'_> {
    fn eq(&self, other: &Name) -> bool {
        self.len == other.len()
            && self
                .components()
                .zip(other.components.iter())
                .all(|(a, b)| a == b.view())
    }
}

/// URI aliases of the number-valued component types.
const NUMBER_ALIASES: [(&str, u64); 5] = [
    ("seg", tt::SEGMENT_NAME_COMPONENT),
    ("off", tt::BYTE_OFFSET_NAME_COMPONENT),
    ("v", tt::VERSION_NAME_COMPONENT),
    ("t", tt::TIMESTAMP_NAME_COMPONENT),
    ("seq", tt::SEQUENCE_NUM_NAME_COMPONENT),
];

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn write_escaped(f: &mut fmt::Formatter<'_>, value: &[u8]) -> fmt::Result {
    for &b in value {
        if is_unreserved(b) {
            write!(f, "{}", b as char)?;
        } else {
            write!(f, "%{b:02X}")?;
        }
    }
    Ok(())
}

fn write_hex(f: &mut fmt::Formatter<'_>, value: &[u8]) -> fmt::Result {
    value.iter().try_for_each(|b| write!(f, "{b:02x}"))
}

fn write_component_uri(f: &mut fmt::Formatter<'_>, typ: u64, value: &[u8]) -> fmt::Result {
    match typ {
        tt::GENERIC_NAME_COMPONENT => {
            if value.iter().all(|&b| b == b'.') {
                f.write_str("...")?;
            }
            write_escaped(f, value)
        }
        tt::IMPLICIT_SHA256_DIGEST if value.len() == 32 => {
            f.write_str("sha256digest=")?;
            write_hex(f, value)
        }
        tt::PARAMETERS_SHA256_DIGEST if value.len() == 32 => {
            f.write_str("params-sha256=")?;
            write_hex(f, value)
        }
        _ => {
            let alias = NUMBER_ALIASES.iter().find(|(_, t)| *t == typ);
            match (alias, tlv::read_nonneg(value)) {
                (Some((name, _)), Ok(n)) => write!(f, "{name}={n}"),
                _ => {
                    write!(f, "{typ}=")?;
                    write_escaped(f, value)
                }
            }
        }
    }
}

fn parse_decimal(text: &str) -> Result<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::Uri("expected a decimal number"));
    }
    text.parse().map_err(|_| Error::Uri("number too large"))
}

fn hex_digit(b: u8) -> Result<u8> {
    match b {
        b'0'..=b'9' => Ok(b - b'0'),
        b'a'..=b'f' => Ok(b - b'a' + 10),
        b'A'..=b'F' => Ok(b - b'A' + 10),
        _ => Err(Error::Uri("bad hex digit")),
    }
}

fn parse_hex32(text: &str) -> Result<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return Err(Error::Uri("a digest needs 64 hex digits"));
    }
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        if let [hi, lo] = pair {
            *o = (hex_digit(*hi)? << 4) | hex_digit(*lo)?;
        }
    }
    Ok(out)
}

fn unescape(text: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hi = bytes.next().ok_or(Error::Uri("truncated percent-escape"))?;
            let lo = bytes.next().ok_or(Error::Uri("truncated percent-escape"))?;
            out.push((hex_digit(hi)? << 4) | hex_digit(lo)?);
        } else {
            out.push(b);
        }
    }
    Ok(out)
}

fn parse_generic_value(text: &str) -> Result<Vec<u8>> {
    if !text.is_empty() && text.bytes().all(|b| b == b'.') {
        // `.` and `..` mean nothing in NDN; three more periods than the value encode periods.
        return match text.len() {
            1 | 2 => Err(Error::Uri("a component may not be `.` or `..`")),
            n => Ok(vec![b'.'; n - 3]),
        };
    }
    unescape(text)
}

fn parse_component(text: &str) -> Result<Component> {
    if let Some((prefix, rest)) = text.split_once('=') {
        if let Some((_, typ)) = NUMBER_ALIASES.iter().find(|(a, _)| *a == prefix) {
            return Component::number(*typ, parse_decimal(rest)?);
        }
        match prefix {
            "sha256digest" => return Ok(Component::implicit_digest(parse_hex32(rest)?)),
            "params-sha256" => return Ok(Component::params_digest(parse_hex32(rest)?)),
            _ => {}
        }
        if !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_digit()) {
            let typ = parse_decimal(prefix)?;
            let value = if typ == tt::GENERIC_NAME_COMPONENT {
                parse_generic_value(rest)?
            } else {
                unescape(rest)?
            };
            return Component::new(typ, value).map_err(|_| Error::Uri("bad component type"));
        }
    }
    Ok(Component::generic(parse_generic_value(text)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_round_trips() {
        for uri in [
            "/",
            "/a/b/c",
            "/a%20b~%2B.",
            "/...",
            "/....",
            "/seg=300/v=3/t=1/seq=9/off=2",
            "/32=kw/252=x/65535=%00",
            "/sha256digest=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        ] {
            let name = Name::from_uri(uri).unwrap();
            assert_eq!(name.to_string(), uri);
            let wire = name.to_wire();
            let view = NameView::decode(&wire).unwrap();
            assert_eq!(view.to_string(), uri);
            assert_eq!(view, name);
            assert_eq!(view.to_owned(), name);
        }
    }

    #[test]
    fn uri_lenient_forms() {
        let n = |s: &str| Name::from_uri(s).unwrap().to_string();
        assert_eq!(n("ndn:/a/b"), "/a/b");
        assert_eq!(n("ndn://authority/a"), "/a");
        assert_eq!(n("/a/b/"), "/a/b");
        assert_eq!(n("/a//b"), "/a/.../b");
        assert_eq!(n("/8=a"), "/a");
        assert_eq!(n("/%41"), "/A");
        assert_eq!(n("/seg=00"), "/seg=0");
        assert_eq!(n("/x=y"), "/x%3Dy");
        assert_eq!(n(""), "/");
    }

    #[test]
    fn uri_errors() {
        for bad in [
            "/.",
            "/..",
            "/%zz",
            "/%4",
            "/seg=",
            "/seg=x",
            "/0=a",
            "/65536=a",
            "/v=99999999999999999999",
            "/sha256digest=00",
        ] {
            assert!(Name::from_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn typed_components() {
        assert_eq!(Component::segment(300).value(), &[1, 0x2C]);
        assert_eq!(Component::segment(300).as_segment(), Some(300));
        assert_eq!(Component::version(7).as_segment(), None);
        assert_eq!(
            Component::sequence_num(1 << 40).as_sequence_num(),
            Some(1 << 40)
        );
        // A number-typed component whose value is not a NonNegativeInteger prints by number.
        let odd = Component::new(0x32, vec![1, 2, 3]).unwrap();
        assert_eq!(odd.to_string(), "50=%01%02%03");
        assert!(Component::new(1, vec![0; 31]).is_err());
        assert!(Component::new(0, vec![]).is_err());
    }

    #[test]
    fn canonical_order() {
        let a = Component::generic(b"b".to_vec());
        let b = Component::generic(b"aa".to_vec());
        let d = Component::implicit_digest([0xFF; 32]);
        assert!(a < b, "shorter first");
        assert!(d < a, "digest type sorts before generic");
        let p = Name::from_uri("/a").unwrap();
        assert!(p < Name::from_uri("/a/b").unwrap());
        assert!(Name::from_uri("/a/b").unwrap().starts_with(&p));
    }

    #[test]
    fn view_rejects_bad_components() {
        assert!(NameView::decode(&[7, 2, 0, 0]).is_err());
        assert!(NameView::decode(&[7, 3, 1, 1, 0]).is_err());
        assert!(NameView::decode(&[7, 3, 8, 2, 0]).is_err());
        assert!(NameView::decode(&[8, 0]).is_err());
        assert_eq!(NameView::decode(&[7, 0]).unwrap().len(), 0);
    }
}
