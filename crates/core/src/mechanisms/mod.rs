//! Reusable parts that schemes compose.

pub mod rtt_estimator;
