//! Steps on watches: one started before a change, and the events it saw.

use cucumber::{given, then};
use futures::StreamExt;
use kube::api::{ListParams, WatchEvent, WatchParams};

use super::support::explained;
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `Given a watch on ConfigMaps`: remembers the current resourceVersion of the kind's list in
/// the scenario namespace, from which a later `Then the watch on ConfigMaps saw ...` reads.
#[given(regex = r"^a watch on ((?-u:\w)+?)s$")]
async fn watch_started(world: &mut KubeWorld, kind: String) -> StepResult {
    let (api, _, _) = world.api(&kind).await?;
    let listed = api.list_metadata(&ListParams::default()).await.map_err(|e| format!("cannot list {kind}s: {e}"))?;
    let rv = listed.metadata.resource_version.ok_or("the list has no resourceVersion")?;
    world.watches.insert(kind, rv);
    Ok(())
}

/// `Then the watch on ConfigMaps saw ConfigMap "old" deleted`: reading the kind's watch from
/// where `Given a watch on ConfigMaps` started, a DELETED event for the object arrives.
#[then(regex = r#"^the watch on ((?-u:\w)+?)s saw ((?-u:\w)+) "([^"]+)" deleted$"#)]
async fn watch_saw_deleted(world: &mut KubeWorld, watched: String, kind: String, name: String) -> StepResult {
    let result = async {
        let from = world.watches.get(&watched).cloned().ok_or(format!("no watch on {watched}s was started"))?;
        let (api, _, _) = world.api(&kind).await?;
        let timeout = world.backend().eventually_timeout();
        let params = WatchParams::default().timeout(timeout.as_secs().max(1) as u32);
        let stream = api.watch(&params, &from).await.map_err(|e| format!("cannot watch {kind}s: {e}"))?;
        let mut stream = Box::pin(stream);
        let seen = tokio::time::timeout(timeout, async {
            while let Some(event) = stream.next().await {
                if let Ok(WatchEvent::Deleted(o)) = event
                    && o.metadata.name.as_deref() == Some(name.as_str())
                {
                    return true;
                }
            }
            false
        })
        .await
        .unwrap_or(false);
        if seen { Ok(()) } else { Err(format!("the watch on {watched}s from resourceVersion {from} saw no DELETED event for {name:?}")) }
    }
    .await;
    explained(world, result).await
}
