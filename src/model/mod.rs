//! What the function knows and says, below everything that reads text: resources and results, the catalog, the configuration, findings and their words, the two hash contracts (the pod hash and kustomize's name hash), go-yaml's scalar values.

pub mod catalog;
pub mod config;
pub mod content;
pub mod extension;
pub mod findings;
pub mod gitops;
pub mod go_value;
pub mod hash;
pub mod invocation;
pub mod lengths;
pub mod messages;
pub mod name_hash;
pub mod names;
pub mod reference;
pub mod resource;
pub mod result;
pub mod settings;
