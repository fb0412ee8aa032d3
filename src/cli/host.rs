//! The host that runs config-hash (a shell, kpt, kustomize, Helm 3, Helm 4) and what it
//! shows of a function's stderr, so that warnings reach the person running the build
//! where the host hides them. Measured with the real tools: docs/diagnostics.md.

use std::io::Write as _;

/// Who runs config-hash, as far as it matters for what the user sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// `kubectl kustomize` (or standalone kustomize) running the legacy exec plugin:
    /// stderr is shown only when the plugin fails.
    KustomizePlugin,
    /// Helm 3 running `--post-renderer PATH`: stderr is shown only when it fails.
    Helm3,
    /// Helm 4 running the `postrenderer/v1` plugin: stderr is never shown.
    Helm4,
    /// A shell, CI, kpt or a KRM host: stderr is shown.
    Other,
}

impl Host {
    /// The host of this process: the legacy plugin invocation (one argument naming a
    /// ConfigHash file) is kustomize's; Helm 4 sets `HELM_PLUGIN_NAME` for its plugins;
    /// Helm 3 sets nothing, so its post-renderer is known by its parent process.
    pub fn detect(kustomize_plugin: bool) -> Host {
        if kustomize_plugin {
            Host::KustomizePlugin
        } else if std::env::var_os("HELM_PLUGIN_NAME").is_some() {
            Host::Helm4
        } else if parent_is_helm() {
            Host::Helm3
        } else {
            Host::Other
        }
    }

    /// Whether the host shows config-hash's stderr to its user when config-hash exits
    /// with `success` (or not).
    pub fn shows_stderr(self, success: bool) -> bool {
        match self {
            Host::KustomizePlugin | Host::Helm3 => !success,
            Host::Helm4 => false,
            Host::Other => true,
        }
    }

    /// Whether config-hash's output reaches the user as it was written, comments
    /// included: Helm 3 keeps a post-renderer's comments (`helm template` prints them,
    /// the release's manifest holds them); Helm 4 and kustomize drop every comment a
    /// function adds.
    pub fn keeps_comments(self) -> bool {
        self == Host::Helm3
    }
}

/// True when the parent process is Helm: named `helm`, or `helm` and a version number
/// (`helm3`), as machines with two Helms name them (Linux; elsewhere false).
fn parent_is_helm() -> bool {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return false;
    };
    // pid (comm) state ppid ...: comm may hold blanks and parentheses, so read after
    // the last ')'.
    let Some(ppid) = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(1))
    else {
        return false;
    };
    std::fs::read_to_string(format!("/proc/{ppid}/comm")).is_ok_and(|comm| is_helm(comm.trim()))
}

fn is_helm(name: &str) -> bool {
    name.strip_prefix("helm")
        .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()))
}

/// Writes `lines` to the terminal the host runs in, if it has one (`/dev/tty`); false
/// when there is none (CI, Argo CD, a container).
pub fn to_terminal(lines: &[String]) -> bool {
    let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") else {
        return false;
    };
    let mut text = String::new();
    for line in lines {
        text.push_str("config-hash: ");
        text.push_str(line);
        text.push('\n');
    }
    tty.write_all(text.as_bytes()).is_ok()
}

/// `lines` as YAML comments inside the first object of the plain stream `text`, for
/// hosts that keep comments: names only, as every message is (no message holds a
/// value). They go after the object's first `apiVersion:` or `kind:` line whose value is
/// a plain word, where a comment cannot fall inside a scalar, and where a reader of the
/// object sees it (a comment-only document before the first `---` is dropped by some
/// readers); without such a line, at the top.
pub fn with_comments(text: &str, lines: &[String]) -> String {
    if lines.is_empty() {
        return text.to_string();
    }
    let mut comments = String::new();
    for line in lines {
        comments.push_str("# config-hash: ");
        // A line break inside a message would end the comment.
        comments.push_str(&line.replace(['\n', '\r'], " "));
        comments.push('\n');
    }
    let plain_word = |v: &str| {
        !v.is_empty()
            && v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'/' | b'-'))
    };
    let mut at = 0;
    let mut seen_content = false;
    for line in text.split_inclusive('\n') {
        let end = at + line.len();
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.starts_with("---") && seen_content {
            break;
        }
        if let Some((key, value)) = bare.split_once(": ") {
            if matches!(key, "apiVersion" | "kind") && plain_word(value) && line.ends_with('\n') {
                let break_ = if line.ends_with("\r\n") { "\r\n" } else { "\n" };
                return format!(
                    "{}{}{}",
                    &text[..end],
                    comments.replace('\n', break_),
                    &text[end..]
                );
            }
        }
        if !bare.trim().is_empty() && !bare.starts_with('#') && !bare.starts_with("---") {
            seen_content = true;
        }
        at = end;
    }
    comments + text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_is_helm_or_helm_and_a_version() {
        for name in ["helm", "helm3", "helm4"] {
            assert!(is_helm(name), "{name}");
        }
        for name in ["helmfile", "hel", "kubectl", "helm-3"] {
            assert!(!is_helm(name), "{name}");
        }
    }

    #[test]
    fn each_host_shows_stderr_as_measured() {
        assert!(!Host::KustomizePlugin.shows_stderr(true));
        assert!(Host::KustomizePlugin.shows_stderr(false));
        assert!(!Host::Helm3.shows_stderr(true));
        assert!(Host::Helm3.shows_stderr(false));
        assert!(!Host::Helm4.shows_stderr(true));
        assert!(!Host::Helm4.shows_stderr(false));
        assert!(Host::Other.shows_stderr(true));
    }

    #[test]
    fn comments_go_inside_the_first_object_one_line_each() {
        let lines = ["warning: a\nb".to_string(), "error: c".to_string()];
        assert_eq!(
            with_comments("---\n# Source: x\napiVersion: v1\nkind: Secret\n", &lines),
            "---\n# Source: x\napiVersion: v1\n# config-hash: warning: a b\n# config-hash: error: c\nkind: Secret\n"
        );
        // Not after a value that could go on over the next lines.
        assert_eq!(
            with_comments("kind: |\n  x\n---\napiVersion: v1\n", &lines[1..]),
            "# config-hash: error: c\nkind: |\n  x\n---\napiVersion: v1\n"
        );
        assert_eq!(
            with_comments("kind: A\r\n", &lines[1..]),
            "kind: A\r\n# config-hash: error: c\r\n"
        );
        assert_eq!(with_comments("kind: A\n", &[]), "kind: A\n");
    }
}
