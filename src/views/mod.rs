//! Views of a resolution: graph, diff, audit and prune read what a run resolved and print it.

pub mod audit;
pub mod check;
pub mod diff;
pub mod graph;
pub mod prune;

use std::io;

use serde::Serialize;

use crate::model::resource::ResourceId;

/// apiVersion, kind, namespace and name, as every JSON view names an object.
#[derive(Serialize)]
pub struct ResourceJson<'r> {
    #[serde(rename = "apiVersion")]
    api_version: &'r str,
    kind: &'r str,
    name: &'r str,
    namespace: Option<&'r str>,
}

impl<'r> ResourceJson<'r> {
    pub fn of(r: &'r ResourceId) -> Self {
        ResourceJson {
            api_version: r.api_version(),
            kind: r.kind(),
            name: r.name(),
            namespace: r.namespace(),
        }
    }
}

/// What a writer wrote, as text: for tests and callers that want the whole of a view.
pub fn to_text(write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    write(&mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("views write UTF-8")
}
