//! Reusable parts that schemes compose.

pub mod aimd;
pub mod red_marker;
pub mod rtt_estimator;
pub mod token_bucket;
