//! What the pvc-protection and pv-protection controllers share (upstream
//! `pkg/controller/volume/protectionutil/utils.go`): a live object lacking the protection
//! finalizer gets it (`NeedToAddFinalizer`), a terminating one that has it is a deletion
//! candidate (`IsDeletionCandidate`), and either change is a plain Update of the object as read
//! (so a newer write makes it conflict, and the next pass looks again).

use kube::Resource;
use kube::api::{Api, PostParams};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Whether `object` is live and lacks `finalizer`.
pub fn needs_finalizer<K: Resource>(object: &K, finalizer: &str) -> bool {
    object.meta().deletion_timestamp.is_none() && !has_finalizer(object, finalizer)
}

/// Whether `object` is being deleted and still carries `finalizer`.
pub fn is_deletion_candidate<K: Resource>(object: &K, finalizer: &str) -> bool {
    object.meta().deletion_timestamp.is_some() && has_finalizer(object, finalizer)
}

fn has_finalizer<K: Resource>(object: &K, finalizer: &str) -> bool {
    object.meta().finalizers.iter().flatten().any(|f| f == finalizer)
}

/// Adds `finalizer` to `object` (`add`) or removes it, with an Update through `api` of the object as read;
/// says whether the write landed (a failure is left for a later pass).
pub async fn set_finalizer<K>(api: &Api<K>, object: &K, finalizer: &str, add: bool) -> bool
where
    K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + std::fmt::Debug,
{
    let mut updated = object.clone();
    let finalizers = updated.meta_mut().finalizers.get_or_insert_with(Vec::new);
    finalizers.retain(|f| f != finalizer);
    if add {
        finalizers.push(finalizer.to_string());
    }
    let name = object.meta().name.clone().unwrap_or_default();
    match api.replace(&name, &PostParams::default(), &updated).await {
        Ok(_) => true,
        Err(e) => {
            tracing::debug!("{} {name}: updating the finalizer {finalizer}: {e}", K::kind(&()));
            false
        }
    }
}
