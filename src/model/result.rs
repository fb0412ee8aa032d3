//! One entry of a ResourceList's `results`: a finding, its severity, and the resource,
//! field and file it is about.

use std::fmt::Write as _;

use crate::model::findings::{Finding, Severity};
use crate::model::resource::{FileRef, ResourceId, file_of};
use crate::yaml::{NodeId, Tree};

/// One entry of the ResourceList's `results`: a finding, and where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KrmResult {
    /// Boxed: results are many and findings of different sizes.
    pub finding: Box<Finding>,
    pub severity: Severity,
    pub resource: Option<ResourceId>,
    pub field: Option<String>,
    /// The file (and index in it) kpt read the resource from.
    pub file: Option<FileRef>,
}

impl KrmResult {
    /// A result with the finding's own severity.
    pub fn new(finding: Finding) -> Self {
        KrmResult {
            severity: finding.severity(),
            finding: Box::new(finding),
            resource: None,
            field: None,
            file: None,
        }
    }

    /// The message: worded by [`crate::model::findings`], about this result's resource.
    pub fn message(&self) -> String {
        self.finding.message(self.resource.as_ref())
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Attaches the resource (and its file, if the orchestrator annotated one).
    pub fn about(mut self, tree: &Tree<'_>, item: NodeId) -> Self {
        self.resource = Some(ResourceId::of(tree, item));
        self.file = file_of(tree, item);
        self
    }

    pub fn at_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

/// Warnings and errors as stderr shows them for a plain stream, which has no `results`.
pub fn stderr_lines(results: &[KrmResult]) -> impl Iterator<Item = String> + '_ {
    results
        .iter()
        .filter(|r| r.severity != Severity::Info)
        .map(|r| {
            let severity = r.severity.as_str();
            match &*r.finding {
                // A configuration problem: the result's message leaves out the field
                // (kpt prints `field: message`); on stderr it reads as the error does.
                Finding::Config(e) => format!("{severity}: {e}"),
                _ => format!("{severity}: {}", r.message()),
            }
        })
}

/// The one line on stderr after a plain-stream run: the summary, objects renamed,
/// warnings, and files written (when the input was files). `other_warnings`: warnings
/// the caller printed itself, about the input rather than a resource (a Kustomization
/// among the files), which the count includes.
pub fn stderr_summary(
    results: &[KrmResult],
    written: Option<usize>,
    other_warnings: usize,
) -> Option<String> {
    let summary = results.iter().rev().find(|r| r.finding.is_summary())?;
    let renamed = results.iter().filter(|r| r.finding.is_rename()).count();
    let warnings = other_warnings
        + results
            .iter()
            .filter(|r| r.severity == Severity::Warning)
            .count();
    let mut line = summary.message();
    if renamed > 0 {
        let _ = write!(line, ", {renamed} object(s) renamed");
    }
    let _ = write!(line, ", {warnings} warning(s)");
    if let Some(n) = written {
        let _ = write!(line, ", {n} file(s) written");
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::SourceKind;
    use crate::model::findings::Missing;

    fn web() -> ResourceId {
        ResourceId::new("apps/v1", "Deployment", Some("shop"), "web")
    }

    fn missing(field: &str) -> Missing {
        Missing {
            kind: SourceKind::Secret,
            name: "db".into(),
            key: None,
            other: None,
            container: Some("app".into()),
            field: field.into(),
            extra: false,
            elsewhere: None,
            also: Vec::new(),
        }
    }

    fn about(finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(web());
        r
    }

    #[test]
    fn stderr_summarises_counts_renames_and_warnings() {
        let results = vec![
            about(Finding::Renamed {
                base: "cfg".into(),
                references: 2,
            }),
            about(Finding::JobRenamed { base: "job".into() }),
            about(Finding::Missing(Box::new(missing("f")))).with_severity(Severity::Warning),
            KrmResult::new(Finding::Summary {
                stamped: 3,
                skipped: 1,
                missing: 1,
            }),
        ];
        assert_eq!(
            stderr_summary(&results, Some(2), 0).unwrap(),
            "config-hash: 3 workload(s) stamped, 1 skipped, 1 missing reference(s), 2 object(s) renamed, 1 warning(s), 2 file(s) written"
        );
        assert!(
            stderr_summary(&results, None, 2)
                .unwrap()
                .ends_with(", 3 warning(s)")
        );
        let lines: Vec<String> = stderr_lines(&results).collect();
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].starts_with("warning: Deployment shop/web container \"app\": f refers to")
        );
        assert_eq!(stderr_summary(&results[..3], None, 0), None);
    }

    #[test]
    fn stderr_names_the_field_of_a_config_error_and_the_result_does_not() {
        use crate::model::config::ConfigError;
        let error = |field: Option<&str>, message: &str| {
            let mut r = KrmResult::new(Finding::Config(ConfigError {
                field: field.map(String::from),
                message: message.into(),
            }));
            r.field = field.map(String::from);
            r
        };
        let results = [
            error(Some("data.mode"), "\"sideways\" is not accepted"),
            error(None, "envName (a flag): \"1X\" is not a name"),
        ];
        let lines: Vec<String> = stderr_lines(&results).collect();
        assert_eq!(
            lines,
            [
                "error: functionConfig data.mode: \"sideways\" is not accepted",
                "error: envName (a flag): \"1X\" is not a name",
            ]
        );
        assert_eq!(results[0].message(), "\"sideways\" is not accepted");
    }
}
