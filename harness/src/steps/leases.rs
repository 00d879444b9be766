//! Steps on Leases renewed at the server's time: the API server identity leases and the
//! Node leases the cleanup controllers collect.

use cucumber::given;
use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use serde_json::json;

use crate::world::StepResult;
use crate::world::api::{Created, KubeWorld};

/// `Given an identity lease named "x" renewed now for 3600 seconds`: a Lease in `kube-system`
/// labelled `apiserver.kubernetes.io/identity=kube-apiserver`, unless the step says
/// `labelled "k=v"`. `renewed now` is the server's time (as a dry run of the create stamps it); `renewed
/// now with no duration` and `with no renew time for 60 seconds` leave one field out.
#[given(
    regex = r#"^an identity lease named "([^"]+)"(?: labelled "([^"]+)")?( renewed now)?(?: for ((?-u:\d)+) seconds| with no duration| with no renew time for ((?-u:\d)+) seconds)?$"#
)]
async fn identity_lease(
    world: &mut KubeWorld,
    name: String,
    label: String,
    renewed: String,
    duration: String,
    unrenewed: String,
) -> StepResult {
    let label = if label.is_empty() { kubegc::cleanup::identity_leases::SELECTOR.to_string() } else { label };
    let seconds = if duration.is_empty() { unrenewed } else { duration };
    let lease = NewLease {
        name,
        namespace: kubegc::cleanup::identity_leases::NAMESPACE.into(),
        label,
        renewed: !renewed.is_empty(),
        seconds,
        node: String::new(),
    };
    create_lease(world, lease).await
}

/// `Given a Lease named "n" in namespace "kube-node-lease" owned by Node "n"`, `Given a Lease
/// named "x" in namespace "default" labelled "k=v" renewed now for 60 seconds` (label, renewal
/// and owner optional), as for an identity lease.
#[given(
    regex = r#"^a Lease named "([^"]+)" in namespace "([^"]+)"(?: labelled "([^"]+)")?(?: renewed now for ((?-u:\d)+) seconds)?(?: owned by Node "([^"]+)")?$"#
)]
async fn lease(world: &mut KubeWorld, name: String, namespace: String, label: String, seconds: String, node: String) -> StepResult {
    let lease = NewLease { name, namespace, label, renewed: !seconds.is_empty(), seconds, node };
    create_lease(world, lease).await
}

/// A Lease a step makes.
struct NewLease {
    name: String,
    namespace: String,
    /// `key=value`, or empty.
    label: String,
    /// Whether renewTime is the server's time at its creation (otherwise unset).
    renewed: bool,
    /// leaseDurationSeconds, or empty.
    seconds: String,
    /// The Node that owns it, or empty.
    node: String,
}

async fn create_lease(world: &mut KubeWorld, lease: NewLease) -> StepResult {
    let NewLease { name, namespace, label, renewed, seconds, node } = lease;
    let mut body =
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name}, "spec": {"holderIdentity": name}});
    if let Some((key, value)) = label.split_once('=') {
        body["metadata"]["labels"] = json!({key: value});
    }
    if !seconds.is_empty() {
        body["spec"]["leaseDurationSeconds"] = json!(seconds.parse::<i32>().map_err(|e| format!("{seconds}: {e}"))?);
    }
    if !node.is_empty() {
        body["metadata"]["ownerReferences"] = json!([world.owner_ref("Node", &node, false)?]);
    }
    let resource = ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk("coordination.k8s.io", "v1", "Lease"));
    let api: Api<DynamicObject> = Api::namespaced_with(world.client(), &namespace, &resource);
    if renewed {
        // The server's time, from a dry run of the create: the lease is never seen unrenewed.
        let object: DynamicObject = serde_json::from_value(body.clone()).map_err(|e| e.to_string())?;
        let dry = api.create(&PostParams { dry_run: true, ..PostParams::default() }, &object).await;
        let dry = dry.map_err(|e| format!("cannot create Lease {name:?} in a dry run: {e}"))?;
        let now = dry.metadata.creation_timestamp.as_ref().ok_or("a dry run of the lease gave no creationTimestamp")?;
        body["spec"]["renewTime"] = json!(now.0.strftime("%Y-%m-%dT%H:%M:%S.000000Z").to_string());
    }
    let object: DynamicObject = serde_json::from_value(body).map_err(|e| e.to_string())?;
    world.settled = false;
    let created = api.create(&PostParams::default(), &object).await.map_err(|e| format!("cannot create Lease {name:?}: {e}"))?;
    let uid = created.metadata.uid.clone().unwrap_or_default();
    world.objects.insert(("Lease".into(), name), Created { resource, namespace, uid });
    Ok(())
}
