//! TLS for `kubegc serve` on an address other than loopback: a certificate authority made for
//! the run, the serving certificate it signs, and a listener that hands the server connections
//! once their handshake is done.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::serve::Listener;
use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{DnsName, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::server::TlsStream;

/// How long a client has to finish its handshake before its connection is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How many handshaken connections wait for the server to take them.
const HANDSHAKEN_QUEUE: usize = 64;

/// The certificate authority of one run and the server's TLS configuration, whose certificate
/// it signed; its private keys live in memory only, and go with the process.
pub struct ServingIdentity {
    ca_pem: String,
    config: Arc<ServerConfig>,
}

impl ServingIdentity {
    /// A new certificate authority, and a serving certificate it signs for the names a client
    /// of a server bound to `bound` may use: `localhost`, `127.0.0.1`, `::1`, this machine's
    /// name, and `bound`'s address unless it is unspecified (`0.0.0.0`, `::`).
    pub fn generate(bound: IpAddr) -> anyhow::Result<Self> {
        let mut ca = CertificateParams::default();
        ca.distinguished_name.push(DnType::CommonName, "kubegc-ca");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        let ca_key = KeyPair::generate().context("cannot make the certificate authority's key")?;
        let ca_pem = ca.self_signed(&ca_key).context("cannot sign the certificate authority")?.pem();
        let issuer = Issuer::new(ca, ca_key);

        let mut serving = CertificateParams::new(subject_alt_names(bound)).context("cannot name the serving certificate")?;
        serving.distinguished_name.push(DnType::CommonName, "kubegc");
        serving.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        // Python's strict verification (the default from 3.13) refuses a certificate without it.
        serving.use_authority_key_identifier_extension = true;
        let key = KeyPair::generate().context("cannot make the serving certificate's key")?;
        let certificate = serving.signed_by(&key, &issuer).context("cannot sign the serving certificate")?;

        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .context("no TLS version for the ring provider")?
            .with_no_client_auth()
            .with_single_cert(vec![certificate.der().clone()], PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())))
            .context("cannot serve the certificate")?;
        // The server speaks HTTP/1.1 only (axum's `http2` feature is off).
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self { ca_pem, config: Arc::new(config) })
    }

    /// The certificate authority's certificate (PEM), for clients to trust.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// A listener that serves TLS with this identity on `tcp`.
    pub fn listener(&self, tcp: TcpListener) -> io::Result<TlsListener> {
        TlsListener::new(tcp, TlsAcceptor::from(self.config.clone()))
    }
}

/// The names in a serving certificate for a server bound to `bound`; this machine's name when
/// it is a DNS name (a client could not ask for another).
fn subject_alt_names(bound: IpAddr) -> Vec<String> {
    let mut names = vec!["localhost".to_string(), Ipv4Addr::LOCALHOST.to_string(), Ipv6Addr::LOCALHOST.to_string()];
    let host = hostname::get().ok().and_then(|h| h.into_string().ok());
    names.extend(host.filter(|h| DnsName::try_from(h.as_str()).is_ok()));
    if !bound.is_unspecified() && !bound.is_loopback() {
        names.push(bound.to_string());
    }
    names
}

/// Where a client of a server bound to `bound` connects: `bound` itself, or loopback for an
/// unspecified address (which takes connections on every address of the machine).
pub fn client_address(bound: SocketAddr) -> SocketAddr {
    match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(Ipv4Addr::LOCALHOST.into(), bound.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::new(Ipv6Addr::LOCALHOST.into(), bound.port()),
        _ => bound,
    }
}

/// A TCP listener whose connections the server gets once their TLS handshake is done; the
/// handshakes run apart, so that a client that never finishes one holds up no other.
pub struct TlsListener {
    local_addr: SocketAddr,
    handshaken: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    accepting: JoinHandle<()>,
}

impl TlsListener {
    fn new(tcp: TcpListener, acceptor: TlsAcceptor) -> io::Result<Self> {
        let local_addr = tcp.local_addr()?;
        let (sender, handshaken) = mpsc::channel(HANDSHAKEN_QUEUE);
        let accepting = tokio::spawn(accept(tcp, acceptor, sender));
        Ok(Self { local_addr, handshaken, accepting })
    }
}

/// Accepts connections on `tcp` and sends each to `handshaken` once `acceptor` has shaken hands.
async fn accept(mut tcp: TcpListener, acceptor: TlsAcceptor, handshaken: mpsc::Sender<(TlsStream<TcpStream>, SocketAddr)>) {
    loop {
        let (stream, peer) = Listener::accept(&mut tcp).await;
        let (acceptor, handshaken) = (acceptor.clone(), handshaken.clone());
        tokio::spawn(async move {
            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                // An error here means the server has stopped taking connections: this one goes.
                Ok(Ok(tls)) => drop(handshaken.send((tls, peer)).await),
                Ok(Err(e)) => tracing::debug!(%peer, "TLS handshake failed: {e}"),
                Err(_) => tracing::debug!(%peer, "TLS handshake not done in {HANDSHAKE_TIMEOUT:?}"),
            }
        });
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.handshaken.recv().await {
            Some(connection) => connection,
            // The accepting task ends only when this listener is dropped: no more connections.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.local_addr)
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_rustls::TlsConnector;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
    use tokio_rustls::rustls::{ClientConfig, RootCertStore};

    /// A client that trusts `identity`'s certificate authority, as the kubeconfig tells it to.
    fn connector(identity: &ServingIdentity) -> TlsConnector {
        let mut roots = RootCertStore::empty();
        roots.add(CertificateDer::from_pem_slice(identity.ca_pem().as_bytes()).unwrap()).unwrap();
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        TlsConnector::from(Arc::new(config))
    }

    /// Shakes hands with `listener` as `name` through `client`; the server echoes one byte.
    async fn handshake(listener: &mut TlsListener, client: &TlsConnector, name: &str) -> std::io::Result<()> {
        let tcp = TcpStream::connect(listener.local_addr).await?;
        let server_name = ServerName::try_from(name.to_string()).unwrap();
        let (client, served) = tokio::join!(client.connect(server_name, tcp), async {
            tokio::time::timeout(Duration::from_secs(2), Listener::accept(listener)).await
        });
        let mut client = client?;
        let Ok((mut served, _)) = served else { return Err(std::io::Error::other("the server got no connection")) };
        client.write_all(b"x").await?;
        let mut byte = [0];
        served.read_exact(&mut byte).await?;
        assert_eq!(&byte, b"x");
        Ok(())
    }

    #[tokio::test]
    async fn a_client_trusting_the_run_s_authority_connects_by_every_name_the_certificate_covers() {
        let identity = ServingIdentity::generate("0.0.0.0".parse().unwrap()).unwrap();
        let mut listener = identity.listener(TcpListener::bind("127.0.0.1:0").await.unwrap()).unwrap();
        let client = connector(&identity);
        for name in ["127.0.0.1", "::1", "localhost"] {
            handshake(&mut listener, &client, name).await.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let refused = handshake(&mut listener, &client, "kubegc.example").await;
        assert!(refused.is_err(), "a name the certificate does not cover was accepted");
        // Another run's authority is not this one's.
        let other = connector(&ServingIdentity::generate("0.0.0.0".parse().unwrap()).unwrap());
        assert!(handshake(&mut listener, &other, "127.0.0.1").await.is_err(), "another authority's client was accepted");
    }

    #[test]
    fn the_certificate_names_loopback_and_a_specific_bound_address_but_not_an_unspecified_one() {
        let specific = subject_alt_names("192.0.2.7".parse().unwrap());
        for name in ["localhost", "127.0.0.1", "::1", "192.0.2.7"] {
            assert!(specific.iter().any(|n| n == name), "{name} missing from {specific:?}");
        }
        let unspecified = subject_alt_names("::".parse().unwrap());
        assert!(!unspecified.iter().any(|n| n == "::" || n == "0.0.0.0"), "{unspecified:?}");
    }

    #[test]
    fn clients_of_an_unspecified_address_connect_to_loopback() {
        assert_eq!(client_address("0.0.0.0:6443".parse().unwrap()), "127.0.0.1:6443".parse().unwrap());
        assert_eq!(client_address("[::]:6443".parse().unwrap()), "[::1]:6443".parse().unwrap());
        assert_eq!(client_address("192.0.2.7:6443".parse().unwrap()), "192.0.2.7:6443".parse().unwrap());
    }
}
