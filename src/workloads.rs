//! Which kinds carry a pod template, and where: a table, so a new kind is a new row.

/// One kind of object that carries a pod template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkloadKind {
    /// API groups the kind is served under (`""` is the core group).
    pub groups: &'static [&'static str],
    pub kind: &'static str,
    /// Keys from the object to the pod template (the mapping holding `metadata` and
    /// `spec`); empty for a Pod, which is its own template.
    pub template: &'static [&'static str],
    /// False where the pod spec cannot change after creation (a bare Pod), so an env var
    /// would not roll anything and only the annotation applies.
    pub env_allowed: bool,
}

const APPS: &[&str] = &["apps", "extensions"];

/// Every kind the function stamps. Third-party rows show that a CRD is only data.
#[rustfmt::skip]
pub const WORKLOAD_KINDS: &[WorkloadKind] = &[
    WorkloadKind { groups: &[""], kind: "Pod", template: &[], env_allowed: false },
    WorkloadKind { groups: &[""], kind: "PodTemplate", template: &["template"], env_allowed: true },
    WorkloadKind { groups: &[""], kind: "ReplicationController", template: &["spec", "template"], env_allowed: true },
    WorkloadKind { groups: APPS, kind: "Deployment", template: &["spec", "template"], env_allowed: true },
    WorkloadKind { groups: APPS, kind: "DaemonSet", template: &["spec", "template"], env_allowed: true },
    WorkloadKind { groups: APPS, kind: "ReplicaSet", template: &["spec", "template"], env_allowed: true },
    WorkloadKind { groups: &["apps"], kind: "StatefulSet", template: &["spec", "template"], env_allowed: true },
    WorkloadKind { groups: &["batch"], kind: "Job", template: &["spec", "template"], env_allowed: true },
    WorkloadKind { groups: &["batch"], kind: "CronJob", template: &["spec", "jobTemplate", "spec", "template"], env_allowed: true },
    WorkloadKind { groups: &["argoproj.io"], kind: "Rollout", template: &["spec", "template"], env_allowed: true },
    WorkloadKind { groups: &["serving.knative.dev"], kind: "Service", template: &["spec", "template"], env_allowed: true },
    WorkloadKind { groups: &["apps.kruise.io"], kind: "CloneSet", template: &["spec", "template"], env_allowed: true },
];

/// The API group of an `apiVersion` (`apps/v1` -> `apps`, `v1` -> ``).
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// The table row for an object, if it carries a pod template.
pub fn lookup(api_version: &str, kind: &str) -> Option<&'static WorkloadKind> {
    let group = group_of(api_version);
    WORKLOAD_KINDS
        .iter()
        .find(|w| w.kind == kind && w.groups.contains(&group))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_kinds_by_group_and_kind() {
        assert_eq!(
            lookup("apps/v1", "Deployment").unwrap().template,
            ["spec", "template"]
        );
        assert_eq!(lookup("batch/v1", "CronJob").unwrap().template.len(), 4);
        assert!(!lookup("v1", "Pod").unwrap().env_allowed);
        // A core Service is not a Knative Service.
        assert!(lookup("v1", "Service").is_none());
        assert!(lookup("serving.knative.dev/v1", "Service").is_some());
        assert!(lookup("example.com/v1", "Deployment").is_none());
    }
}
