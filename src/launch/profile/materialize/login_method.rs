//! The login method written into the settings file: an agent
//! whose TUI stops at a sign-in dialog until its settings name a method
//! gets `auth.method` when it is configured, else the method a credential
//! variable implies (the adapter data's table, first match). Only the
//! method id is written, never a credential.

use crate::adapter::session_data::AuthData;
use crate::env_options::environment::Environment;

/// Where the method came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// `auth.method` of the config: it wins over `configContent`.
    Configured(String),
    /// Implied by the variable named; `configContent` wins over it.
    Implied { method: String, variable: String },
}

/// The method for the settings file, if any.
pub fn method(
    auth: &AuthData,
    configured: Option<&str>,
    env: Option<&Environment>,
) -> Option<Method> {
    if let Some(method) = configured {
        return Some(Method::Configured(method.to_owned()));
    }
    let env = env?;
    auth.implied_by.iter().find_map(|implied| {
        let value = env
            .get(&implied.variable)
            .filter(|value| !value.is_empty())?;
        let matches = implied
            .equals
            .as_deref()
            .is_none_or(|expected| value == expected);
        matches.then(|| Method::Implied {
            method: implied.method.clone(),
            variable: implied.variable.clone(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::session_data::ImpliedAuth;

    fn auth() -> AuthData {
        AuthData {
            settings_key: "security.auth.selectedType".to_owned(),
            implied_by: vec![
                ImpliedAuth {
                    variable: "GOOGLE_GENAI_USE_VERTEXAI".to_owned(),
                    equals: Some("true".to_owned()),
                    method: "vertex-ai".to_owned(),
                },
                ImpliedAuth {
                    variable: "GEMINI_API_KEY".to_owned(),
                    equals: None,
                    method: "gemini-api-key".to_owned(),
                },
            ],
        }
    }

    #[test]
    fn configured_then_implied_in_order() {
        let both = Environment::from_pairs([
            ("GEMINI_API_KEY", "AIza-test-value"),
            ("GOOGLE_GENAI_USE_VERTEXAI", "true"),
        ]);
        assert_eq!(
            method(&auth(), Some("oauth-personal"), Some(&both)),
            Some(Method::Configured("oauth-personal".to_owned()))
        );
        assert_eq!(
            method(&auth(), None, Some(&both)),
            Some(Method::Implied {
                method: "vertex-ai".to_owned(),
                variable: "GOOGLE_GENAI_USE_VERTEXAI".to_owned()
            })
        );
        let key_only = Environment::from_pairs([
            ("GEMINI_API_KEY", "AIza-test-value"),
            ("GOOGLE_GENAI_USE_VERTEXAI", "false"),
        ]);
        assert_eq!(
            method(&auth(), None, Some(&key_only)),
            Some(Method::Implied {
                method: "gemini-api-key".to_owned(),
                variable: "GEMINI_API_KEY".to_owned()
            })
        );
        let empty = Environment::from_pairs([("GEMINI_API_KEY", "")]);
        assert_eq!(method(&auth(), None, Some(&empty)), None);
        assert_eq!(method(&auth(), None, None), None);
    }
}
