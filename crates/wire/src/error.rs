//! The one error type of the codec: every malformed input ends here, with a reason.

use std::fmt;

/// Why an input could not be decoded (or an owned struct could not be encoded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The input ends inside a VAR-NUMBER or a TLV-VALUE: `need` more bytes than the `have` left.
    Truncated { need: u64, have: usize },
    /// TLV-TYPE 0 is invalid everywhere.
    ZeroType,
    /// A TLV-TYPE outside what the context allows (e.g. a name component type above 65535).
    TypeOutOfRange(u64),
    /// The element found is not the one this position requires.
    UnexpectedType { expected: u64, found: u64 },
    /// An unrecognised critical element (type ≤ 31 or odd), or an LpPacket header that may not
    /// be ignored: the packet must be dropped.
    UnknownCritical(u64),
    /// A recognised element appears twice where it may appear once.
    Duplicate(u64),
    /// A recognised element appears after one that must follow it.
    OutOfOrder(u64),
    /// A required element is absent.
    Missing(&'static str),
    /// A value has a length its type does not allow.
    BadLength { what: &'static str, len: usize },
    /// A value is well framed but not acceptable (the reason says why).
    Invalid(&'static str),
    /// Bytes follow the outermost element.
    TrailingBytes(usize),
    /// A SHA-256 digest in the packet does not match the bytes it covers.
    DigestMismatch(&'static str),
    /// A name URI could not be parsed (the reason says why).
    Uri(&'static str),
}

/// The codec's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { need, have } => {
                write!(f, "truncated: need {need} more bytes, {have} left")
            }
            Error::ZeroType => write!(f, "TLV-TYPE 0 is invalid"),
            Error::TypeOutOfRange(t) => write!(f, "TLV-TYPE {t} is out of range here"),
            Error::UnexpectedType { expected, found } => {
                write!(f, "expected TLV-TYPE {expected}, found {found}")
            }
            Error::UnknownCritical(t) => write!(f, "unrecognised critical TLV-TYPE {t}"),
            Error::Duplicate(t) => write!(f, "TLV-TYPE {t} appears more than once"),
            Error::OutOfOrder(t) => write!(f, "TLV-TYPE {t} is out of order"),
            Error::Missing(what) => write!(f, "missing {what}"),
            Error::BadLength { what, len } => write!(f, "{what} has invalid length {len}"),
            Error::Invalid(why) => write!(f, "invalid: {why}"),
            Error::TrailingBytes(n) => write!(f, "{n} trailing bytes after the packet"),
            Error::DigestMismatch(what) => write!(f, "{what} does not match its digest"),
            Error::Uri(why) => write!(f, "bad NDN URI: {why}"),
        }
    }
}

impl std::error::Error for Error {}
