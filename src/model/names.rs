//! Kubernetes' rules for the names the function writes or reads from its configuration:
//! annotation keys, namespaces, env var names, and how long a Job's name may be.

/// The longest Job name: the Job controller copies it into the `job-name` label of its
/// pods, and label values stop at 63 characters.
pub const JOB_NAME_MAX: usize = 63;

/// A Kubernetes namespace name (an RFC 1123 label).
pub fn valid_namespace(ns: &str) -> bool {
    let b = ns.as_bytes();
    (1..=63).contains(&b.len())
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Kubernetes annotation key rules: an optional DNS-subdomain prefix and `/`, then a
/// name of at most 63 characters of alphanumerics, `-`, `_`, `.`, starting and ending
/// alphanumeric.
pub fn valid_annotation_key(key: &str) -> Result<(), &'static str> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        let label_ok = |l: &str| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        };
        if p.is_empty() || p.len() > 253 || !p.split('.').all(label_ok) {
            return Err(
                "the prefix before '/' must be a lowercase DNS subdomain such as example.com",
            );
        }
    }
    let alnum = |b: u8| b.is_ascii_alphanumeric();
    let bytes = name.as_bytes();
    if name.is_empty() || name.len() > 63 {
        return Err("the name after the prefix must be 1 to 63 characters");
    }
    if !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return Err("the name must start and end with a letter or digit");
    }
    if !bytes
        .iter()
        .all(|&b| alnum(b) || b == b'-' || b == b'_' || b == b'.')
    {
        return Err("the name may contain only letters, digits, '-', '_' and '.'");
    }
    Ok(())
}

/// Environment variable names as Kubernetes has always accepted them.
pub fn valid_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == b'-' || b == b'.')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_keys_and_env_names() {
        assert!(valid_annotation_key("config-hash.dev/hash").is_ok());
        assert!(valid_annotation_key("hash").is_ok());
        assert!(valid_annotation_key("Bad.Prefix/x").is_err());
        assert!(valid_annotation_key("x/-bad").is_err());
        assert!(valid_annotation_key("a/b/c").is_err());
        assert!(valid_env_name("CONFIG_HASH"));
        assert!(!valid_env_name("1X"));
        assert!(!valid_env_name("A=B"));
    }
}
