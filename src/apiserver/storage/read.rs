//! GET of one object and of a list, with label and field selectors and `limit`/`continue`
//! pagination.

use std::sync::Arc;

use serde_json::Value;

use crate::apiserver::selectors::Selection;
use crate::apiserver::status::{ApiError, ApiResult};
use crate::apiserver::storage::{Scope, Storage, continue_token};

/// Which page of a list: `limit` and `continue`, and the revision it reads.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// At most this many items (`limit`; none for all).
    pub limit: Option<usize>,
    /// Where an earlier page ended (`continue`).
    pub continue_token: Option<String>,
    /// The revision the list reads.
    pub at: ListAt,
    /// The refusal of a `resourceVersion` that is no revision: the storage reads the continue
    /// token first, and the kind's DELETE warning comes before either.
    pub unparsed: Option<ApiError>,
}

/// Which revision a list reads (`resourceVersion` and `resourceVersionMatch`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListAt {
    /// The latest (no `resourceVersion`, or `0`).
    #[default]
    Latest,
    /// Exactly this one (`resourceVersionMatch=Exact`, or a `limit` with a `resourceVersion`).
    Exact(u64),
    /// The latest, which must be at least this one (any other `resourceVersion`).
    NotOlderThan(u64),
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

/// The 410 of a continue token older than the history kept (`storage.ErrResourceExpired`'s
/// message for continue tokens, k8s.io/apiserver pkg/storage/etcd3/errors.go).
const CONTINUE_TOO_OLD: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

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
        let limit = page.limit;
        // Keys are relative to the list's prefix: a name within a namespace (or of a
        // cluster-scoped resource), `namespace/name` across namespaces.
        let across_namespaces = scope.resource.namespaced && scope.namespace.is_none();
        let (at, from) = match page.continue_token.as_deref() {
            Some(token) => {
                let at = continue_token::decode(token).map_err(|e| ApiError::bad_request(format!("invalid continue token: {e}")))?;
                if page.at != ListAt::Latest || page.unparsed.is_some() {
                    return Err(ApiError::bad_request("specifying resource version is not allowed when using continue"));
                }
                let from = match (across_namespaces, at.start.split_once('/')) {
                    (true, Some((ns, name))) => (ns.to_string(), name.to_string()),
                    (true, None) => (at.start, String::new()),
                    (false, _) => (scope.namespace.clone().unwrap_or_default(), at.start),
                };
                // A negative revision asks for the latest.
                (u64::try_from(at.revision).map_or(ListAt::Latest, ListAt::Exact), Some(from))
            }
            None => match &page.unparsed {
                Some(refusal) => return Err(refusal.clone()),
                None => (page.at, None),
            },
        };
        // A continue token is read before the key it continues from is made.
        scope.check_key_segments(None)?;
        let latest = self.store.revision();
        let revision = match at {
            ListAt::Exact(wanted) | ListAt::NotOlderThan(wanted) if wanted > latest => {
                return Err(ApiError::too_large_resource_version(wanted, latest));
            }
            ListAt::Exact(wanted) => wanted,
            ListAt::Latest | ListAt::NotOlderThan(_) => latest,
        };
        let (g, r) = &scope.resource.storage;
        let snapshot;
        let mut stored: Box<dyn Iterator<Item = ((&str, &str), &Arc<Value>)>> = if revision == latest {
            Box::new(self.store.list(g, r, scope.namespace.as_deref(), from))
        } else {
            snapshot = self.store.list_at(g, r, scope.namespace.as_deref(), from, revision).map_err(|_| match page.continue_token {
                Some(_) => ApiError::gone(CONTINUE_TOO_OLD),
                None => ApiError::gone("The resourceVersion for the provided list is too old."),
            })?;
            Box::new(snapshot.iter().map(|((ns, name), o)| ((ns.as_str(), name.as_str()), o)))
        };
        let mut items = Vec::new();
        while let Some((key, o)) = stored.next() {
            if !selection.matches(o) {
                continue;
            }
            items.push(scope.serve(o)?);
            if limit.is_some_and(|l| items.len() >= l) {
                // A page is full: more remain if any stored object follows, selected or not, as
                // the watch cache pages (`hasMoreListItems` in k8s.io/apiserver
                // pkg/storage/cacher/cacher.go); they are counted only without a selector.
                let rest = stored.count();
                if rest == 0 {
                    break;
                }
                let remaining = selection.is_everything().then_some(rest);
                let (ns, name) = key;
                let last = if across_namespaces { format!("{ns}/{name}") } else { name.to_string() };
                let token = continue_token::encode(&last, revision);
                return Ok(Listed { items, revision, continue_token: Some(token), remaining });
            }
        }
        Ok(Listed { items, revision, continue_token: None, remaining: None })
    }
}
