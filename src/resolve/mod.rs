//! Resolving: the sources under their final names, the renames decided, what each workload reads and what holds a roll back: values every command reads.

pub mod names;
pub mod renames;
pub mod resolution;
pub mod rollout;
pub mod sources;
pub mod workload;
