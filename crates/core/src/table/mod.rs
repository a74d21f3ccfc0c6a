//! Forwarding tables: FIB, PIT and Content Store.

pub mod cs;
pub mod few_map;
pub mod fib;
pub mod name_map;
pub mod pit;
