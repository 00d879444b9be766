//! The bearer token of `kubegc serve` on an address other than loopback: made for the run,
//! written into the kubeconfig, and asked of every request.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use kubegc::apiserver::status::ApiError;
use subtle::ConstantTimeEq;

/// A secret that a request shows as `Authorization: Bearer <token>`.
pub struct BearerToken(String);

impl BearerToken {
    /// A new token: two random (version 4) UUIDs, 244 random bits, in hex.
    pub fn random() -> Self {
        Self(format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple()))
    }

    /// The token, for the kubeconfig.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `headers` carry this token, read as kube-apiserver reads one (the scheme in any
    /// case, the token the word after it), and compared in constant time.
    fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(Ok(authorization)) = headers.get(AUTHORIZATION).map(|v| v.to_str()) else { return false };
        let mut words = authorization.trim().splitn(3, ' ');
        match (words.next(), words.next()) {
            (Some(scheme), Some(token)) if scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() => {
                bool::from(token.as_bytes().ct_eq(self.0.as_bytes()))
            }
            _ => false,
        }
    }

    /// `router` answering every request without this token as kube-apiserver does when
    /// anonymous requests are off: 401 Unauthorized.
    pub fn guard(self, router: Router) -> Router {
        router.layer(middleware::from_fn_with_state(Arc::new(self), require))
    }
}

async fn require(State(token): State<Arc<BearerToken>>, request: Request, next: Next) -> Response {
    if token.admits(request.headers()) { next.run(request).await } else { ApiError::unauthorized().into_response() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::StatusCode;
    use axum::routing::get;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    fn with_authorization(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, value.parse().unwrap());
        headers
    }

    #[test]
    fn only_the_token_itself_is_admitted() {
        let token = BearerToken::random();
        assert!(token.as_str().len() >= 32, "{}", token.as_str());
        assert_ne!(token.as_str(), BearerToken::random().as_str());
        let t = token.as_str();
        for admitted in [format!("Bearer {t}"), format!("bearer {t}"), format!("  BEARER {t} ")] {
            assert!(token.admits(&with_authorization(&admitted)), "{admitted:?} refused");
        }
        let wrong = format!("Bearer {}", &t[..t.len() - 1]);
        for refused in [format!("Basic {t}"), format!("Bearer{t}"), "Bearer ".to_string(), t.to_string(), wrong, format!("Bearer {t}x")] {
            assert!(!token.admits(&with_authorization(&refused)), "{refused:?} admitted");
        }
        assert!(!token.admits(&HeaderMap::new()));
    }

    #[tokio::test]
    async fn a_request_without_the_token_gets_kube_apiserver_s_401() {
        let token = BearerToken::random();
        let header = format!("Bearer {}", token.as_str());
        let router = token.guard(Router::new().route("/api", get(|| async { "served" })));
        let ask = |authorization: Option<&str>, path: &str| {
            let mut request = Request::get(path);
            if let Some(value) = authorization {
                request = request.header(AUTHORIZATION, value);
            }
            router.clone().oneshot(request.body(Body::empty()).unwrap())
        };
        let served = ask(Some(&header), "/api").await.unwrap();
        assert_eq!(served.status(), StatusCode::OK);
        for (authorization, path) in [(None, "/api"), (Some("Bearer wrong"), "/api"), (None, "/no/such/path")] {
            let refused = ask(authorization, path).await.unwrap();
            assert_eq!(refused.status(), StatusCode::UNAUTHORIZED, "{authorization:?} {path}");
            assert_eq!(refused.headers()["content-type"], "application/json");
            let body: serde_json::Value = serde_json::from_slice(&refused.into_body().collect().await.unwrap().to_bytes()).unwrap();
            let expected = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Unauthorized", "reason": "Unauthorized", "code": 401});
            assert_eq!(body, expected);
        }
    }
}
