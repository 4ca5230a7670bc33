//! Finding a secret written down where it must not be (a file, an event, a log): raw, base64
//! (standard and URL-safe, at each alignment it can have inside longer data), and wrapped over
//! lines. Used by the tests that prove keys and tokens stay in the keychain.

/// The ways `secret` could be written down: raw, and base64 (standard and URL-safe, at each of
/// the three alignments it can have inside longer data: the part that does not depend on its
/// neighbours).
pub fn needles(secret: &str) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![("raw".to_owned(), secret.as_bytes().to_vec())];
    for (name, alphabet) in [("base64", STANDARD), ("base64url", URL_SAFE)] {
        for shift in 0..3 {
            let mut data = vec![0u8; shift];
            data.extend_from_slice(secret.as_bytes());
            let encoded = base64(&data, alphabet);
            // Skip the characters touched by the padding bytes in front and the tail's padding.
            let skip = if shift == 0 { 0 } else { (shift * 8).div_ceil(6) };
            let stable = &encoded[skip..encoded.len() - 4];
            out.push((format!("{name} (offset {shift})"), stable.as_bytes().to_vec()));
        }
    }
    out
}

pub const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub fn base64(data: &[u8], alphabet: &[u8; 64]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(alphabet[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Where any of `secrets` shows in `haystack` (named `what`): as is, and with line breaks
/// (also escaped ones) and whitespace removed, so a secret wrapped over lines is found too.
/// Each finding names the form and the secret's first 8 characters.
pub fn findings(what: &str, haystack: &[u8], secrets: &[&str]) -> Vec<String> {
    let mut joined = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i] == b'\\' && matches!(haystack.get(i + 1), Some(b'n' | b'r')) {
            i += 2;
            continue;
        }
        if !haystack[i].is_ascii_whitespace() {
            joined.push(haystack[i]);
        }
        i += 1;
    }
    let mut found = Vec::new();
    for secret in secrets {
        for (form, needle) in needles(secret) {
            let head: String = secret.chars().take(8).collect();
            if contains(haystack, &needle) {
                found.push(format!("{what}: {form} of {head}"));
            } else if contains(&joined, &needle) {
                found.push(format!("{what}: {form} of {head}, split across lines"));
            }
        }
    }
    found
}

pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, _)) = needle.split_first() else { return true };
    let last_start = haystack.len().saturating_sub(needle.len() - 1);
    (0..last_start).any(|i| haystack[i] == first && haystack[i..].starts_with(needle))
}
