//! `kubegc settle`: asks a `kubegc serve` to settle (see [`crate::settle_route`]) and says
//! whether it did, for a test script in any language: exit 0 once the garbage collector and
//! the controllers have nothing left to do, 1 if they still had when the timeout passed (what
//! is pending is printed), 2 on usage errors (an unreadable kubeconfig, a server that does not
//! answer or is not `kubegc serve`).

use std::path::PathBuf;

use anyhow::Context;

use crate::settle_route::PATH;

/// Arguments of `kubegc settle`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Kubeconfig of the `kubegc serve` to ask (its current context is used).
    #[arg(long, default_value = "kubegc.kubeconfig")]
    pub kubeconfig: PathBuf,
    /// How long to wait, as a Go duration (`30s`, `2m`).
    #[arg(long, default_value = "30s")]
    pub timeout: String,
}

/// Asks once; `Ok(false)` when the server did not settle in time.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    if let Err(e) = kubegc::go_duration::parse(&args.timeout) {
        anyhow::bail!("--timeout: {}", e.message(&args.timeout, |s| format!("{s:?}")));
    }
    let client = kube::Client::try_from(super::kube_config(&args.kubeconfig).await?).context("cannot build a client")?;
    let query: String = form_urlencoded::Serializer::new(String::new()).append_pair("timeout", &args.timeout).finish();
    let request = http::Request::get(format!("{PATH}?{query}")).body(Vec::new()).context("cannot build the request")?;
    match client.request_text(request).await {
        Ok(_) => {
            println!("settled");
            Ok(true)
        }
        Err(kube::Error::Api(status)) if status.code == 504 => {
            println!("not settled within {}: {}", args.timeout, status.message);
            Ok(false)
        }
        Err(kube::Error::Api(status)) if status.code == 404 => {
            anyhow::bail!("{} is not a kubegc serve (it does not serve {PATH})", args.kubeconfig.display())
        }
        Err(e) => Err(e).with_context(|| format!("cannot ask the server of {} to settle", args.kubeconfig.display())),
    }
}
