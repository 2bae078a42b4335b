//! The credential rules as plain types: which environment
//! variables hold credentials and the value patterns that look like one.
//! The adapter data file carries their values; the scrubber reads them.

use serde::Deserialize;

/// A regular expression from the data file, compiled once while the file
/// is parsed (so a bad one is an error with its line and column).
#[derive(Debug, Clone)]
pub struct DataRegex(pub regex::Regex);

impl<'de> Deserialize<'de> for DataRegex {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        regex::Regex::new(&text)
            .map(DataRegex)
            .map_err(|error| serde::de::Error::custom(format!("invalid pattern `{text}`: {error}")))
    }
}

/// Which environment variables hold credentials.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CredentialRules {
    pub names: Vec<String>,
    pub prefix: String,
    pub suffixes: Vec<String>,
    pub value_patterns: Vec<DataRegex>,
    /// Variables that are not secret but that the agent needs (passed
    /// through like credentials, never scrubbed).
    #[serde(default)]
    pub pass_through: Vec<String>,
}

impl CredentialRules {
    /// The names and value patterns of several rule sets (no prefix rule):
    /// for masking text that may hold any adapter's credentials.
    pub fn union<'a>(all: impl IntoIterator<Item = &'a CredentialRules>) -> Self {
        let mut union = CredentialRules {
            names: Vec::new(),
            prefix: String::new(),
            suffixes: Vec::new(),
            value_patterns: Vec::new(),
            pass_through: Vec::new(),
        };
        for rules in all {
            union.names.extend(rules.names.iter().cloned());
            union
                .value_patterns
                .extend(rules.value_patterns.iter().cloned());
        }
        union
    }

    /// Whether `name` is a credential variable name, in any case.
    pub fn is_credential_name(&self, name: &str) -> bool {
        let upper = name.to_ascii_uppercase();
        if self.names.contains(&upper) {
            return true;
        }
        upper.starts_with(&self.prefix)
            && self.suffixes.iter().any(|suffix| upper.ends_with(suffix))
    }

    /// The credential variables present (and non-empty) in `vars`.
    pub fn present<'a>(
        &self,
        vars: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Vec<(String, String)> {
        vars.into_iter()
            .filter(|(name, value)| !value.is_empty() && self.is_credential_name(name))
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect()
    }
}
