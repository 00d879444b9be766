//! Maps an object's apiVersion and kind to the resource that serves it, from discovery.
//! Like upstream's RESTMapper as the garbage collector uses it, a reference maps only with its
//! **exact** group, version and kind: a version the server does not serve is a mapping error,
//! and the item is retried, never deleted (catalogue A.1).

use std::collections::HashMap;

use kube::api::ApiResource;
use kube::discovery::{Discovery, Scope, verbs};

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

/// Served kinds, from one discovery pass.
#[derive(Clone, Debug, Default)]
pub struct RestMapper {
    /// `(apiVersion, kind)` → mapping, for every served version.
    by_kind: HashMap<(String, String), Mapping>,
    /// Resources of preferred versions that support list, watch and delete.
    deletable: Vec<Mapping>,
}

impl RestMapper {
    /// Runs discovery against the server.
    pub async fn discover(client: kube::Client) -> Result<Self, kube::Error> {
        let discovery = Discovery::new(client).run().await?;
        let mut mapper = Self::default();
        for group in discovery.groups() {
            let preferred = group.preferred_version_or_latest().to_string();
            for version in group.versions() {
                for (resource, caps) in group.versioned_resources(version) {
                    let mapping = Mapping { namespaced: caps.scope == Scope::Namespaced, resource };
                    let key = (mapping.resource.api_version.clone(), mapping.resource.kind.clone());
                    let usable = [verbs::LIST, verbs::WATCH, verbs::DELETE].iter().all(|v| caps.supports_operation(v));
                    if version == preferred && usable {
                        mapper.deletable.push(mapping.clone());
                    }
                    mapper.by_kind.insert(key, mapping);
                }
            }
        }
        Ok(mapper)
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
