//! Discovery, and the mapping from an object's apiVersion and kind to the resource that serves it.
//! Like upstream's RESTMapper as the garbage collector uses it, a reference maps only with its
//! **exact** group, version and kind: a version the server does not serve is a mapping error,
//! and the item is retried, never deleted (upstream `restMappingError`).
//!
//! Discovery reads the plain lists (`/api`, `/apis`, then each group version) so that one failing
//! group version does not hide the others: like client-go's `ServerPreferredResources`, a pass
//! returns what it found together with the group versions that failed.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;
use kube::api::ApiResource;

/// Where objects of one kind live.
#[derive(Clone, Debug)]
pub struct Mapping {
    /// Group, version, kind and plural.
    pub resource: ApiResource,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
}

/// The reference could not be mapped to a served resource.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unable to get REST mapping for {api_version}/{kind}.")]
pub struct MappingError {
    /// The reference's apiVersion.
    pub api_version: String,
    /// The reference's kind.
    pub kind: String,
}

/// One group version as discovery lists it.
#[derive(Clone, Debug)]
pub struct GroupVersionResources {
    /// `group/version`, or just the version for the core group.
    pub group_version: String,
    /// Whether it is its group's preferred version.
    pub preferred: bool,
    /// Its resources, subresources included, as discovery lists them.
    pub resources: Vec<APIResource>,
}

/// Discovery failed, wholly or in part.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// The lists of groups could not be read: nothing was discovered.
    #[error("unable to list the server's API groups: {}", crate::gc::retry::describe(.0))]
    Groups(#[source] kube::Error),
    /// Some group versions could not be read; the others were (upstream
    /// `ErrGroupDiscoveryFailed`). Maps `group/version` to the failure.
    #[error("unable to retrieve the complete list of server APIs: {}", describe(.0))]
    GroupVersions(BTreeMap<String, String>),
    /// Discovery reported no usable resource at all.
    #[error("discovery reported no deletable resources")]
    Empty,
}

fn describe(failed: &BTreeMap<String, String>) -> String {
    failed.iter().map(|(gv, e)| format!("{gv}: {e}")).collect::<Vec<_>>().join(", ")
}

impl DiscoveryError {
    /// The group versions that failed, when the failure was partial.
    pub fn failed_group_versions(&self) -> Option<&BTreeMap<String, String>> {
        match self {
            Self::GroupVersions(failed) => Some(failed),
            _ => None,
        }
    }
}

/// What one discovery pass found, and what went wrong.
#[derive(Debug, Default)]
pub struct Discovered {
    /// The group versions read.
    pub lists: Vec<GroupVersionResources>,
    /// A total or partial failure.
    pub error: Option<DiscoveryError>,
}

/// Reads every group version the server lists (upstream `ServerPreferredResources`).
pub async fn discover(client: &kube::Client) -> Discovered {
    let listed = async { Ok::<_, kube::Error>((client.list_core_api_versions().await?, client.list_api_groups().await?)) }.await;
    let (core, groups) = match listed {
        Ok(l) => l,
        Err(e) => return Discovered { lists: vec![], error: Some(DiscoveryError::Groups(e)) },
    };
    let mut versions: Vec<(String, bool)> = core.versions.iter().enumerate().map(|(i, v)| (v.clone(), i == 0)).collect();
    for g in &groups.groups {
        let preferred = g.preferred_version.as_ref().or(g.versions.first()).map(|p| p.group_version.as_str());
        versions.extend(g.versions.iter().map(|v| (v.group_version.clone(), Some(v.group_version.as_str()) == preferred)));
    }
    // Every group version is read at once, as client-go's `fetchGroupVersionResources` does: a
    // pass then takes one round trip, not one per group version.
    let reads = versions.into_iter().map(|(group_version, preferred)| async move {
        let list = if group_version.contains('/') {
            client.list_api_group_resources(&group_version).await
        } else {
            client.list_core_api_resources(&group_version).await
        };
        (group_version, preferred, list)
    });
    let mut found = Discovered::default();
    let mut failed = BTreeMap::new();
    for (group_version, preferred, list) in futures::future::join_all(reads).await {
        match list {
            Ok(l) => found.lists.push(GroupVersionResources { group_version, preferred, resources: l.resources }),
            // Gone between the list of groups and this read (a definition deleted meanwhile):
            // it serves nothing, as if the list of groups had not named it. Counted as failed,
            // it would leave the graph incomplete until the next pass (`cache_sync`).
            Err(kube::Error::Api(status)) if status.code == 404 => {}
            Err(e) => {
                failed.insert(group_version, crate::gc::retry::describe(&e));
            }
        }
    }
    if !failed.is_empty() {
        found.error = Some(DiscoveryError::GroupVersions(failed));
    }
    found
}

/// Splits `group/version` (or a core `version`); `None` when it does not parse (upstream
/// `schema.ParseGroupVersion`).
fn parse_group_version(gv: &str) -> Option<(&str, &str)> {
    match gv.split('/').collect::<Vec<_>>()[..] {
        [version] if !version.is_empty() => Some(("", version)),
        [group, version] if !group.is_empty() && !version.is_empty() => Some((group, version)),
        _ => None,
    }
}

/// Served kinds, from one discovery pass.
#[derive(Clone, Debug, Default)]
pub struct RestMapper {
    /// `(apiVersion, kind)` → mapping, for every served version.
    by_kind: HashMap<(String, String), Mapping>,
    /// Resources of preferred versions that support list, watch and delete.
    deletable: Vec<Mapping>,
}

impl RestMapper {
    /// Builds the mapper from discovered lists. Group versions that do not parse are skipped
    /// (upstream logs them); subresources are not kinds of their own. Deletable resources are
    /// those of preferred versions whose verbs include delete, list and watch (upstream
    /// `GetDeletableResources`).
    pub fn from_lists(lists: &[GroupVersionResources]) -> Self {
        let mut mapper = Self::default();
        for list in lists {
            let Some((group, version)) = parse_group_version(&list.group_version) else {
                tracing::warn!(group_version = %list.group_version, "ignoring a group version that does not parse");
                continue;
            };
            for r in list.resources.iter().filter(|r| !r.name.contains('/')) {
                let resource = ApiResource {
                    group: group.into(),
                    version: version.into(),
                    api_version: list.group_version.clone(),
                    kind: r.kind.clone(),
                    plural: r.name.clone(),
                };
                let mapping = Mapping { resource, namespaced: r.namespaced };
                let usable = ["delete", "list", "watch"].iter().all(|v| r.verbs.iter().any(|x| x == v));
                if list.preferred && usable {
                    mapper.deletable.push(mapping.clone());
                }
                mapper.by_kind.insert((list.group_version.clone(), r.kind.clone()), mapping);
            }
        }
        mapper
    }

    /// Keeps `previous`'s mappings for the group versions that failed discovery this time.
    pub fn inherit(&mut self, previous: &RestMapper, failed: &BTreeMap<String, String>) {
        for (key, mapping) in previous.by_kind.iter().filter(|((gv, _), _)| failed.contains_key(gv)) {
            self.by_kind.entry(key.clone()).or_insert_with(|| mapping.clone());
        }
    }

    /// Whether any kind of `group_version` is known.
    pub fn knows(&self, group_version: &str) -> bool {
        self.by_kind.keys().any(|(gv, _)| gv == group_version)
    }

    /// The mapping for an exact apiVersion and kind.
    pub fn mapping(&self, api_version: &str, kind: &str) -> Result<Mapping, MappingError> {
        self.by_kind
            .get(&(api_version.to_string(), kind.to_string()))
            .cloned()
            .ok_or_else(|| MappingError { api_version: api_version.into(), kind: kind.into() })
    }

    /// Resources the collector monitors: preferred versions with list, watch and delete.
    pub fn deletable(&self) -> &[Mapping] {
        &self.deletable
    }
}

/// Upstream `TestGetDeletableResources/no error` on the lists of
/// upstream's fake discovery; the failure cases run against the fake apiserver in
/// `tests/gc_unit_cases.rs`.
#[cfg(test)]
mod tests {
    use super::*;

    fn resource(name: &str, kind: &str, verbs: &[&str]) -> APIResource {
        APIResource {
            name: name.into(),
            kind: kind.into(),
            namespaced: true,
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            ..APIResource::default()
        }
    }

    fn list(group_version: &str, resources: Vec<APIResource>) -> GroupVersionResources {
        GroupVersionResources { group_version: group_version.into(), preferred: true, resources }
    }

    #[test]
    fn test_get_deletable_resources_no_error() {
        let all = ["delete", "list", "watch"];
        let mapper = RestMapper::from_lists(&[
            list("apps/v1", vec![resource("pods", "Pod", &all), resource("services", "Service", &[])]),
            list("foo//whatever", vec![resource("bars", "Bar", &all)]),
            list("acme/v1", vec![resource("widgets", "Widget", &["delete"])]),
        ]);
        let deletable: Vec<(&str, &str, &str)> =
            mapper.deletable().iter().map(|m| (&*m.resource.group, &*m.resource.version, &*m.resource.plural)).collect();
        assert_eq!(deletable, [("apps", "v1", "pods")]);
    }

    #[test]
    fn group_versions_parse_as_upstream_parses_them() {
        assert_eq!(parse_group_version("v1"), Some(("", "v1")));
        assert_eq!(parse_group_version("apps/v1"), Some(("apps", "v1")));
        assert_eq!(parse_group_version("foo//whatever"), None);
        assert_eq!(parse_group_version(""), None);
    }
}
