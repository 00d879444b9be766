//! kube-apiserver's legacy service account token tracking controller (kubernetes
//! pkg/controlplane/controller/legacytokentracking): the ConfigMap
//! `kube-system/kube-apiserver-legacy-service-account-token-tracking` says since which day
//! (`since`) the server tracks legacy tokens. Made at the server's start; deleted, it is made
//! again with the day of its making, at most once every 30 minutes (the controller's creation
//! rate limit, whose one token the first creation spends); a `since` that is no day is set to
//! today.

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::json;

use crate::apiserver::schema::WriteOptions;
use crate::apiserver::storage::Storage;
use crate::apiserver::storage::bootstrap::configmap;
use crate::apiserver::storage::write::Target;

/// The ConfigMap's name, in kube-system.
const NAME: &str = "kube-apiserver-legacy-service-account-token-tracking";

/// How often the ConfigMap may be made.
const CREATE_EVERY: chrono::Duration = chrono::Duration::minutes(30);

/// Whether `text` is a day as Go's `time.Parse("2006-01-02", text)` reads one.
fn is_day(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
        && NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok()
}

/// When the controller last made the ConfigMap.
#[derive(Clone, Copy, Debug, Default)]
pub struct LegacyTokenTracking {
    created: Option<DateTime<Utc>>,
}

impl Storage {
    /// One pass of the tracking controller: makes the ConfigMap when it is missing and the rate
    /// limit allows, or mends its `since`. Returns whether it wrote.
    pub fn track_legacy_tokens(&mut self) -> bool {
        let scope = self.kube_system_configmaps();
        let now = self.clock.now();
        let today = now.format("%Y-%m-%d").to_string();
        match self.get(&scope, NAME) {
            Ok(stored) if stored["data"]["since"].as_str().is_some_and(is_day) => false,
            Ok(stored) => {
                let mut mended = (*stored).clone();
                mended["data"]["since"] = json!(today);
                let opts = WriteOptions { field_manager: "kube-apiserver".into(), ..WriteOptions::default() };
                self.update(&scope, NAME, mended, Target::Main, opts).is_ok()
            }
            Err(_) if self.legacy_token_tracking.created.is_some_and(|at| now - at < CREATE_EVERY) => false,
            Err(_) => {
                let made = self.try_create_as_server(&scope, configmap(NAME, json!({"since": today}))).is_ok();
                if made {
                    self.legacy_token_tracking.created = Some(now);
                }
                made
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::deletion::DeleteOptions;
    use crate::apiserver::ids::Ids;
    use crate::apiserver::kinds;
    use crate::clock::Clock;

    #[test]
    fn the_config_map_comes_back_at_most_every_thirty_minutes_and_its_day_is_mended() {
        let clock = Clock::virtual_at(DateTime::UNIX_EPOCH);
        let mut storage = Storage::new(clock.clone(), Ids::seeded(1), 100, kinds::of);
        let scope = storage.kube_system_configmaps();
        let since = |s: &Storage| s.get(&scope, NAME).ok().map(|c| c["data"]["since"].clone());
        assert_eq!(since(&storage), Some(json!("1970-01-01")));
        storage.delete(&scope, NAME, &DeleteOptions::default()).unwrap();
        clock.advance(chrono::Duration::minutes(29));
        assert!(!storage.track_legacy_tokens());
        assert_eq!(since(&storage), None);
        clock.advance(chrono::Duration::minutes(1));
        assert!(storage.track_legacy_tokens());
        assert_eq!(since(&storage), Some(json!("1970-01-01")));
        let mut stored = (*storage.get(&scope, NAME).unwrap()).clone();
        stored["data"]["since"] = json!("yesterday");
        clock.advance(chrono::Duration::days(1));
        storage.update(&scope, NAME, stored, Target::Main, WriteOptions::default()).unwrap();
        assert!(storage.track_legacy_tokens());
        assert_eq!(since(&storage), Some(json!("1970-01-02")));
        assert!(!storage.track_legacy_tokens());
    }

    #[test]
    fn a_day_is_read_as_go_reads_one() {
        for day in ["2024-02-29", "0001-01-01"] {
            assert!(is_day(day), "{day}");
        }
        for not in ["", "2023-02-29", "2024-2-29", "2024-02-29T00:00:00Z", "24-02-29", "2024/02/29"] {
            assert!(!is_day(not), "{not}");
        }
    }
}
