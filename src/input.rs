//! The binary's input edge: what to read (stdin, files, directories, a kpt package's
//! Kptfile) and how to tell input that holds nothing from input the library should see.
//! The library never touches the file system; this module and `main.rs` do.

/// True when `text` holds no YAML content: only whitespace, comments, document markers
/// (`---`, `...`) and a BOM. An upstream command that failed (`kubectl kustomize dir |
/// config-hash`) leaves exactly this, and passing it on as "nothing to stamp" would
/// hide the failure.
pub fn is_blank(text: &str) -> bool {
    text.trim_start_matches('\u{feff}').lines().all(|line| {
        let line = line.trim();
        line.is_empty()
            || line.starts_with('#')
            || line == "..."
            || line.strip_prefix("---").is_some_and(|rest| {
                let rest = rest.trim_start();
                rest.is_empty() || rest.starts_with('#')
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_is_only_whitespace_comments_and_markers() {
        for blank in ["", "\n \n", "# c\n---\n  # d\n...\n", "\u{feff}--- # x\n"] {
            assert!(is_blank(blank), "{blank:?}");
        }
        for content in ["a: 1", "--- a: 1\n", "# c\n{}\n", "[]", "--- !tag\n"] {
            assert!(!is_blank(content), "{content:?}");
        }
    }
}
