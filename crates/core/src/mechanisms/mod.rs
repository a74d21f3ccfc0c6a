//! Reusable parts that schemes compose.

pub mod aimd;
pub mod ratio_pick;
pub mod red_marker;
pub mod rtt_estimator;
pub mod token_bucket;
