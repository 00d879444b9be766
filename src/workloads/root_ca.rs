//! The root CA certificate publisher (kube-controller-manager's `root-ca-cert-publisher`,
//! `pkg/controller/certificates/rootcacertpublisher/publisher.go`): every active namespace
//! holds a ConfigMap `kube-root-ca.crt` with the cluster's CA bundle under `ca.crt` and an
//! annotation saying what it is for; one that is missing is made, one whose data or
//! annotation differ is written back. The fake serves plain HTTP, so its bundle is a CA of
//! its own that signed nothing ([`CA_BUNDLE`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::workloads::writes::Writes;

/// The name of the ConfigMap every active namespace gets.
pub const NAME: &str = "kube-root-ca.crt";

/// The key of the bundle in the ConfigMap's data.
pub const KEY: &str = "ca.crt";

/// The annotation describing the ConfigMap.
pub const DESCRIPTION_ANNOTATION: &str = "kubernetes.io/description";

/// What the annotation says (upstream's `Description`).
pub const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/// The CA bundle the fake publishes: a self-signed CA whose key was thrown away.
pub const CA_BUNDLE: &str = include_str!("root_ca.pem");

/// The ConfigMap as the publisher writes it: `existing` (or a new one) with the bundle as its
/// only data and the description annotation.
fn published(existing: Option<&ConfigMap>) -> ConfigMap {
    let mut cm = existing
        .cloned()
        .unwrap_or_else(|| ConfigMap { metadata: ObjectMeta { name: Some(NAME.into()), ..Default::default() }, ..Default::default() });
    cm.data = Some(BTreeMap::from([(KEY.to_string(), CA_BUNDLE.to_string())]));
    cm.metadata.annotations.get_or_insert_with(BTreeMap::new).insert(DESCRIPTION_ANNOTATION.into(), DESCRIPTION.into());
    cm
}

/// Whether `cm` holds what the publisher would write: the bundle alone and a description.
fn up_to_date(cm: &ConfigMap) -> bool {
    let data_matches = cm.data.as_ref().is_some_and(|d| d.len() == 1 && d.get(KEY).map(String::as_str) == Some(CA_BUNDLE));
    let described = cm.metadata.annotations.as_ref().and_then(|a| a.get(DESCRIPTION_ANNOTATION)).is_some_and(|d| !d.is_empty());
    data_matches && described
}

/// What the publisher must do: for each active namespace of `namespaces` whose ConfigMap in
/// `published` (the `kube-root-ca.crt` ConfigMaps) is missing or out of date, that namespace
/// and the ConfigMap to write over, if any.
pub fn needed<'a>(namespaces: &'a [Namespace], configmaps: &'a [ConfigMap]) -> Vec<(&'a str, Option<&'a ConfigMap>)> {
    let by_namespace: BTreeMap<&str, &ConfigMap> = configmaps
        .iter()
        .filter(|cm| cm.metadata.name.as_deref() == Some(NAME))
        .filter_map(|cm| Some((cm.metadata.namespace.as_deref()?, cm)))
        .collect();
    namespaces
        .iter()
        .filter(|ns| ns.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Active"))
        .filter_map(|ns| ns.metadata.name.as_deref())
        .filter_map(|name| match by_namespace.get(name) {
            None => Some((name, None)),
            Some(cm) if !up_to_date(cm) => Some((name, Some(*cm))),
            Some(_) => None,
        })
        .collect()
}

/// One sync of the publisher: the ConfigMap made where it is missing, written back where it
/// differs.
pub async fn sync(writes: &mut Writes, namespaces: &[Namespace], configmaps: &[ConfigMap]) {
    for (namespace, existing) in needed(namespaces, configmaps) {
        match existing {
            None => {
                writes.create(namespace, &published(None)).await;
            }
            Some(cm) => writes.replace(&published(Some(cm))).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn active_namespaces_get_the_bundle_and_changed_copies_are_written_back() {
        let ns = |name: &str, phase: &str| -> Namespace {
            serde_json::from_value(json!({"metadata": {"name": name}, "status": {"phase": phase}})).unwrap()
        };
        let cm = |namespace: &str, name: &str, data: &str| -> ConfigMap {
            serde_json::from_value(json!({
                "metadata": {"name": name, "namespace": namespace, "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
                "data": {KEY: data},
            }))
            .unwrap()
        };
        let namespaces = [ns("a", "Active"), ns("b", "Active"), ns("c", "Terminating"), ns("d", "Active"), ns("e", "Active")];
        let configmaps = [cm("a", NAME, CA_BUNDLE), cm("b", "other", CA_BUNDLE), cm("d", NAME, "tampered"), cm("e", NAME, CA_BUNDLE)];
        let mut undescribed = configmaps[3].clone();
        undescribed.metadata.annotations = None;
        let configmaps = [configmaps[0].clone(), configmaps[1].clone(), configmaps[2].clone(), undescribed];
        let needed: Vec<(&str, bool)> = needed(&namespaces, &configmaps).into_iter().map(|(n, cm)| (n, cm.is_some())).collect();
        assert_eq!(needed, [("b", false), ("d", true), ("e", true)]);
        let written = published(Some(&configmaps[2]));
        assert!(up_to_date(&written));
        assert!(CA_BUNDLE.starts_with("-----BEGIN CERTIFICATE-----"));
    }
}
