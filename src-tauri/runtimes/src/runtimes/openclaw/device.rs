//! Clawboo's device identity towards an OpenClaw Gateway on another machine, for its node
//! connection (see [`super::gateway_node`]): an Ed25519 key pair kept in a private file beside
//! the bridge's state, and the signature the Gateway wants in `connect` (OpenClaw 2026.9.6,
//! `packages/gateway-client/src/device-auth.ts`, payload "v3").
//!
//! Why a key of Clawboo's own rather than the bridge's: the bridge keeps its identity inside
//! OpenClaw's SQLite state (a private schema that changes between releases). A key of our own is
//! a second device to pair, but Clawboo pairs it itself with the operator grant the owner already
//! gave the bridge (an `operator.admin` caller may approve other devices), so the owner still
//! approves this computer once. aws-lc-rs is the crypto rustls already builds here (no `ring`).

use std::path::{Path, PathBuf};

use aws_lc_rs::digest::{digest, SHA256};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use data_encoding::{BASE64URL_NOPAD, HEXLOWER};

use crate::error::{Error, Result};

/// The file, in the bridge's state folder, that holds the key (PKCS#8, base64url).
pub fn key_path(bridge_state: &Path) -> PathBuf {
    bridge_state.join("clawboo-node-device.key")
}

pub struct DeviceIdentity {
    key: Ed25519KeyPair,
    /// The hex SHA-256 of the raw public key: the id the Gateway derives and checks.
    pub id: String,
    /// The raw public key, base64url without padding.
    pub public_key: String,
}

impl DeviceIdentity {
    /// The key in `path`, or a new one written there (owner-only) when there is none or it
    /// cannot be read.
    pub fn load_or_create(path: &Path) -> Result<Self> {
        let stored =
            std::fs::read_to_string(path).ok().and_then(|text| BASE64URL_NOPAD.decode(text.trim().as_bytes()).ok());
        if let Some(key) = stored.and_then(|der| Ed25519KeyPair::from_pkcs8(&der).ok()) {
            return Ok(Self::from_key(key));
        }
        let document = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
            .map_err(|_| Error::RuntimeFailed("Cannot make a device key for the OpenClaw Gateway.".into()))?;
        super::super::home::write_private(path, &BASE64URL_NOPAD.encode(document.as_ref()))?;
        let key = Ed25519KeyPair::from_pkcs8(document.as_ref())
            .map_err(|_| Error::RuntimeFailed("The new device key for the OpenClaw Gateway does not load.".into()))?;
        Ok(Self::from_key(key))
    }

    fn from_key(key: Ed25519KeyPair) -> Self {
        let raw = key.public_key().as_ref().to_vec();
        Self { id: HEXLOWER.encode(digest(&SHA256, &raw).as_ref()), public_key: BASE64URL_NOPAD.encode(&raw), key }
    }

    /// The signature of `payload`, base64url without padding.
    pub fn sign(&self, payload: &str) -> String {
        BASE64URL_NOPAD.encode(self.key.sign(payload.as_bytes()).as_ref())
    }
}

/// What a `connect` signs (OpenClaw's `buildDeviceAuthPayloadV3`): the fields joined by `|`,
/// platform and device family lower-cased.
pub struct SignedConnect<'a> {
    pub device_id: &'a str,
    pub client_id: &'a str,
    pub client_mode: &'a str,
    pub role: &'a str,
    pub scopes: &'a [&'a str],
    pub signed_at_ms: u64,
    pub token: &'a str,
    pub nonce: &'a str,
    pub platform: &'a str,
    pub device_family: &'a str,
}

impl SignedConnect<'_> {
    pub fn payload(&self) -> String {
        [
            "v3",
            self.device_id,
            self.client_id,
            self.client_mode,
            self.role,
            &self.scopes.join(","),
            &self.signed_at_ms.to_string(),
            self.token,
            self.nonce,
            &self.platform.trim().to_ascii_lowercase(),
            &self.device_family.trim().to_ascii_lowercase(),
        ]
        .join("|")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::signature::{UnparsedPublicKey, ED25519};

    #[test]
    fn the_key_is_kept_owner_only_and_signs_what_the_gateway_checks() {
        let dir = tempfile::tempdir().unwrap();
        let path = key_path(dir.path());
        let made = DeviceIdentity::load_or_create(&path).unwrap();
        let again = DeviceIdentity::load_or_create(&path).unwrap();
        assert_eq!(made.id, again.id, "the same device next time");
        assert_eq!(made.id.len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let signed = SignedConnect {
            device_id: &made.id,
            client_id: "node-host",
            client_mode: "node",
            role: "node",
            scopes: &[],
            signed_at_ms: 1_796_482_762_950,
            token: "tok",
            nonce: "n-1",
            platform: "Linux",
            device_family: "",
        };
        let payload = signed.payload();
        assert_eq!(payload, format!("v3|{}|node-host|node|node||1796482762950|tok|n-1|linux|", made.id));
        let raw = BASE64URL_NOPAD.decode(made.public_key.as_bytes()).unwrap();
        let signature = BASE64URL_NOPAD.decode(made.sign(&payload).as_bytes()).unwrap();
        UnparsedPublicKey::new(&ED25519, &raw).verify(payload.as_bytes(), &signature).unwrap();
    }
}
