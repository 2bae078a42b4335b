//! `policy:`, at the top of `config.yaml` or under
//! `adapters.<name>` (that one wins, whole): ordered rules, each
//! `decide: allow|deny|ask` with optional `kind`, `command`, `title` and
//! `path`, and `otherwise`. Read strictly, like the rest of the schema: an
//! unknown key, a kind ACP does not have or a glob that cannot be used is
//! an error naming its key path and line. Only trusted files may hold it
//! (`untrusted.rs` cuts it out of a project's untrusted file).
//! What a rule matches is the ACP client's business
//! (`acp::permissions::decide::written`); here it is data.

use serde::{Deserialize, Deserializer, Serialize};

use super::glob::{Glob, GlobOver};

/// The policy a run follows and where the config holds it (`policy`,
/// `adapters.kiro.policy`).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyAt {
    pub key: String,
    pub policy: Policy,
}

/// A policy: its rules in order, and what decides when none matches.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping")]
pub struct Policy {
    #[serde(default)]
    pub rules: Vec<PolicyRule>,
    #[serde(default)]
    pub otherwise: PolicyVerdict,
}

/// What a matching rule (or `otherwise`) decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase", expecting = "`allow`, `deny` or `ask`")]
pub enum PolicyVerdict {
    /// The agent's native `allow_once`.
    Allow,
    /// The agent's native `reject_once`.
    Deny,
    /// Not decided here: `--mode`, then a person.
    #[default]
    Ask,
}

impl PolicyVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyVerdict::Allow => "allow",
            PolicyVerdict::Deny => "deny",
            PolicyVerdict::Ask => "ask",
        }
    }
}

/// One rule; every field it has must match (a rule with none matches
/// every request).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping")]
pub struct PolicyRule {
    pub decide: PolicyVerdict,
    /// ACP tool kinds, any of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<OneOrMany<ToolKind>>,
    /// Globs over a shell call's command, any of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<OneOrMany<TextGlob>>,
    /// A glob over the request's title as shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<TextGlob>,
    /// Globs over the tool call's paths, relative to the project (or
    /// absolute when the glob starts with `/`), any of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<OneOrMany<PathGlob>>,
}

impl PolicyRule {
    /// Whether the rule looks at text the agent wrote (a glob), which an
    /// incomplete card may not show whole.
    pub fn has_globs(&self) -> bool {
        self.command.is_some() || self.title.is_some() || self.path.is_some()
    }
}

/// One value or a list of them, serialized back as it was written.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

/// Read by hand rather than `untagged`: a bad item is then named by its
/// own error (`unknown variant `exec``) at its own key path, not as "no
/// variant matched".
impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visitor<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a string or a list of strings")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
                let text = serde::de::value::StrDeserializer::<E>::new(text);
                T::deserialize(text).map(OneOrMany::One)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut items: A,
            ) -> Result<Self::Value, A::Error> {
                let mut all = Vec::new();
                while let Some(item) = items.next_element()? {
                    all.push(item);
                }
                if all.is_empty() {
                    return Err(serde::de::Error::custom(
                        "an empty list matches nothing: leave the key out to match any request",
                    ));
                }
                Ok(OneOrMany::Many(all))
            }
        }
        deserializer.deserialize_any(Visitor(std::marker::PhantomData))
    }
}

impl<T> OneOrMany<T> {
    pub fn items(&self) -> &[T] {
        match self {
            OneOrMany::One(item) => std::slice::from_ref(item),
            OneOrMany::Many(items) => items,
        }
    }
}

/// The tool kinds of ACP v1 (`ToolKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    Other,
}

impl ToolKind {
    /// The wire name (`switch_mode`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Delete => "delete",
            ToolKind::Move => "move",
            ToolKind::Search => "search",
            ToolKind::Execute => "execute",
            ToolKind::Think => "think",
            ToolKind::Fetch => "fetch",
            ToolKind::SwitchMode => "switch_mode",
            ToolKind::Other => "other",
        }
    }
}

/// A glob over text (a command, a title).
#[derive(Debug, Clone, PartialEq)]
pub struct TextGlob(pub Glob);

/// A glob over a path.
#[derive(Debug, Clone, PartialEq)]
pub struct PathGlob(pub Glob);

fn glob<'de, D: Deserializer<'de>>(deserializer: D, over: GlobOver) -> Result<Glob, D::Error> {
    let written = String::deserialize(deserializer)?;
    // The glob is not echoed: the error names its key and line.
    Glob::new(&written, over).map_err(serde::de::Error::custom)
}

impl<'de> Deserialize<'de> for TextGlob {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        glob(deserializer, GlobOver::Text).map(TextGlob)
    }
}

impl<'de> Deserialize<'de> for PathGlob {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        glob(deserializer, GlobOver::Path).map(PathGlob)
    }
}

impl Serialize for TextGlob {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

impl Serialize for PathGlob {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<Policy, serde_yaml_ng::Error> {
        serde_yaml_ng::from_str(yaml)
    }

    #[test]
    fn the_spec_example_reads_and_writes_back_as_written() {
        let policy = parse(
            "rules:\n  - decide: allow\n    kind: [read, search]\n  - decide: deny\n    command: [\"rm *\", \"curl * | sh\"]\n  - decide: allow\n    title: \"Edit *.md\"\n    path: \"docs/**\"\notherwise: ask\n",
        )
        .expect("the spec's example");
        assert_eq!(policy.rules.len(), 3);
        assert_eq!(policy.otherwise, PolicyVerdict::Ask);
        assert!(!policy.rules[0].has_globs() && policy.rules[2].has_globs());
        assert_eq!(
            serde_json::to_value(&policy.rules[2]).expect("json"),
            serde_json::json!({"decide": "allow", "title": "Edit *.md", "path": "docs/**"})
        );
        assert_eq!(
            serde_json::to_value(&policy.rules[0]).expect("json")["kind"],
            serde_json::json!(["read", "search"])
        );
        assert_eq!(parse("{}").expect("empty").otherwise, PolicyVerdict::Ask);
    }

    #[test]
    fn unknown_keys_kinds_verdicts_and_bad_globs_are_errors_naming_the_key() {
        for (yaml, expected) in [
            (
                "rules:\n  - decid: allow\n",
                "rules[0]: unknown field `decid`",
            ),
            (
                "rules:\n  - decide: maybe\n",
                "rules[0].decide: unknown variant `maybe`",
            ),
            (
                "rules:\n  - decide: deny\n    kind: exec\n",
                "rules[0].kind",
            ),
            (
                "rules:\n  - decide: deny\n    command: \"rm \\\\\"\n",
                "escapes nothing",
            ),
            ("rules:\n  - decide: deny\n    path: \"\"\n", "empty glob"),
            ("otherwise: never\n", "otherwise: unknown variant `never`"),
            ("rule: []\n", "unknown field `rule`"),
            (
                "rules:\n  - decide: deny\n    kind: []\n",
                "rules[0].kind: an empty list",
            ),
            (
                "rules:\n  - decide: deny\n    kind: [read, exec]\n",
                "rules[0].kind[1]: unknown variant `exec`",
            ),
        ] {
            let error = parse(yaml).expect_err(yaml).to_string();
            assert!(error.contains(expected), "{yaml}: {error}");
        }
    }
}
