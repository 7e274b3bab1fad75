//! Optional HTTPS for `psebench serve --tls-cert PATH --tls-key PATH`: a certificate chain and its
//! private key in PEM files. Without them the server speaks plain HTTP, which on a local network
//! means review links and answers travel unencrypted.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_rustls::rustls::pki_types::pem::{self, PemObject};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

use psebench::error::{ApiError, ApiResult};

/// Where the certificate (chain) and its private key are, both PEM.
#[derive(Debug, Clone, PartialEq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

fn read(path: &Path, what: &str) -> ApiResult<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| ApiError::invalid(format!("The {what} file {} could not be read: {e}.", path.display())))
}

fn not_pem(path: &Path, what: &str, e: pem::Error) -> ApiError {
    let why = match e {
        pem::Error::NoItemsFound => format!("it holds no {what} in PEM form (text starting with \"-----BEGIN\")"),
        other => format!("it is not a readable PEM file ({other})"),
    };
    ApiError::invalid(format!("The {what} file {} cannot be used: {why}.", path.display()))
}

/// Read both files and prepare the TLS side of the server. Every failure says which file and why.
pub fn acceptor(files: &TlsFiles) -> ApiResult<TlsAcceptor> {
    let cert_pem = read(&files.cert, "certificate")?;
    let key_pem = read(&files.key, "private key")?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| not_pem(&files.cert, "certificate", e))?;
    if certs.is_empty() {
        return Err(not_pem(&files.cert, "certificate", pem::Error::NoItemsFound));
    }
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| not_pem(&files.key, "private key", e))?;
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ApiError::internal(format!("TLS could not be set up: {e}")))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            ApiError::invalid(format!(
                "The certificate {} and the private key {} do not go together ({e}). Give the key that was made with \
                 this certificate.",
                files.cert.display(),
                files.key.display()
            ))
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
