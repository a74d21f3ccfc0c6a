//! Reusable parts that schemes compose.

pub mod aimd;
pub mod rtt_estimator;
pub mod token_bucket;
