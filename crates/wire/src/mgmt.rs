//! NFD management protocol: ControlParameters, ControlResponse, and control commands.
//!
//! A control command is an Interest named
//! `/localhost/nfd/<module>/<verb>/<ControlParameters>` (or `/localhop/nfd/…` from another
//! host). Two signing forms are in use and both are read here:
//!
//! * **v2** (what [`CommandInterest::encode`] writes, and what ndnd's own clients send): a signed
//!   Interest (packet format v0.3) — empty ApplicationParameters, InterestSignatureInfo with
//!   SignatureType DigestSha256, SignatureNonce and SignatureTime, InterestSignatureValue =
//!   SHA-256 of the name components (without the ParametersSha256Digest) followed by the
//!   ApplicationParameters and InterestSignatureInfo elements; the name then ends with the
//!   ParametersSha256Digest component.
//! * **v1** (python-ndn 0.5.2's `NDNApp.register`): four more generic components after the
//!   parameters — timestamp, random nonce, SignatureInfo, SignatureValue.
//!
//! In both the ControlParameters are the component at index 4. ndnd v1.5.3 checks neither
//! signature; NFD would. The reply is a Data of exactly the Interest's name whose Content is a
//! ControlResponse ([`command_reply`]). Status datasets (faces/list, status/general, …) are in
//! [`crate::dataset`].

use sha2::{Digest, Sha256};

use crate::data::Data;
use crate::error::{Error, Result};
use crate::interest::{Interest, InterestView};
use crate::name::{Component, Name, NameView};
use crate::tlv::{self, is_critical, Element, Elements};
use crate::tt;

// Management TLV-TYPE numbers (NFD management protocol).
pub const CONTROL_PARAMETERS: u64 = 0x68;
pub const FACE_ID: u64 = 0x69;
pub const COST: u64 = 0x6A;
pub const STRATEGY: u64 = 0x6B;
pub const FLAGS: u64 = 0x6C;
pub const EXPIRATION_PERIOD: u64 = 0x6D;
pub const ORIGIN: u64 = 0x6F;
pub const MASK: u64 = 0x70;
pub const URI: u64 = 0x72;
pub const LOCAL_URI: u64 = 0x81;
pub const CAPACITY: u64 = 0x83;
pub const COUNT: u64 = 0x84;
pub const FACE_PERSISTENCY: u64 = 0x85;
pub const BASE_CONGESTION_MARKING_INTERVAL: u64 = 0x87;
pub const DEFAULT_CONGESTION_THRESHOLD: u64 = 0x88;
pub const MTU: u64 = 0x89;
pub const CONTROL_RESPONSE: u64 = 0x65;
pub const STATUS_CODE: u64 = 0x66;
pub const STATUS_TEXT: u64 = 0x67;
// Signed Interest (packet format v0.3) SignatureInfo fields.
pub const SIGNATURE_NONCE: u64 = 0x26;
pub const SIGNATURE_TIME: u64 = 0x28;
pub const SIGNATURE_SEQ_NUM: u64 = 0x2A;

/// Face flag bits (ControlParameters Flags/Mask on faces, FaceStatus Flags).
pub const FACE_FLAG_LOCAL_FIELDS: u64 = 1;
pub const FACE_FLAG_LP_RELIABILITY: u64 = 2;
pub const FACE_FLAG_CONGESTION_MARKING: u64 = 4;
/// Route flag bits (rib/register Flags).
pub const ROUTE_FLAG_CHILD_INHERIT: u64 = 1;
pub const ROUTE_FLAG_CAPTURE: u64 = 2;
/// FacePersistency values.
pub const PERSISTENCY_PERSISTENT: u64 = 0;
pub const PERSISTENCY_ON_DEMAND: u64 = 1;
pub const PERSISTENCY_PERMANENT: u64 = 2;
/// Route origin "app" (the default of rib/register).
pub const ORIGIN_APP: u64 = 0;

/// Walks the children of a management element: `field` returns `Ok(true)` for a type it knows
/// (and stored), `Ok(false)` for one it does not. Unknown critical types are errors, unknown
/// non-critical ones are skipped, a known type twice is [`Error::Duplicate`]. Order is not
/// enforced (NFD writes the canonical order; we read any).
pub(crate) fn walk<'a>(
    value: &'a [u8],
    mut field: impl FnMut(Element<'a>) -> Result<bool>,
) -> Result<()> {
    let mut seen: Vec<u64> = Vec::new();
    for e in Elements::new(value) {
        let e = e?;
        if field(e)? {
            if seen.contains(&e.typ) {
                return Err(Error::Duplicate(e.typ));
            }
            seen.push(e.typ);
        } else if is_critical(e.typ) {
            return Err(Error::UnknownCritical(e.typ));
        }
    }
    Ok(())
}

/// A UTF-8 string value (Uri, LocalUri, StatusText, …).
pub(crate) fn utf8(e: Element<'_>) -> Result<String> {
    String::from_utf8(e.value.to_vec()).map_err(|_| Error::Invalid("a string field is not UTF-8"))
}

/// A `Strategy { Name }` element's name.
fn strategy_name(e: Element<'_>) -> Result<Name> {
    let inner = Element::read_exact_typed(e.value, tt::NAME)?;
    Ok(NameView::from_element(inner)?.to_owned())
}

/// Writes `Strategy { Name }`.
pub(crate) fn write_strategy(buf: &mut Vec<u8>, name: &Name) {
    tlv::write_nested(buf, STRATEGY, |b| name.encode(b));
}

/// ControlParameters: every field NFD's management commands use. Absent fields are `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlParameters {
    /// Route or strategy-choice prefix (rib/*, fib/*, strategy-choice/*).
    pub name: Option<Name>,
    /// Face; 0 or absent on rib/register and fib/add-nexthop means "the requesting face".
    pub face_id: Option<u64>,
    /// Remote URI (faces/create), e.g. `udp4://127.0.0.1:6363`.
    pub uri: Option<String>,
    /// Local URI (faces/create).
    pub local_uri: Option<String>,
    /// Route origin (rib/*; 0 = app, 255 = static).
    pub origin: Option<u64>,
    /// Route or next-hop cost.
    pub cost: Option<u64>,
    /// Content store capacity (cs/config), packets.
    pub capacity: Option<u64>,
    /// Count (cs/erase), packets.
    pub count: Option<u64>,
    /// Congestion marking base interval, ns (faces/create, faces/update).
    pub base_congestion_marking_interval: Option<u64>,
    /// Congestion marking threshold, bytes (faces/create, faces/update).
    pub default_congestion_threshold: Option<u64>,
    /// Face MTU, bytes (faces/create, faces/update).
    pub mtu: Option<u64>,
    /// Route flags (rib/register) or face flags (faces/*), a bit field.
    pub flags: Option<u64>,
    /// Which bits of `flags` to apply (faces/create, faces/update).
    pub mask: Option<u64>,
    /// Strategy name (strategy-choice/set), e.g. `/localhost/nfd/strategy/best-route`.
    pub strategy: Option<Name>,
    /// Route lifetime, ms (rib/register); absent means forever.
    pub expiration_period: Option<u64>,
    /// Face persistency (faces/create, faces/update): 0 persistent, 1 on-demand, 2 permanent.
    pub face_persistency: Option<u64>,
}

impl ControlParameters {
    /// Parameters with only a name (rib/register, rib/unregister, strategy-choice/unset).
    pub fn for_name(name: Name) -> Self {
        ControlParameters {
            name: Some(name),
            ..Self::default()
        }
    }

    /// The ControlParameters element.
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(64);
        self.encode_to(&mut buf);
        buf
    }

    /// Appends the ControlParameters element, fields in NFD's order.
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        tlv::write_nested(buf, CONTROL_PARAMETERS, |b| {
            if let Some(n) = &self.name {
                n.encode(b);
            }
            nonneg(b, FACE_ID, self.face_id);
            string(b, URI, self.uri.as_deref());
            string(b, LOCAL_URI, self.local_uri.as_deref());
            nonneg(b, ORIGIN, self.origin);
            nonneg(b, COST, self.cost);
            nonneg(b, CAPACITY, self.capacity);
            nonneg(b, COUNT, self.count);
            nonneg(
                b,
                BASE_CONGESTION_MARKING_INTERVAL,
                self.base_congestion_marking_interval,
            );
            nonneg(
                b,
                DEFAULT_CONGESTION_THRESHOLD,
                self.default_congestion_threshold,
            );
            nonneg(b, MTU, self.mtu);
            nonneg(b, FLAGS, self.flags);
            nonneg(b, MASK, self.mask);
            if let Some(s) = &self.strategy {
                write_strategy(b, s);
            }
            nonneg(b, EXPIRATION_PERIOD, self.expiration_period);
            nonneg(b, FACE_PERSISTENCY, self.face_persistency);
        });
    }

    /// Decodes one ControlParameters element spanning `wire`.
    pub fn decode(wire: &[u8]) -> Result<Self> {
        let e = Element::read_exact_typed(wire, CONTROL_PARAMETERS)?;
        Self::from_value(e.value)
    }

    /// Decodes the TLV-VALUE of a ControlParameters element.
    pub fn from_value(value: &[u8]) -> Result<Self> {
        let mut p = ControlParameters::default();
        walk(value, |e| {
            let n = || e.nonneg().map(Some);
            match e.typ {
                tt::NAME => p.name = Some(NameView::from_element(e)?.to_owned()),
                FACE_ID => p.face_id = n()?,
                URI => p.uri = Some(utf8(e)?),
                LOCAL_URI => p.local_uri = Some(utf8(e)?),
                ORIGIN => p.origin = n()?,
                COST => p.cost = n()?,
                CAPACITY => p.capacity = n()?,
                COUNT => p.count = n()?,
                BASE_CONGESTION_MARKING_INTERVAL => p.base_congestion_marking_interval = n()?,
                DEFAULT_CONGESTION_THRESHOLD => p.default_congestion_threshold = n()?,
                MTU => p.mtu = n()?,
                FLAGS => p.flags = n()?,
                MASK => p.mask = n()?,
                STRATEGY => p.strategy = Some(strategy_name(e)?),
                EXPIRATION_PERIOD => p.expiration_period = n()?,
                FACE_PERSISTENCY => p.face_persistency = n()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(p)
    }
}

pub(crate) fn nonneg(buf: &mut Vec<u8>, typ: u64, v: Option<u64>) {
    if let Some(v) = v {
        tlv::write_nonneg_tlv(buf, typ, v);
    }
}

pub(crate) fn string(buf: &mut Vec<u8>, typ: u64, v: Option<&str>) {
    if let Some(v) = v {
        tlv::write_tlv(buf, typ, v.as_bytes());
    }
}

/// ControlResponse: a status and, for commands, the parameters as applied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlResponse {
    /// HTTP-like: 200 OK, 400 bad parameters, 403 unauthorized, 404 not found, 409 conflict,
    /// 410 face gone, 501 unknown module or verb.
    pub status_code: u64,
    pub status_text: String,
    /// The body: ControlParameters for a command. python-ndn 0.5.2 needs it on errors too.
    pub body: Option<ControlParameters>,
}

impl ControlResponse {
    /// A response with a body.
    pub fn new(status_code: u64, status_text: &str, body: ControlParameters) -> Self {
        ControlResponse {
            status_code,
            status_text: status_text.to_string(),
            body: Some(body),
        }
    }

    /// True for 200.
    pub fn is_ok(&self) -> bool {
        self.status_code == 200
    }

    /// The ControlResponse element.
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(64);
        tlv::write_nested(&mut buf, CONTROL_RESPONSE, |b| {
            tlv::write_nonneg_tlv(b, STATUS_CODE, self.status_code);
            tlv::write_tlv(b, STATUS_TEXT, self.status_text.as_bytes());
            if let Some(p) = &self.body {
                p.encode_to(b);
            }
        });
        buf
    }

    /// Decodes one ControlResponse element spanning `wire` (a reply Data's Content).
    pub fn decode(wire: &[u8]) -> Result<Self> {
        let outer = Element::read_exact_typed(wire, CONTROL_RESPONSE)?;
        let mut code = None;
        let mut text = None;
        let mut body = None;
        walk(outer.value, |e| {
            match e.typ {
                STATUS_CODE => code = Some(e.nonneg()?),
                STATUS_TEXT => text = Some(utf8(e)?),
                CONTROL_PARAMETERS => body = Some(ControlParameters::from_value(e.value)?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(ControlResponse {
            status_code: code.ok_or(Error::Missing("StatusCode"))?,
            status_text: text.ok_or(Error::Missing("StatusText"))?,
            body,
        })
    }
}

/// Scope of a command: `/localhost/nfd` from the same host, `/localhop/nfd` from a neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Localhost,
    Localhop,
}

impl Scope {
    fn first(self) -> &'static str {
        match self {
            Scope::Localhost => "localhost",
            Scope::Localhop => "localhop",
        }
    }
}

/// A control command to encode as a v2 signed Interest (DigestSha256).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandInterest {
    pub scope: Scope,
    /// Module: `rib`, `faces`, `fib`, `strategy-choice`, `cs`.
    pub module: String,
    /// Verb: `register`, `unregister`, `create`, `destroy`, `update`, `add-nexthop`, `set`, …
    pub verb: String,
    pub params: ControlParameters,
    /// Interest Nonce (ndnd drops Interests without one).
    pub nonce: u32,
    /// InterestLifetime, ms (python-ndn uses 1000 for commands).
    pub lifetime_ms: u64,
    /// SignatureTime: ms since the Unix epoch (the caller reads the clock).
    pub signature_time_ms: u64,
    /// SignatureNonce, written as a NonNegativeInteger as python-ndn writes it.
    pub signature_nonce: u64,
}

impl CommandInterest {
    /// The name without parameters digest: `/<scope>/nfd/<module>/<verb>/<ControlParameters>`.
    pub fn name(&self) -> Name {
        Name::from_components(vec![
            Component::generic(self.scope.first()),
            Component::generic("nfd"),
            Component::generic(self.module.as_bytes()),
            Component::generic(self.verb.as_bytes()),
            Component::generic(self.params.encode()),
        ])
    }

    /// InterestSignatureInfo's TLV-VALUE.
    fn signature_info(&self) -> Vec<u8> {
        let mut info = Vec::with_capacity(24);
        tlv::write_nonneg_tlv(&mut info, tt::SIGNATURE_TYPE, tt::SIGNATURE_DIGEST_SHA256);
        tlv::write_nonneg_tlv(&mut info, SIGNATURE_NONCE, self.signature_nonce);
        tlv::write_nonneg_tlv(&mut info, SIGNATURE_TIME, self.signature_time_ms);
        info
    }

    /// The Interest, signed with DigestSha256 (v2 form).
    pub fn to_interest(&self) -> Interest {
        let name = self.name();
        let info = self.signature_info();
        let mut signed = Vec::with_capacity(name.value_len() + info.len() + 8);
        name.components().iter().for_each(|c| c.encode(&mut signed));
        tlv::write_tlv(&mut signed, tt::APPLICATION_PARAMETERS, &[]);
        tlv::write_tlv(&mut signed, tt::INTEREST_SIGNATURE_INFO, &info);
        let value = Sha256::digest(&signed).to_vec();
        Interest {
            name,
            nonce: Some(self.nonce),
            lifetime: Some(self.lifetime_ms),
            app_params: Some(Vec::new()),
            signature: Some((info, value)),
            ..Interest::default()
        }
    }

    /// The Interest element as bytes.
    pub fn encode(&self) -> Result<Vec<u8>> {
        self.to_interest().encode()
    }
}

/// A control command read from an Interest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub scope: Scope,
    pub module: String,
    pub verb: String,
    /// Absent when the name stops after the verb (dataset requests such as `faces/list`).
    pub params: Option<ControlParameters>,
}

impl Command {
    /// Reads `/<localhost|localhop>/nfd/<module>/<verb>[/<ControlParameters>/…]`. An Interest
    /// outside those prefixes is `Ok(None)`; a management name with bad parameters is an error.
    /// Signatures are not checked (ndnd does not either).
    pub fn parse(interest: &InterestView<'_>) -> Result<Option<Command>> {
        let name = &interest.name;
        let text = |i: usize| -> Option<&[u8]> {
            name.get(i)
                .filter(|c| c.typ == tt::GENERIC_NAME_COMPONENT)
                .map(|c| c.value)
        };
        let scope = match text(0) {
            Some(b"localhost") => Scope::Localhost,
            Some(b"localhop") => Scope::Localhop,
            _ => return Ok(None),
        };
        if text(1) != Some(b"nfd") {
            return Ok(None);
        }
        let word = |i: usize, what: &'static str| -> Result<String> {
            let bytes = text(i).ok_or(Error::Missing(what))?;
            String::from_utf8(bytes.to_vec())
                .map_err(|_| Error::Invalid("management module or verb is not UTF-8"))
        };
        let module = word(2, "management module")?;
        let verb = word(3, "management verb")?;
        let params = match name.get(4) {
            Some(c) if c.typ == tt::GENERIC_NAME_COMPONENT => {
                Some(ControlParameters::decode(c.value)?)
            }
            _ => None,
        };
        Ok(Some(Command {
            scope,
            module,
            verb,
            params,
        }))
    }
}

/// The reply to a command: a Data of exactly the Interest's name (digest component included),
/// Content = the ControlResponse, signed DigestSha256.
pub fn command_reply(interest: &InterestView<'_>, response: &ControlResponse) -> Data {
    Data::new(interest.name.to_owned(), response.encode())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> ControlParameters {
        ControlParameters {
            name: Some(Name::from_uri("/ndncc/p").unwrap()),
            face_id: Some(300),
            uri: Some("udp4://127.0.0.1:6363".into()),
            local_uri: Some("udp4://0.0.0.0:6363".into()),
            origin: Some(255),
            cost: Some(10),
            capacity: Some(65536),
            count: Some(3),
            base_congestion_marking_interval: Some(100_000_000),
            default_congestion_threshold: Some(65536),
            mtu: Some(1420),
            flags: Some(FACE_FLAG_CONGESTION_MARKING),
            mask: Some(FACE_FLAG_CONGESTION_MARKING),
            strategy: Some(Name::from_uri("/localhost/nfd/strategy/best-route").unwrap()),
            expiration_period: Some(3_600_000),
            face_persistency: Some(PERSISTENCY_PERMANENT),
        }
    }

    #[test]
    fn every_field_round_trips() {
        let p = full();
        assert_eq!(ControlParameters::decode(&p.encode()), Ok(p.clone()));
        let empty = ControlParameters::default();
        assert_eq!(empty.encode(), vec![0x68, 0]);
        assert_eq!(ControlParameters::decode(&[0x68, 0]), Ok(empty));
    }

    #[test]
    fn field_types_are_the_nfd_numbers() {
        // FaceId 0x69 then Cost 0x6A, each a shortest NonNegativeInteger.
        let p = ControlParameters {
            face_id: Some(1),
            cost: Some(256),
            ..Default::default()
        };
        assert_eq!(p.encode(), vec![0x68, 7, 0x69, 1, 1, 0x6A, 2, 1, 0]);
    }

    #[test]
    fn bad_parameters_are_errors() {
        // Duplicate FaceId.
        let dup = [0x68, 6, 0x69, 1, 1, 0x69, 1, 2];
        assert_eq!(
            ControlParameters::decode(&dup),
            Err(Error::Duplicate(FACE_ID))
        );
        // Unknown critical (odd) 0x8B; unknown non-critical 0x8C skipped.
        assert_eq!(
            ControlParameters::decode(&[0x68, 2, 0x8B, 0]),
            Err(Error::UnknownCritical(0x8B))
        );
        assert_eq!(
            ControlParameters::decode(&[0x68, 2, 0x8C, 0]),
            Ok(ControlParameters::default())
        );
        // Cost of 3 bytes, a Uri that is not UTF-8, a truncated element.
        assert!(ControlParameters::decode(&[0x68, 5, 0x6A, 3, 1, 2, 3]).is_err());
        assert!(ControlParameters::decode(&[0x68, 3, 0x72, 1, 0xFF]).is_err());
        assert!(ControlParameters::decode(&[0x68, 3, 0x69, 2, 1]).is_err());
    }

    #[test]
    fn response_round_trip_and_missing_status() {
        let r = ControlResponse::new(200, "OK", full());
        assert_eq!(ControlResponse::decode(&r.encode()), Ok(r));
        let no_body = ControlResponse {
            status_code: 404,
            status_text: "Nope".into(),
            body: None,
        };
        assert_eq!(ControlResponse::decode(&no_body.encode()), Ok(no_body));
        assert_eq!(
            ControlResponse::decode(&[0x65, 2, 0x67, 0]),
            Err(Error::Missing("StatusCode"))
        );
    }

    fn register() -> CommandInterest {
        CommandInterest {
            scope: Scope::Localhost,
            module: "rib".into(),
            verb: "register".into(),
            params: ControlParameters::for_name(Name::from_uri("/ndncc/p").unwrap()),
            nonce: 7,
            lifetime_ms: 1000,
            signature_time_ms: 1_700_000_000_000,
            signature_nonce: 42,
        }
    }

    #[test]
    fn command_interest_parses_back_and_its_signature_covers_the_name() {
        let cmd = register();
        let wire = cmd.encode().unwrap();
        let view = InterestView::decode(&wire).unwrap();
        assert_eq!(view.name.len(), 6, "5 components + params digest");
        let parsed = Command::parse(&view).unwrap().unwrap();
        assert_eq!(parsed.scope, Scope::Localhost);
        assert_eq!(
            (parsed.module.as_str(), parsed.verb.as_str()),
            ("rib", "register")
        );
        assert_eq!(parsed.params, Some(cmd.params.clone()));
        // The signature is SHA-256 of the 5 name components, AppParams and SigInfo.
        let mut other = cmd.clone();
        other.params.cost = Some(1);
        let (_, v1) = cmd.to_interest().signature.unwrap();
        let (_, v2) = other.to_interest().signature.unwrap();
        assert_ne!(v1, v2);
    }

    #[test]
    fn non_management_names_and_bad_commands() {
        let plain = Interest::new(Name::from_uri("/ndncc/x").unwrap(), 1)
            .encode()
            .unwrap();
        assert_eq!(
            Command::parse(&InterestView::decode(&plain).unwrap()),
            Ok(None)
        );
        let list = Interest::new(Name::from_uri("/localhop/nfd/faces/list").unwrap(), 1)
            .encode()
            .unwrap();
        let c = Command::parse(&InterestView::decode(&list).unwrap())
            .unwrap()
            .unwrap();
        assert_eq!((c.scope, c.params), (Scope::Localhop, None));
        let mut name = Name::from_uri("/localhost/nfd/rib/register").unwrap();
        name.push(Component::generic(vec![0x68, 3, 0x69, 2, 1]));
        let bad = Interest::new(name, 1).encode().unwrap();
        assert!(Command::parse(&InterestView::decode(&bad).unwrap()).is_err());
        let short = Interest::new(Name::from_uri("/localhost/nfd/rib").unwrap(), 1)
            .encode()
            .unwrap();
        assert!(Command::parse(&InterestView::decode(&short).unwrap()).is_err());
    }

    #[test]
    fn reply_has_the_exact_name() {
        let wire = register().encode().unwrap();
        let view = InterestView::decode(&wire).unwrap();
        let reply = command_reply(&view, &ControlResponse::new(200, "OK", full())).encode();
        let d = crate::DataView::decode(&reply).unwrap();
        assert_eq!(d.name.value(), view.name.value());
        d.verify_digest_sha256().unwrap();
        let r = ControlResponse::decode(d.content.unwrap()).unwrap();
        assert!(r.is_ok());
    }
}
