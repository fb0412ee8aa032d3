//! What `--check` prints: the resources out of date and the files that would change.

use std::fmt::Write as _;

use crate::model::resource::ResourceId;

/// The report: up to date, or each resource out of date and each file that would change.
pub fn check_report(stale: &[ResourceId], files: &[String]) -> String {
    if stale.is_empty() {
        return "config-hash: up to date\n".to_string();
    }
    let mut text = String::new();
    for id in stale {
        let _ = writeln!(text, "out of date: {id}");
    }
    for file in files {
        let _ = writeln!(text, "would change: {file}");
    }
    let _ = writeln!(
        text,
        "config-hash: {} resource(s) out of date; run config-hash --in-place (or kpt fn render) and commit the result",
        stale.len()
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> ResourceId {
        ResourceId::new("apps/v1", "Deployment", Some("shop"), "web")
    }

    #[test]
    fn check_says_up_to_date_or_lists_what_is_stale() {
        assert_eq!(check_report(&[], &[]), "config-hash: up to date\n");
        assert_eq!(
            check_report(&[web()], &["apps/web.yaml".to_string()]),
            "out of date: Deployment shop/web\nwould change: apps/web.yaml\nconfig-hash: 1 resource(s) out of date; run config-hash --in-place (or kpt fn render) and commit the result\n"
        );
    }
}
