//! Editing: the splices a run makes to the input, through the YAML crate's editor: stamps, env shifts, renames and the results.

pub mod rename;
pub mod results;
pub mod stamp;
