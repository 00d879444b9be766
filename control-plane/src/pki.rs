//! The keys and certificates a control plane of its own needs: a cluster CA, the API server's
//! serving certificate signed by it, and the service-account signing key.

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;

use anyhow::Context;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose, SanType,
};

/// The first address of the service range, which the API server's own Service takes.
const KUBERNETES_SERVICE_IP: Ipv4Addr = Ipv4Addr::new(10, 96, 0, 1);

/// Writes `ca.crt`, `ca.key`, `apiserver.crt`, `apiserver.key`, and the service-account key
/// pair `sa.key` and `sa.pub` (all PEM) into `dir`.
pub fn write(dir: &Path) -> anyhow::Result<()> {
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params.distinguished_name.push(DnType::CommonName, "kubegc-upstream-ca");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    let ca_key = KeyPair::generate()?;
    let ca_key_pem = ca_key.serialize_pem();
    let ca = CertifiedIssuer::self_signed(ca_params, ca_key)?;

    let names = ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"];
    let mut server = CertificateParams::new(names.map(String::from).to_vec())?;
    server.distinguished_name.push(DnType::CommonName, "kube-apiserver");
    server.subject_alt_names.push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
    server.subject_alt_names.push(SanType::IpAddress(IpAddr::V4(KUBERNETES_SERVICE_IP)));
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let server_key = KeyPair::generate()?;
    let server_cert = server.signed_by(&server_key, &ca)?;

    let service_accounts = KeyPair::generate()?;
    let files = [
        ("ca.crt", ca.pem()),
        ("ca.key", ca_key_pem),
        ("apiserver.crt", server_cert.pem()),
        ("apiserver.key", server_key.serialize_pem()),
        ("sa.key", service_accounts.serialize_pem()),
        ("sa.pub", service_accounts.public_key_pem()),
    ];
    for (name, pem) in files {
        std::fs::write(dir.join(name), pem).with_context(|| format!("cannot write {name}"))?;
    }
    Ok(())
}
