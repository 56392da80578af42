//! The `hashutil` execution module: base64, digests and HMAC signatures.

use super::Call;
use crate::salt::render::jinja::salt::{from_mj, py_error, Bound};
use crate::value::{b64decode, b64encode, b64encode_lines};
use minijinja::value::Value as MjValue;
use minijinja::Error;

/// The bytes of a `hashutil` argument (str as UTF-8, bytes as they are).
pub(super) fn hash_input(a: &Bound, name: &str) -> Result<Vec<u8>, Error> {
    match a.raw(name) {
        Some(v) => match v.as_bytes() {
            Some(b) => Ok(b.to_vec()),
            None => Ok(from_mj(v)?.py_str().into_bytes()),
        },
        None => Err(py_error(format!(
            "TypeError: missing required argument: '{name}'"
        ))),
    }
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn hash_b64encode(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(b64encode(&hash_input(&a, "instr")?)))
}

/// `base64.encodebytes`: 76-character lines, each ending in a newline.
pub(super) fn hash_b64encode_lines(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(b64encode_lines(&hash_input(&a, "instr")?)))
}

pub(super) fn hash_b64decode(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let text = String::from_utf8_lossy(&hash_input(&a, "instr")?).into_owned();
    let bytes = b64decode(&text).map_err(|e| py_error(format!("binascii.Error: {e}")))?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => MjValue::from(s),
        Err(e) => MjValue::from_bytes(e.into_bytes()),
    })
}

/// `hashutil.base64_encodefile(fname)`: a `salt://` file read through the
/// fileserver; other paths are on the minion and not read offline.
pub(super) fn hash_b64encodefile(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let fname = a.string("fname", "")?;
    let Some(rel) = fname.strip_prefix("salt://") else {
        return Err(py_error(format!(
            "hashutil.base64_encodefile reads {fname} on the minion, which lowstate does not do offline: use a salt:// path or mock hashutil.base64_encodefile"
        )));
    };
    let saltenv = c
        .state
        .lookup("saltenv")
        .map(|v| v.to_string())
        .unwrap_or_else(|| "base".into());
    let text = c
        .files
        .and_then(|f| f.read(&saltenv, rel.trim_start_matches('/')))
        .ok_or_else(|| py_error(format!("IOError: {fname} not found in saltenv {saltenv}")))?;
    Ok(MjValue::from(b64encode_lines(text.as_bytes())))
}

pub(super) fn digest_of(name: &str, bytes: &[u8]) -> Option<String> {
    use sha2::Digest as _;
    Some(match name {
        "md5" => hex(&md5::Md5::digest(bytes)),
        "sha1" => hex(&sha1::Sha1::digest(bytes)),
        "sha224" => hex(&sha2::Sha224::digest(bytes)),
        "sha256" => hex(&sha2::Sha256::digest(bytes)),
        "sha384" => hex(&sha2::Sha384::digest(bytes)),
        "sha512" => hex(&sha2::Sha512::digest(bytes)),
        _ => return None,
    })
}

pub(super) fn hash_md5(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(digest_of("md5", &hash_input(&a, "instr")?)))
}

pub(super) fn hash_sha256(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(digest_of(
        "sha256",
        &hash_input(&a, "instr")?,
    )))
}

pub(super) fn hash_sha512(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(digest_of(
        "sha512",
        &hash_input(&a, "instr")?,
    )))
}

/// `hashutil.digest(instr, checksum='md5')`: md5, sha256 or sha512 only.
pub(super) fn hash_digest(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let checksum = a.string("checksum", "md5")?;
    let bytes = hash_input(&a, "instr")?;
    match checksum.as_str() {
        "md5" | "sha256" | "sha512" => Ok(MjValue::from(digest_of(&checksum, &bytes))),
        _ => Err(crate::salt::render::jinja::template_error(
            crate::salt::render::jinja::JinjaErrorKind::Other,
            crate::salt::render::jinja::PREFIX_SALT_FUNCTION,
            format!("Hash func '{checksum}' is not supported."),
        )),
    }
}

/// HMAC (RFC 2104) over one of the SHA-2/SHA-1 digests.
pub(super) fn hmac<D: sha2::Digest + sha2::digest::core_api::BlockSizeUser>(
    key: &[u8],
    msg: &[u8],
) -> Vec<u8> {
    use sha2::digest::typenum::Unsigned;
    let block = <D as sha2::digest::core_api::BlockSizeUser>::BlockSize::USIZE;
    let mut k = if key.len() > block {
        D::digest(key).to_vec()
    } else {
        key.to_vec()
    };
    k.resize(block, 0);
    let inner: Vec<u8> = k
        .iter()
        .map(|b| b ^ 0x36)
        .chain(msg.iter().copied())
        .collect();
    let inner = D::digest(&inner);
    let outer: Vec<u8> = k
        .iter()
        .map(|b| b ^ 0x5c)
        .chain(inner.iter().copied())
        .collect();
    D::digest(&outer).to_vec()
}

/// `hashutil.hmac_signature`: does base64(HMAC-SHA256(secret, string))
/// equal `challenge_hmac`?
pub(super) fn hash_hmac_signature(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let msg = hash_input(&a, "string")?;
    let key = hash_input(&a, "shared_secret")?;
    let challenge = a.string("challenge_hmac", "")?;
    Ok(MjValue::from(
        b64encode(&hmac::<sha2::Sha256>(&key, &msg)) == challenge,
    ))
}

/// `hashutil.hmac_compute`: hex HMAC-SHA256 of `string` with `shared_secret`.
pub(super) fn hash_hmac_compute(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let msg = hash_input(&a, "string")?;
    let key = hash_input(&a, "shared_secret")?;
    Ok(MjValue::from(hex(&hmac::<sha2::Sha256>(&key, &msg))))
}

/// `hashutil.github_signature`: `challenge_hmac` is `sha1=<hex>` (or
/// another algorithm); does the HMAC of `string` with `shared_secret` match?
pub(super) fn hash_github_signature(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let msg = hash_input(&a, "string")?;
    let key = hash_input(&a, "shared_secret")?;
    let challenge = a.string("challenge_hmac", "")?;
    let (alg, want) = challenge.split_once('=').unwrap_or(("", ""));
    let got = match alg {
        "sha1" => hex(&hmac::<sha1::Sha1>(&key, &msg)),
        "sha256" => hex(&hmac::<sha2::Sha256>(&key, &msg)),
        "sha512" => hex(&hmac::<sha2::Sha512>(&key, &msg)),
        "md5" => hex(&hmac::<md5::Md5>(&key, &msg)),
        other => {
            return Err(py_error(format!(
                "AttributeError: module 'hashlib' has no attribute '{other}'"
            )))
        }
    };
    Ok(MjValue::from(got == want))
}
