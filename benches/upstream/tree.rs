//! A tree of ConfigMaps on a real API server: fan-out 10, each one below the root owned by its
//! parent with `blockOwnerDeletion`, all labelled so that a list finds them alone.

use anyhow::Context;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kube::Api;
use kube::api::{DeleteParams, ListParams, PostParams};

/// The label on every object of a tree.
const LABEL: &str = "kubegc-bench";

/// Creations under way at once.
const CREATORS: usize = 16;

/// A tree, created and not yet deleted.
pub struct Tree {
    api: Api<ConfigMap>,
    /// Its namespace.
    pub namespace: String,
    /// How many ConfigMaps it has.
    pub objects: usize,
    /// The resourceVersion of its last creation.
    pub last_revision: u64,
}

impl Tree {
    /// Creates namespace `namespace` and in it a tree with `levels` levels below the root, one
    /// level after the other.
    pub async fn create(client: &kube::Client, namespace: &str, levels: u32) -> anyhow::Result<Self> {
        let ns = Namespace { metadata: ObjectMeta { name: Some(namespace.into()), ..ObjectMeta::default() }, ..Namespace::default() };
        Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &ns).await?;
        let api = Api::<ConfigMap>::namespaced(client.clone(), namespace);
        let (root, mut last_revision) = create(&api, "root".into(), None).await?;
        let mut level = vec![root];
        let mut objects = 1;
        for _ in 0..levels {
            let children: Vec<(String, OwnerReference)> =
                level.iter().flat_map(|parent| (0..10).map(move |k| (format!("{}-{k}", parent.name), parent.clone()))).collect();
            let created: Vec<(OwnerReference, u64)> = futures::stream::iter(children)
                .map(|(name, owner)| create(&api, name, Some(owner)))
                .buffer_unordered(CREATORS)
                .try_collect()
                .await?;
            objects += created.len();
            last_revision = created.iter().map(|(_, revision)| *revision).fold(last_revision, u64::max);
            level = created.into_iter().map(|(reference, _)| reference).collect();
        }
        Ok(Self { api, namespace: namespace.into(), objects, last_revision })
    }

    /// Deletes the root with `propagationPolicy: Background`.
    pub async fn delete_root(&self) -> anyhow::Result<()> {
        self.api.delete("root", &DeleteParams::background()).await?;
        Ok(())
    }

    /// Whether a list of the tree's ConfigMaps comes back empty.
    pub async fn is_gone(&self) -> anyhow::Result<bool> {
        Ok(self.api.list(&ListParams::default().labels(LABEL).limit(1)).await?.items.is_empty())
    }
}

/// Creates ConfigMap `name` owned by `owner`; a blocking owner reference to it and the
/// resourceVersion of its creation.
async fn create(api: &Api<ConfigMap>, name: String, owner: Option<OwnerReference>) -> anyhow::Result<(OwnerReference, u64)> {
    let metadata = ObjectMeta {
        name: Some(name.clone()),
        labels: Some([(LABEL.to_string(), "cascade".to_string())].into()),
        owner_references: owner.map(|o| vec![o]),
        ..ObjectMeta::default()
    };
    let created = api.create(&PostParams::default(), &ConfigMap { metadata, ..ConfigMap::default() }).await?;
    let uid = created.metadata.uid.context("a created object has a uid")?;
    let revision =
        created.metadata.resource_version.and_then(|v| v.parse().ok()).context("a created object has a numeric resourceVersion")?;
    let reference = OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name,
        uid,
        block_owner_deletion: Some(true),
        controller: None,
    };
    Ok((reference, revision))
}
