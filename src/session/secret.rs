//! Secrets of the serve process: 256 random bits from the OS CSPRNG, and
//! their constant-time comparison.

use subtle::ConstantTimeEq;

/// 256 random bits, hex.
pub fn random_hex() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(std::io::Error::from)?;
    Ok(hex::encode(bytes))
}

/// Constant-time equality of two secrets.
pub fn same_secret(given: &str, expected: &str) -> bool {
    given.as_bytes().ct_eq(expected.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_256_random_bits() {
        let (a, b) = (random_hex().expect("a"), random_hex().expect("b"));
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(same_secret(&a, &a.clone()));
        assert!(!same_secret(&a, &b));
        assert!(!same_secret(&a, &a[..63]));
    }
}
