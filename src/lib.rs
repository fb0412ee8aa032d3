//! config-hash: a KRM function that hashes the ConfigMaps and Secrets each pod template
//! can see and stamps the digest into the template, editing the input text losslessly.
//!
//! The library is pure: text and configuration in, text and results out. Only
//! the binary (`main.rs`, `cli/`) touches stdin, stdout and the exit status.
#![forbid(unsafe_code)]

pub mod edit;
pub mod model;
pub mod read;
pub mod resolve;
mod run;
pub mod views;
pub mod yaml;

pub use model::invocation::Invocation;
use read::input_error::InputError;
use read::resource_list::ResourceList;
use resolve::resolution;
pub use run::conclude::{Outcome, Prepared};
use run::pipeline::{self, prepare_input as prepare_for, strip_bom};

/// Runs the function on a ResourceList (YAML or JSON) with its own functionConfig.
pub fn run_resource_list(input: &str) -> Result<Outcome, InputError> {
    let out = run(input, &Invocation::default())?;
    if !out.resource_list {
        let body = strip_bom(input).1;
        let lf = yaml::breaks::lone_cr_as_lf(body);
        let tree = crate::yaml::parse(lf.as_deref().unwrap_or(body))?;
        ResourceList::locate(&tree)?;
    }
    Ok(out)
}

/// Runs the function on a ResourceList or on a plain multi-document manifest stream.
///
/// The input is split into chunks (an item, or the smallest group of items that cannot
/// be read apart), each parsed, used and dropped on its own, in parallel: memory stays
/// near the size of the input whatever its shape.
pub fn run(input: &str, invocation: &Invocation) -> Result<Outcome, InputError> {
    prepare_for(input, invocation, pipeline::Want::Edits).map(Prepared::into_outcome)
}

/// [`run`] without building the output text: see [`Prepared`].
pub fn prepare<'a>(input: &'a str, invocation: &Invocation) -> Result<Prepared<'a>, InputError> {
    prepare_for(input, invocation, pipeline::Want::Output)
}

/// [`prepare`] for `--check`: the resources out of date too ([`Prepared::stale`], which
/// [`prepare`] leaves empty: writing the output reads none of it).
pub fn check<'a>(input: &'a str, invocation: &Invocation) -> Result<Prepared<'a>, InputError> {
    prepare_for(input, invocation, pipeline::Want::Stale)
}

/// [`prepare`], keeping a copy of the item edits ([`Prepared::item_edits`]) for callers
/// that map them back onto the files the input was joined from.
pub fn prepare_with_edits<'a>(
    input: &'a str,
    invocation: &Invocation,
) -> Result<Prepared<'a>, InputError> {
    prepare_for(input, invocation, pipeline::Want::Edits)
}

/// The resolution of a ResourceList or manifest stream: what each workload reads and
/// every name reference, exactly as stamping resolves them under the same invocation.
pub fn resolve(input: &str, invocation: &Invocation) -> Result<resolution::Resolution, InputError> {
    prepare_for(input, invocation, pipeline::Want::Resolution).map(|p| p.resolution)
}

/// A run that keeps its resolution ([`Prepared::resolution`]) beside its results: what
/// `diff` and `audit` read, so that they see exactly what stamping does. It writes
/// nothing: its output is the input unchanged, its stale list is empty, and its results
/// leave out the info result stamping gives each workload it stamps (the resolution says
/// what each reads).
pub fn resolve_run<'a>(
    input: &'a str,
    invocation: &Invocation,
) -> Result<Prepared<'a>, InputError> {
    prepare_for(input, invocation, pipeline::Want::Resolution)
}
