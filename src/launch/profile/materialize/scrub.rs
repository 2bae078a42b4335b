//! Scrubbing a [`WorldPlan`]'s files before they are written or shown (SPEC
//! §6.2): JSON files as documents, text line by line, and what oneworks
//! generated (the agent's name and resources, the prompt file's front
//! matter, the values it set) never scrubbed away.

use serde_json::{Map, Value};

use super::document;
use super::document::to_json;
use super::planned::{Generated, PlannedFile, WorldPlan};
use crate::adapter::session_data::SettingsFormat;
use crate::redact::Scrubber;

impl WorldPlan {
    /// Each file's contents as it will be written (scrubbed). JSON files
    /// are scrubbed as documents; Markdown and other text line by line, so
    /// a short secret that takes its whole string with it takes one line,
    /// never the steering file's front matter.
    pub fn scrubbed(&self, scrubber: &Scrubber) -> Vec<PlannedFile> {
        self.files
            .iter()
            .map(|file| {
                let extension = file.relative.extension();
                let format = if extension.is_some_and(|extension| extension == "json") {
                    Some(SettingsFormat::NestedJson)
                } else if extension.is_some_and(|extension| extension == "toml") {
                    Some(SettingsFormat::Toml)
                } else {
                    None
                };
                let generated = &self.generated;
                let contents = if file.relative == generated.agent_file {
                    scrub_agent(scrubber, &file.contents, generated)
                } else if let Some(format) = format {
                    scrub_settings(scrubber, file, format, generated)
                } else if Some(&file.relative) == generated.steering_file.as_ref() {
                    let front = generated.front_matter.as_str();
                    match file.contents.strip_prefix(front) {
                        Some(body) => format!("{front}{}", scrub_lines(scrubber, body)),
                        None => scrub_lines(scrubber, &file.contents),
                    }
                } else {
                    scrub_lines(scrubber, &file.contents)
                };
                PlannedFile {
                    relative: file.relative.clone(),
                    contents,
                }
            })
            .collect()
    }
}

/// The agent file scrubbed as JSON, then what oneworks generated put back:
/// `name`, `includeMcpJson` and its own resource URIs are never scrubbed
/// away (a short credential equal to a word must not rename the agent).
fn scrub_agent(scrubber: &Scrubber, text: &str, generated: &Generated) -> String {
    let Ok(original) = serde_json::from_str::<Value>(text) else {
        return scrubber.scrub_json_text(text);
    };
    let mut agent = original.clone();
    scrubber.scrub_json(&mut agent);
    if let Value::Object(map) = &mut agent {
        map.insert(
            "name".to_owned(),
            Value::String(generated.agent_name.clone()),
        );
        map.insert("includeMcpJson".to_owned(), Value::Bool(false));
        if let (Some(Value::Array(before)), Some(Value::Array(after))) =
            (original.get("resources"), map.get_mut("resources"))
        {
            // Scrubbing replaces strings, never removes array items.
            for (kept, scrubbed) in before.iter().zip(after.iter_mut()) {
                if kept
                    .as_str()
                    .is_some_and(|uri| generated.resources.iter().any(|own| own == uri))
                {
                    *scrubbed = kept.clone();
                }
            }
        }
    }
    to_json(&agent)
}

/// A JSON or TOML file other than the agent file, scrubbed as a document;
/// the values oneworks set in it (forced keys, the login method, the trust
/// level) are put back, so a short credential equal to one of them cannot
/// change what oneworks decided.
fn scrub_settings(
    scrubber: &Scrubber,
    file: &PlannedFile,
    format: SettingsFormat,
    generated: &Generated,
) -> String {
    let own: Vec<_> = generated
        .values
        .iter()
        .filter(|(relative, _, _)| *relative == file.relative)
        .collect();
    let is_toml = format == SettingsFormat::Toml;
    match document::parse(format, &file.contents) {
        Some(mut document) if is_toml || !own.is_empty() => {
            scrubber.scrub_json(&mut document);
            for (_, path, value) in own {
                put(&mut document, path, value.clone());
            }
            match document::render(format, &document, "") {
                Ok(text) => text,
                Err(_) => scrub_lines(scrubber, &file.contents),
            }
        }
        // A TOML file that does not parse (never planned so) is text.
        _ if is_toml => scrub_lines(scrubber, &file.contents),
        _ => {
            let mut text = scrubber.scrub_json_text(&file.contents);
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
    }
}

/// Sets `path` (object keys) of `document` to `value`, making the maps on
/// the way.
pub(super) fn put(document: &mut Value, path: &[String], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut current = document;
    for key in parents {
        let Value::Object(map) = current else {
            return;
        };
        current = map
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if let Value::Object(map) = current {
        map.insert(last.clone(), value);
    }
}

/// `text` scrubbed one line at a time, line endings kept. A secret that
/// spans lines (a multi-line value) is not seen line by line: then the
/// text is scrubbed as a whole.
pub(super) fn scrub_lines(scrubber: &Scrubber, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        out.push_str(&scrubber.scrub_str(body));
        out.push_str(&line[body.len()..]);
    }
    if scrubber.contains_secret(&out) {
        return scrubber.scrub_str(text).into_owned();
    }
    out
}
