//! npm's credential settings, read as npm 9+ reads them: per
//! registry `//host[:port][/path]/:_authToken` (sent as `Bearer`), else
//! `:_auth` (`Basic`, already base64 of `user:password`), else
//! `:username` with `:_password` (the password base64-encoded, as `npm
//! login` stores it; sent as `Basic`). `always-auth` changes nothing: npm
//! 7+ sends a registry's credential with every request under it, and so
//! does oneworks. A top-level `_authToken`/`_auth` (no `//host/`) names no
//! registry: npm 9 refuses it, oneworks never sends it and says so on a
//! refusal.

use base64::Engine as _;

use super::npmrc::{NpmConfig, Setting};
use crate::install::transport::scoped_credentials::{Credential, Credentials};

/// The fields of a credential line, after `//host/:`.
const FIELDS: [&str; 5] = [
    "_authToken",
    "_auth",
    "username",
    "_password",
    "always-auth",
];

/// The credentials `config` holds, and every secret value among them (for
/// the scrubber: named by their key, never shown).
pub fn from_config(config: &NpmConfig) -> (Credentials, Vec<(String, String)>) {
    let mut prefixes: Vec<&str> = Vec::new();
    let mut unused = Vec::new();
    let mut secrets = Vec::new();
    for setting in config.settings() {
        if let Some((prefix, field)) = split_key(&setting.key) {
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
            if field != "username" && field != "always-auth" {
                secrets.extend(secret_values(setting));
            }
        } else if ["_authToken", "_auth", "_password"].contains(&setting.key.as_str()) {
            secrets.extend(secret_values(setting));
            unused.push(format!(
                "{} names no registry (write it as `//host[:port]/:{}`)",
                setting.origin(),
                setting.key
            ));
        }
    }
    let mut entries = Vec::new();
    for prefix in prefixes {
        let field = |name: &str| config.get(&format!("{prefix}:{name}"));
        match credential_of(prefix, &field) {
            Ok(Some((credential, basic))) => {
                if let Some(basic) = basic {
                    secrets.push((format!("{prefix}:basic"), basic));
                }
                entries.push(credential);
            }
            Ok(None) => {}
            Err(reason) => unused.push(reason.to_string()),
        }
    }
    let credentials = Credentials {
        entries,
        unused,
        read_from: config.file_shown(),
        registries: Vec::new(),
    };
    (credentials, secrets)
}

/// `(prefix, field)` of a `//host/:field` key.
fn split_key(key: &str) -> Option<(&str, &str)> {
    let (prefix, field) = key.rsplit_once(':')?;
    (prefix.starts_with("//") && FIELDS.contains(&field)).then_some((prefix, field))
}

/// The value as written and, for a `_password`, the password it encodes.
fn secret_values(setting: &Setting) -> Vec<(String, String)> {
    let mut values = vec![(setting.key.clone(), setting.value.trim().to_owned())];
    if setting.key.ends_with("_password") {
        if let Some(password) = decode(&setting.value) {
            values.push((format!("{}:decoded", setting.key), password));
        }
    }
    values.retain(|(_, value)| !value.is_empty());
    values
}

fn decode(value: &str) -> Option<String> {
    base64::engine::general_purpose::STANDARD
        .decode(value.trim())
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
}

/// Why the lines of one prefix are not used (each names its line, never
/// its value).
#[derive(Debug, thiserror::Error)]
enum NotUsed {
    #[error("{0} is not a valid header value")]
    NotAHeader(String),
    #[error("{0} is not base64 (npm stores it so)")]
    NotBase64(String),
    /// Each empty line, with why it is empty.
    #[error("{}", .0.join("; "))]
    Empty(Vec<String>),
}

/// The credential of one prefix: the token, else `_auth`, else username
/// and password (with the `Basic` value, a secret of its own); `Err`
/// says why lines for it are not used.
fn credential_of<'a>(
    prefix: &str,
    field: &dyn Fn(&str) -> Option<&'a Setting>,
) -> Result<Option<(Credential, Option<String>)>, NotUsed> {
    let filled = |name: &str| field(name).filter(|setting| !setting.value.trim().is_empty());
    let build = |authorization: String, setting: &Setting| {
        Credential::new(prefix.to_owned(), &authorization, setting.origin())
            .ok_or_else(|| NotUsed::NotAHeader(setting.origin()))
    };
    if let Some(token) = filled("_authToken") {
        return build(format!("Bearer {}", token.value.trim()), token).map(|c| Some((c, None)));
    }
    if let Some(auth) = filled("_auth") {
        return build(format!("Basic {}", auth.value.trim()), auth).map(|c| Some((c, None)));
    }
    match (filled("username"), filled("_password")) {
        (Some(username), Some(password)) => {
            let decoded =
                decode(&password.value).ok_or_else(|| NotUsed::NotBase64(password.origin()))?;
            let basic = base64::engine::general_purpose::STANDARD
                .encode(format!("{}:{decoded}", username.value.trim()));
            build(format!("Basic {basic}"), password).map(|c| Some((c, Some(basic))))
        }
        _ => {
            let empty: Vec<String> = FIELDS
                .iter()
                .filter_map(|name| field(name))
                .filter(|setting| setting.value.trim().is_empty())
                .map(|setting| match setting.has_variable {
                    true => format!(
                        "{} expands to nothing (is its variable set?)",
                        setting.origin()
                    ),
                    false => format!("{} is empty", setting.origin()),
                })
                .collect();
            match empty.is_empty() {
                true => Ok(None),
                false => Err(NotUsed::Empty(empty)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env_options::environment::Environment;

    fn load(text: &str, vars: &[(&str, &str)]) -> (Credentials, Vec<(String, String)>) {
        let temp = tempfile::tempdir().expect("tempdir");
        fs_err::write(temp.path().join(".npmrc"), text).expect("write");
        let config = NpmConfig::load(
            &Environment::from_pairs(vars.iter().copied()),
            Some(temp.path()),
        )
        .expect("config");
        from_config(&config)
    }

    fn header(credentials: &Credentials, url: &str) -> Option<String> {
        credentials
            .for_url(&url::Url::parse(url).expect("url"))
            .map(|credential| credential.header().to_str().expect("ascii").to_owned())
    }

    #[test]
    fn tokens_basic_auth_and_passwords_as_npm_stores_them() {
        let (credentials, secrets) = load(
            "//a.test/:_authToken=${NPM_TOKEN}\nalways-auth=true\n//b.test:8080/npm/:_auth=dXNlcjpwYXNz\n//c.test/:username=ci\n//c.test/:_password=c2VrcmV0LXB3\n//c.test/:always-auth=true\n",
            &[("NPM_TOKEN", "tok-12345678")],
        );
        assert_eq!(
            header(&credentials, "https://a.test/pkg"),
            Some("Bearer tok-12345678".into())
        );
        assert_eq!(
            header(&credentials, "http://b.test:8080/npm/p"),
            Some("Basic dXNlcjpwYXNz".into())
        );
        assert_eq!(header(&credentials, "http://b.test/npm/p"), None);
        // base64("ci:sekret-pw")
        assert_eq!(
            header(&credentials, "https://c.test/p"),
            Some("Basic Y2k6c2VrcmV0LXB3".into())
        );
        let values: Vec<&str> = secrets.iter().map(|(_, value)| value.as_str()).collect();
        for secret in [
            "tok-12345678",
            "dXNlcjpwYXNz",
            "c2VrcmV0LXB3",
            "sekret-pw",
            "Y2k6c2VrcmV0LXB3",
        ] {
            assert!(values.contains(&secret), "{secret} not learned");
        }
        assert!(!values.contains(&"ci"), "a user name is not a secret");
    }

    #[test]
    fn unset_variables_and_top_level_tokens_are_named_not_sent() {
        let (credentials, secrets) = load(
            "_authToken=top-level-token\n//a.test/:_authToken=${UNSET_TOKEN}\n",
            &[],
        );
        assert!(credentials.entries.is_empty());
        let unused = credentials.unused.join("\n");
        assert!(
            unused.contains("`_authToken` in") && unused.contains("names no registry"),
            "{unused}"
        );
        assert!(
            unused.contains("`//a.test/:_authToken` in") && unused.contains("expands to nothing"),
            "{unused}"
        );
        assert!(!unused.contains("top-level-token"), "{unused}");
        assert_eq!(
            secrets,
            vec![("_authToken".to_owned(), "top-level-token".to_owned())]
        );
    }
}
