//! What a command reads before the library runs: the hash key, the config file (`-c`, a
//! kpt package's Kptfile step, the kustomize plugin's file), the flags and the input,
//! assembled into the library's `Invocation`.

use std::io::{self, IsTerminal as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use config_hash::Invocation;
use config_hash::model::config::OnMissing;
use config_hash::model::hash::HashKey;

use super::exit::{fail, usage};
use super::hints::{self, Use, mistyped_subcommand, stdin_is_a_terminal};
use super::{args, input, plugin};

/// `--on-missing` for hosts where flags are hard to reach: kustomize and Helm pass their
/// environment to the function, kpt `--env`, kustomize's `envs:`.
pub const ON_MISSING_ENV: &str = "CONFIG_HASH_ON_MISSING";

/// The `--on-missing` of the environment (`CONFIG_HASH_ON_MISSING`), for a run whose
/// flags do not set it.
pub fn on_missing_from_env() -> Result<Option<OnMissing>, String> {
    let Some(value) = std::env::var_os(ON_MISSING_ENV) else {
        return Ok(None);
    };
    match value.to_str() {
        Some("warn") => Ok(Some(OnMissing::Warn)),
        Some("error") => Ok(Some(OnMissing::Error)),
        Some("ignore") => Ok(Some(OnMissing::Ignore)),
        Some("") => Ok(None),
        _ => Err(format!(
            "{ON_MISSING_ENV}={value:?} is not one of warn, error, ignore"
        )),
    }
}

/// The HMAC key: `--key-file`, else env `CONFIG_HASH_KEY_FILE`, else env
/// `CONFIG_HASH_KEY`; `None` when none is set. Messages never show key bytes.
pub fn read_key(key_file: Option<&Path>) -> Result<Option<HashKey>, String> {
    let file = key_file
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("CONFIG_HASH_KEY_FILE").map(PathBuf::from));
    let (bytes, from) = match file {
        Some(path) => {
            let name = format!("the key file {}", path.display());
            let mut bytes = input::read_path(&path, &name, input::Content::Bytes)?;
            // `echo key > file` and most secret mounts end in a newline that is not key.
            if bytes.ends_with(b"\n") {
                bytes.pop();
                if bytes.ends_with(b"\r") {
                    bytes.pop();
                }
            }
            (bytes, format!("the key file {}", path.display()))
        }
        None => match std::env::var_os("CONFIG_HASH_KEY") {
            Some(v) => (v.into_encoded_bytes(), "CONFIG_HASH_KEY".to_string()),
            None => return Ok(None),
        },
    };
    HashKey::new(bytes)
        .map(Some)
        .ok_or_else(|| format!("{from} is empty: an empty key protects nothing (give a key, or unset it for unkeyed hashes)"))
}

pub fn unreadable(
    package: &input::Package,
    e: &config_hash::read::input_error::InputError,
) -> ExitCode {
    let place = if package.is_one_text() && package.sources[0].path.is_none() {
        format!("line {} column {}", e.line, e.column)
    } else {
        package.locate(e.line, e.column)
    };
    fail(format!(
        "input is not a readable ResourceList or manifest stream: {place}: {}",
        e.message
    ))
}

/// What a run and `graph` read, and how: the invocation the library assembles the
/// configuration from, and the input.
pub struct Read {
    pub invocation: Invocation,
    pub package: input::Package,
    /// Run as kustomize's legacy exec plugin (config file as the only argument).
    pub plugin: bool,
    /// Warnings printed about the input itself (a Kustomization among it).
    pub warned: usize,
}

/// Reads the key, the config file (`-c`, a kpt package's Kptfile step, or the kustomize
/// plugin's file) and the input. `manifests`: the PATHs are manifests (files to write
/// back, one side of a diff), never a plugin's config. `using`: what the command does
/// with them, for the advice on a source that must be rendered first (a Helm chart; a
/// Kustomization under --check or --in-place).
pub fn read_invocation(
    files: &[PathBuf],
    args: &args::ConfigFlags,
    manifests: bool,
    using: Use,
) -> Result<Read, ExitCode> {
    if let Some(code) = mistyped_subcommand(files) {
        return Err(code);
    }
    if let Some(chart) = input::charts(files).first() {
        return Err(hints::chart_source(chart, using));
    }
    if let Some(limit) = args.max_input_size {
        input::set_max_input_size(limit);
    }
    let hash_key = read_key(args.key_file.as_deref()).map_err(fail)?;
    let mut invocation = Invocation {
        overrides: args.overrides(),
        hash_key,
        ..Invocation::default()
    };
    if invocation.overrides.on_missing.is_none() {
        invocation.overrides.on_missing = on_missing_from_env().map_err(usage)?;
    }
    // Files that are configuration, not manifests, even inside a directory read.
    let mut skip = Vec::new();
    if let Some(path) = &args.config {
        invocation.config_text = Some(input::read_file(path).map_err(fail)?);
        skip.push(path.clone());
    } else {
        let (config, configs) = input::kpt_config(files).map_err(fail)?;
        invocation.config_text = config;
        skip = configs;
    }
    // kustomize runs a legacy exec plugin with one argument: its config file.
    let mut paths = files;
    let mut plugin = false;
    // The one file, read once: as the plugin's config, or as the input.
    let mut read_already = None;
    if let [one] = paths {
        if invocation.config_text.is_none() && !manifests && one.is_file() {
            let text = input::read_file(one).map_err(fail)?;
            if plugin::is_plugin_config(&text) {
                invocation.config_text = Some(text);
                paths = &[];
                plugin = true;
            } else {
                read_already = Some(input::Source {
                    path: Some(one.clone()),
                    text,
                });
            }
        }
    }
    let under_kustomize = hints::under_kustomize();
    if !plugin {
        if let Some(code) = stdin_is_a_terminal(paths) {
            return Err(code);
        }
    } else if !under_kustomize && io::stdin().is_terminal() {
        // A config file given as the only PATH at a terminal: -c forgotten.
        return Err(hints::config_given_as_manifests(&files[0]));
    }
    let read = match read_already {
        Some(source) => input::package_of(vec![source], paths),
        None => input::read_package(paths, &skip),
    };
    let package = match read {
        Ok(p) => p,
        // kustomize runs a generator with its config and nothing on stdin.
        Err(_) if plugin && paths.is_empty() && under_kustomize => {
            return Err(fail(
                "kustomize ran config-hash with its ConfigHash config and no resources, as it runs a \
                 generator: list the config file under transformers:, not generators:, in the kustomization",
            ));
        }
        // Not kustomize: a config file and nothing piped in, -c forgotten.
        Err(_) if plugin && paths.is_empty() => {
            return Err(hints::config_given_as_manifests(&files[0]));
        }
        Err(e) => return Err(fail(e)),
    };
    // Found once: each look parses the documents that spell the kind.
    let kustomizations = package.kustomizations();
    if matches!(using, Use::Check | Use::InPlace) {
        if let Some(source) = package
            .sources
            .iter()
            .find(|s| s.path.is_some() && kustomizations.contains(&s.name()))
        {
            let path = source.path.as_deref().expect("a file");
            return Err(hints::kustomize_source(path, &source.text, using));
        }
    }
    let mut warned = 0;
    for kustomization in kustomizations {
        warned += 1;
        eprintln!(
            "warning: {kustomization} is a Kustomization, which config-hash does not build: what its \
             generators make is not in the input, and the Kustomization is passed through as it is. \
             Build first (kubectl kustomize DIR | config-hash), or run config-hash as a kustomize \
             transformer (config-hash install-kustomize-plugin)"
        );
    }
    Ok(Read {
        invocation,
        package,
        plugin,
        warned,
    })
}
