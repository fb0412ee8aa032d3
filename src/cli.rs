//! Command-line definitions (clap derive only); behaviour lives in the library.

use clap::Parser;

/// Stamp a hash of the ConfigMaps and Secrets each pod reads into its pod template.
///
/// With no arguments, config-hash is a KRM function: it reads a ResourceList (YAML or
/// JSON) on stdin and writes it, with `results`, to stdout. Configure it with a
/// functionConfig (kpt: `-- mode=env`; or a ConfigHash object). Exit status: 0, or 1
/// when a result has severity error or the input cannot be read.
#[derive(Debug, Parser)]
#[command(name = "config-hash", version, about, long_about)]
pub struct Cli {}
