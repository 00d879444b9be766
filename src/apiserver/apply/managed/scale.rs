//! Field ownership through the `scale` subresource, as upstream's `ScaleHandler` passes it
//! (k8s.io/apimachinery pkg/util/managedfields/scalehandler.go): the parent's owners of the
//! desired replicas become the Scale's managers, the write is managed on the Scale, and the
//! result is mapped back to the parent.
//!
//! Two things follow from managers being keyed by identity, and an updater's identity holding
//! its version: an updater of the parent is an updater of the Scale at `autoscaling/v1`, a
//! manager the parent never had, so mapping back splits its replicas off into an entry of their
//! own, of the same identity as the rest and with no time; and an entry mapped back from the
//! Scale takes the time of the parent's entry of its identity, which an updater never has, so
//! the Scale's writer's entry has no time either.

use super::{Entry, Managed, Manager};
use crate::apiserver::apply::fieldset::{Element, FieldSet};
use crate::apiserver::scale::SCALE_API_VERSION;

/// The set of one path, given as a scale path names it (`.spec.replicas`).
pub fn replicas_path(path: &str) -> FieldSet {
    let mut set = FieldSet::default();
    let elements: Vec<Element> = path.split('.').filter(|f| !f.is_empty()).map(|f| Element::Field(f.into())).collect();
    set.insert(&elements);
    set
}

/// `manager` as the identity of an entry at `api_version` (an applier's holds no version).
fn at_version(manager: &Manager, api_version: &str) -> Manager {
    Manager::new(&manager.name, manager.operation, api_version, &manager.subresource)
}

/// The group of a version (`apps/v1` -> `apps`, `v1` -> the core group's ``).
fn group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

impl Managed {
    /// The Scale's managers (`ToSubresource`): each manager of the parent, at a version of its
    /// group, that owns `replicas`, owning them alone at the Scale's version, time kept.
    pub fn to_scale(&self, replicas: &FieldSet, api_version: &str) -> Managed {
        let entries = self
            .entries
            .iter()
            .filter(|e| group(&e.api_version) == group(api_version) && !e.fields.intersection(replicas).is_empty())
            .map(|e| Entry {
                manager: at_version(&e.manager, SCALE_API_VERSION),
                api_version: SCALE_API_VERSION.into(),
                time: e.time.clone(),
                fields: replicas.clone(),
            })
            .collect();
        Managed { entries }
    }

    /// The parent's managers once a write left the Scale's managers `scale` (`ToParent`): an
    /// entry of another group goes; one that does not own `replicas` stays; one that does stays
    /// whole if the Scale kept its identity (an applier that kept them), else loses them; then
    /// each other manager of the Scale that owns them gets an entry of them alone at
    /// `api_version`, with the time of the parent's entry of its identity.
    pub fn from_scale(&self, scale: &Managed, replicas: &FieldSet, api_version: &str) -> Managed {
        let mut left: Vec<&Entry> = scale.entries.iter().collect();
        let mut entries = Vec::new();
        for e in self.entries.iter().filter(|e| group(&e.api_version) == group(api_version)) {
            if e.fields.intersection(replicas).is_empty() {
                entries.push(e.clone());
            } else if let Some(i) = left.iter().position(|s| s.manager == e.manager) {
                left.remove(i);
                entries.push(e.clone());
            } else {
                let rest = e.fields.difference(replicas);
                if !rest.is_empty() {
                    entries.push(Entry { fields: rest, ..e.clone() });
                }
            }
        }
        for s in left.into_iter().filter(|s| !s.fields.intersection(replicas).is_empty()) {
            let time = self.entries.iter().find(|e| e.manager == s.manager).and_then(|e| e.time.clone());
            entries.push(Entry {
                manager: at_version(&s.manager, api_version),
                api_version: api_version.into(),
                time,
                fields: replicas.clone(),
            });
        }
        Managed { entries }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::apply::managed::Operation;
    use serde_json::json;

    fn entry(manager: &str, operation: &str, time: Option<&str>, fields: serde_json::Value) -> serde_json::Value {
        let mut e =
            json!({"manager": manager, "operation": operation, "apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": fields});
        if let Some(time) = time {
            e["time"] = json!(time);
        }
        e
    }

    /// An update through the Scale that leaves the replicas as they are (a patch of the
    /// Scale's metadata), as the pinned kube-apiserver records it: the creator's replicas split
    /// off into an entry of the same identity with no time, which the next decoding drops.
    #[test]
    fn an_updater_of_the_replicas_is_split_and_the_copy_has_no_time() {
        let replicas = replicas_path(".spec.replicas");
        let parent =
            Managed::decode(&json!([entry("curl", "Update", Some("t0"), json!({"f:spec": {"f:replicas": {}, "f:serviceName": {}}}))]))
                .unwrap();
        let mut scale = parent.to_scale(&replicas, "apps/v1");
        let comparison = crate::apiserver::apply::typed::Comparison::default();
        scale.record_update(&comparison, &Manager::new("curl", Operation::Update, SCALE_API_VERSION, "scale"), "t1");
        let after = parent.from_scale(&scale, &replicas, "apps/v1").encode().unwrap();
        assert_eq!(
            after,
            json!([
                entry("curl", "Update", None, json!({"f:spec": {"f:replicas": {}}})),
                entry("curl", "Update", Some("t0"), json!({"f:spec": {"f:serviceName": {}}})),
            ])
        );
        let again = Managed::decode(&after).unwrap().encode().unwrap();
        assert_eq!(again, json!([entry("curl", "Update", Some("t0"), json!({"f:spec": {"f:serviceName": {}}}))]));
    }

    /// An applier that owns the replicas keeps its entry whole when the Scale's write leaves
    /// them.
    #[test]
    fn an_applier_of_the_replicas_stays_whole() {
        let replicas = replicas_path(".spec.replicas");
        let parent =
            Managed::decode(&json!([entry("fuzz", "Apply", Some("t0"), json!({"f:spec": {"f:replicas": {}, "f:serviceName": {}}}))]))
                .unwrap();
        let scale = parent.to_scale(&replicas, "apps/v1");
        assert_eq!(parent.from_scale(&scale, &replicas, "apps/v1").encode(), parent.encode());
    }
}
