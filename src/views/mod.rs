//! Views of a resolution: graph, diff, audit and prune read what a run resolved and print it.

pub mod audit;
pub mod check;
pub mod diff;
pub mod graph;
pub mod prune;
