//! Objects a controller cannot read, and how the controllers live with them: a typed list
//! ([`list`]) decodes each item on its own, so that one object that does not fit its kind's
//! type (a stored `containerPort: "x"`) is set apart instead of failing the whole list and,
//! with it, the controller's every object; a [`Reporter`] says so once per version of the
//! object, in the log and as a Warning Event about it, as upstream's controllers record the
//! objects they cannot sync (`FailedSync`).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use kube::Resource;
use kube::api::ListParams;
use kube::core::ObjectList;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::recorder::Record;

/// The reason of the Warning Event about an object a controller cannot read.
pub const REASON: &str = "FailedSync";

/// An object a typed list could not decode.
#[derive(Clone, Debug, PartialEq)]
pub struct Unreadable {
    /// Its reference (`apiVersion`, `kind`, `namespace`, `name`, `uid`, `resourceVersion`).
    pub reference: Value,
    /// Why it could not be read.
    pub error: String,
}

impl Unreadable {
    /// The version of the object it is about, which is reported once.
    fn identity(&self) -> (String, String) {
        let field = |f: &str| self.reference[f].as_str().unwrap_or_default().to_string();
        (field("uid"), field("resourceVersion"))
    }

    /// `Kind namespace/name`, for the log.
    fn describe(&self) -> String {
        let field = |f: &str| self.reference[f].as_str().unwrap_or_default();
        match field("namespace") {
            "" => format!("{} {}", field("kind"), field("name")),
            namespace => format!("{} {namespace}/{}", field("kind"), field("name")),
        }
    }
}

/// What a typed list read: the items that decoded, the revision of the list, and the items that
/// did not.
#[derive(Debug)]
pub struct Listed<K> {
    /// The items that decoded as `K`.
    pub items: Vec<K>,
    /// The list's resourceVersion (0 if it had none that is a number).
    pub revision: u64,
    /// The items that did not decode.
    pub unreadable: Vec<Unreadable>,
}

/// Every `K` in the cluster whose fields match `fields` (every one for `""`), each decoded
/// apart from the others.
pub async fn list<K>(client: &kube::Client, fields: &str) -> kube::Result<Listed<K>>
where
    K: Resource<DynamicType = ()> + DeserializeOwned,
{
    let mut params = ListParams::default();
    if !fields.is_empty() {
        params = params.fields(fields);
    }
    let request = kube::core::Request::new(K::url_path(&(), None)).list(&params).map_err(kube::Error::BuildRequest)?;
    let list: ObjectList<Value> = client.request(request).await?;
    let revision = list.metadata.resource_version.as_deref().and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut listed = Listed { items: Vec::with_capacity(list.items.len()), revision, unreadable: Vec::new() };
    for item in list.items {
        match serde_json::from_value::<K>(item.clone()) {
            Ok(object) => listed.items.push(object),
            Err(e) => listed.unreadable.push(Unreadable { reference: reference::<K>(&item), error: e.to_string() }),
        }
    }
    Ok(listed)
}

/// The reference to `item`, a `K` as listed (whose `apiVersion` and `kind` a list may omit).
fn reference<K: Resource<DynamicType = ()>>(item: &Value) -> Value {
    let meta = &item["metadata"];
    let mut reference = json!({"apiVersion": K::api_version(&()), "kind": K::kind(&())});
    for field in ["namespace", "name", "uid", "resourceVersion"] {
        if let Some(value) = meta[field].as_str() {
            reference[field] = json!(value);
        }
    }
    reference
}

/// Says once of each version of an unreadable object that it cannot be read: a warning in the
/// log and a Warning Event about it from `component`. It forgets the objects no longer listed
/// unreadable, so that one broken again is said again.
#[derive(Debug)]
pub struct Reporter {
    component: &'static str,
    reported: BTreeSet<(String, String)>,
}

impl Reporter {
    /// A reporter whose Events come from `component`.
    pub fn new(component: &'static str) -> Self {
        Self { component, reported: BTreeSet::new() }
    }

    /// The objects of `unreadable` not yet reported, marked reported; every object not in
    /// `unreadable` is forgotten.
    pub fn fresh<'a>(&mut self, unreadable: &'a [Unreadable]) -> Vec<&'a Unreadable> {
        let now: BTreeSet<(String, String)> = unreadable.iter().map(Unreadable::identity).collect();
        self.reported.retain(|id| now.contains(id));
        unreadable.iter().filter(|u| self.reported.insert(u.identity())).collect()
    }

    /// Reports what is new in `unreadable` through `client`, at `now`. An Event that cannot be
    /// written is not tried again: the log has said it.
    pub async fn report(&mut self, client: &kube::Client, now: DateTime<Utc>, unreadable: &[Unreadable]) {
        for object in self.fresh(unreadable) {
            let what = object.describe();
            tracing::warn!(component = self.component, error = %object.error, "skipping {what}: it cannot be read");
            let record = Record {
                involved: object.reference.clone(),
                event_type: "Warning",
                reason: REASON,
                message: format!("cannot read {what}: {}", object.error),
            };
            if let Err(e) = record.send(client, self.component, now).await {
                tracing::debug!(error = %e, "cannot record that {what} cannot be read");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unreadable(uid: &str, rv: &str) -> Unreadable {
        Unreadable {
            reference: json!({"kind": "Deployment", "namespace": "ns", "name": uid, "uid": uid, "resourceVersion": rv}),
            error: "bad".into(),
        }
    }

    #[test]
    fn each_version_is_reported_once_and_forgotten_when_no_longer_listed() {
        let mut reporter = Reporter::new("test");
        let (a1, b1, a2) = (unreadable("a", "1"), unreadable("b", "1"), unreadable("a", "2"));
        assert_eq!(reporter.fresh(&[a1.clone(), b1.clone()]).len(), 2);
        assert!(reporter.fresh(&[a1.clone(), b1.clone()]).is_empty(), "said once, not every pass");
        assert_eq!(reporter.fresh(&[a2.clone()]), [&a2], "a new version is said again");
        assert!(reporter.fresh(&[]).is_empty());
        assert_eq!(reporter.fresh(&[b1.clone()]), [&b1], "forgotten once it was fixed");
        assert_eq!(a1.describe(), "Deployment ns/a");
    }
}
