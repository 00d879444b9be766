//! GET of one object and of a list, with label and field selectors and `limit`/`continue`
//! pagination.

use std::sync::Arc;

use base64::Engine;
use serde_json::Value;

use crate::apiserver::selectors::Selection;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::store::ObjectKey;
use crate::apiserver::storage::{Scope, Storage};

/// Which page of a list: `limit` and `continue`.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// At most this many items (`limit`; none for all).
    pub limit: Option<usize>,
    /// Where an earlier page ended (`continue`).
    pub continue_token: Option<String>,
}

/// Where a paginated list continues: the list's revision and the last key returned.
#[derive(serde::Serialize, serde::Deserialize)]
struct ContinueToken {
    rv: u64,
    ns: String,
    name: String,
}

/// One page of a list.
#[derive(Clone, Debug)]
pub struct Listed {
    /// Items as served, shared with the store where served as stored.
    pub items: Vec<Arc<Value>>,
    /// The list's resourceVersion.
    pub revision: u64,
    /// `metadata.continue` when more items remain.
    pub continue_token: Option<String>,
    /// `metadata.remainingItemCount` when more items remain and the list has no selector (with
    /// one, upstream's storage cannot count the rest without reading it, and leaves it unset).
    pub remaining: Option<usize>,
}

fn decode_continue(token: &str) -> ApiResult<ContinueToken> {
    let bad = || ApiError::bad_request("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token).map_err(|_| bad())?;
    serde_json::from_slice(&bytes).map_err(|_| bad())
}

impl Storage {
    /// GET one object.
    pub fn get(&self, scope: &Scope, name: &str) -> ApiResult<Arc<Value>> {
        self.store
            .get(&scope.request_key(name)?)
            .ok_or_else(|| ApiError::not_found(scope.resource.qualified(), name))
            .and_then(|o| scope.serve(o))
    }

    /// GET a list: the selected objects in key order, paginated when `limit` is set.
    pub fn list(&self, scope: &Scope, selection: &Selection, page: &Page) -> ApiResult<Listed> {
        scope.check_key_segments(None)?;
        let limit = page.limit;
        let (revision, after) = match page.continue_token.as_deref() {
            Some(token) => {
                let t = decode_continue(token)?;
                let (g, r) = &scope.resource.storage;
                (t.rv, Some(ObjectKey::new(g, r, &t.ns, &t.name)))
            }
            None => (self.store.revision(), None),
        };
        let (g, r) = &scope.resource.storage;
        let mut selected = self.store.list(g, r, scope.namespace.as_deref(), after.as_ref()).filter(|(_, o)| selection.matches(o));
        let mut items = Vec::new();
        let mut last_key = None;
        for (k, o) in selected.by_ref() {
            if limit.is_some_and(|l| items.len() >= l) {
                // One more exists: count the rest (when there is no selector) and stop.
                let remaining = selection.is_everything().then(|| 1 + selected.count());
                let (ns, name): (&str, &str) = last_key.expect("limit > 0 means an item was taken");
                let token = ContinueToken { rv: revision, ns: ns.to_string(), name: name.to_string() };
                let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).expect("serializable"));
                return Ok(Listed { items, revision, continue_token: Some(token), remaining });
            }
            items.push(scope.serve(o)?);
            last_key = Some(k);
        }
        Ok(Listed { items, revision, continue_token: None, remaining: None })
    }
}
