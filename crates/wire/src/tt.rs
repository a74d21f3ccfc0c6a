//! TLV-TYPE numbers (NDN packet format v0.3, NDNLPv2, and this project's own LpPacket headers).

// Packets and names.
pub const INTEREST: u64 = 0x05;
pub const DATA: u64 = 0x06;
pub const NAME: u64 = 0x07;

// Name components.
pub const IMPLICIT_SHA256_DIGEST: u64 = 0x01;
pub const PARAMETERS_SHA256_DIGEST: u64 = 0x02;
pub const GENERIC_NAME_COMPONENT: u64 = 0x08;
pub const KEYWORD_NAME_COMPONENT: u64 = 0x20;
pub const SEGMENT_NAME_COMPONENT: u64 = 0x32;
pub const BYTE_OFFSET_NAME_COMPONENT: u64 = 0x34;
pub const VERSION_NAME_COMPONENT: u64 = 0x36;
pub const TIMESTAMP_NAME_COMPONENT: u64 = 0x38;
pub const SEQUENCE_NUM_NAME_COMPONENT: u64 = 0x3A;

// Interest.
pub const CAN_BE_PREFIX: u64 = 0x21;
pub const MUST_BE_FRESH: u64 = 0x12;
pub const FORWARDING_HINT: u64 = 0x1E;
/// The pre-2022 ForwardingHint element (Delegation { Preference, Name }); read, never written.
pub const DELEGATION: u64 = 0x1F;
pub const PREFERENCE: u64 = 0x1E;
pub const NONCE: u64 = 0x0A;
pub const INTEREST_LIFETIME: u64 = 0x0C;
pub const HOP_LIMIT: u64 = 0x22;
pub const APPLICATION_PARAMETERS: u64 = 0x24;
pub const INTEREST_SIGNATURE_INFO: u64 = 0x2C;
pub const INTEREST_SIGNATURE_VALUE: u64 = 0x2E;

// Data.
pub const META_INFO: u64 = 0x14;
pub const CONTENT: u64 = 0x15;
pub const SIGNATURE_INFO: u64 = 0x16;
pub const SIGNATURE_VALUE: u64 = 0x17;
pub const CONTENT_TYPE: u64 = 0x18;
pub const FRESHNESS_PERIOD: u64 = 0x19;
pub const FINAL_BLOCK_ID: u64 = 0x1A;
pub const SIGNATURE_TYPE: u64 = 0x1B;
pub const KEY_LOCATOR: u64 = 0x1C;
pub const KEY_DIGEST: u64 = 0x1D;

/// SignatureType DigestSha256.
pub const SIGNATURE_DIGEST_SHA256: u64 = 0;

// NDNLPv2.
pub const LP_PACKET: u64 = 0x64;
pub const FRAGMENT: u64 = 0x50;
pub const SEQUENCE: u64 = 0x51;
pub const FRAG_INDEX: u64 = 0x52;
pub const FRAG_COUNT: u64 = 0x53;
pub const PIT_TOKEN: u64 = 0x62;
pub const NACK: u64 = 800;
pub const NACK_REASON: u64 = 801;
pub const INCOMING_FACE_ID: u64 = 812;
pub const NEXT_HOP_FACE_ID: u64 = 816;
pub const CACHE_POLICY: u64 = 820;
pub const CACHE_POLICY_TYPE: u64 = 821;
pub const CONGESTION_MARK: u64 = 832;
pub const ACK: u64 = 836;
pub const TX_SEQUENCE: u64 = 840;
pub const NON_DISCOVERY: u64 = 844;
pub const PREFIX_ANNOUNCEMENT: u64 = 848;

// This project's hop-by-hop LpPacket headers (defaults; see `lp::ExtTypes`). All are in
// [800, 959] with `type % 4 == 0`, so NDNLPv2 receivers that do not know them ignore them.
/// MIRCC explicit rate stamp: IEEE 754 binary64, big-endian, Interests/s.
pub const EXT_RATE_STAMP: u64 = 852;
/// CHoPCoP segment information: index u32 BE, count u32 BE.
pub const EXT_SEGMENT_INFO: u64 = 856;
/// Traffic class (MIRCC multipath): NonNegativeInteger ≤ 255.
pub const EXT_TRAFFIC_CLASS: u64 = 860;
/// Chunk request: segments u32 BE, mask u64 BE.
pub const EXT_CHUNK_REQUEST: u64 = 864;
/// Network hops travelled: NonNegativeInteger ≤ 65535.
pub const EXT_HOP_COUNT: u64 = 868;

/// True when an unrecognised LpPacket header of this type may be ignored (NDNLPv2: type in
/// [800, 959] and its two low bits zero); any other unrecognised header drops the packet.
pub const fn lp_header_ignorable(typ: u64) -> bool {
    typ >= 800 && typ <= 959 && typ % 4 == 0
}
