//! Scrubbing a [`WorldPlan`]'s files before they are written or shown,
//! then rendering them: JSON and TOML documents as documents, text
//! line by line, and what oneworks generated (the agent's name and
//! resources, the prompt file's front matter, the values it set) never
//! scrubbed away.

use std::path::Path;

use serde_json::{Map, Value};

use super::document;
use super::planned::{Contents, Generated, PlannedFile, RenderedFile, WorldPlan};
use crate::adapter::session_data::SettingsFormat;
use crate::launch::profile::ProfileError;
use crate::redact::Scrubber;

impl WorldPlan {
    /// Each file as it will be written: scrubbed, then rendered. Documents
    /// are scrubbed as documents; Markdown and other text line by line, so
    /// a short secret that takes its whole string with it takes one line,
    /// never the steering file's front matter.
    pub fn scrubbed(&self, scrubber: &Scrubber) -> Result<Vec<RenderedFile>, ProfileError> {
        self.files
            .iter()
            .map(|file| {
                Ok(RenderedFile {
                    relative: file.relative.clone(),
                    text: self.scrub(scrubber, file)?,
                })
            })
            .collect()
    }

    /// One file's text as written.
    fn scrub(&self, scrubber: &Scrubber, file: &PlannedFile) -> Result<String, ProfileError> {
        let generated = &self.generated;
        let relative = &file.relative;
        match &file.contents {
            Contents::Json(agent) if *relative == generated.agent_file => {
                Contents::Json(scrub_agent(scrubber, agent, generated)).render()
            }
            Contents::Json(document) => {
                Contents::Json(scrub_settings(scrubber, document, relative, generated)).render()
            }
            Contents::Toml(document) => {
                Contents::Toml(scrub_settings(scrubber, document, relative, generated)).render()
            }
            Contents::Text(text) => Ok(scrub_text(scrubber, relative, text, generated)),
        }
    }
}

/// The agent file scrubbed as JSON, then what oneworks generated put back:
/// `name`, the data's forced keys and its own resource entries are never
/// scrubbed away (a short credential equal to a word must not rename the agent).
fn scrub_agent(scrubber: &Scrubber, original: &Value, generated: &Generated) -> Value {
    let mut agent = original.clone();
    scrubber.scrub_json(&mut agent);
    if let Value::Object(map) = &mut agent {
        map.insert(
            "name".to_owned(),
            Value::String(generated.agent_name.clone()),
        );
        for (key, value) in &generated.agent_forced {
            map.insert(key.clone(), value.clone());
        }
        let key = generated.resources_key.as_deref().unwrap_or_default();
        if let (Some(Value::Array(before)), Some(Value::Array(after))) =
            (original.get(key), map.get_mut(key))
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
    agent
}

/// A JSON or TOML document other than the agent file, scrubbed; the values
/// oneworks set in it (forced keys, the login method, the trust level) are
/// put back, so a short credential equal to one of them cannot change what
/// oneworks decided.
fn scrub_settings(
    scrubber: &Scrubber,
    original: &Value,
    relative: &Path,
    generated: &Generated,
) -> Value {
    let mut document = original.clone();
    scrubber.scrub_json(&mut document);
    for (_, path, value) in generated
        .values
        .iter()
        .filter(|(file, _, _)| file == relative)
    {
        put(&mut document, path, value.clone());
    }
    document
}

/// A text file scrubbed: the prompt file below its front matter, text the
/// data names as a JSON or TOML file as such, anything else line by line.
fn scrub_text(scrubber: &Scrubber, relative: &Path, text: &str, generated: &Generated) -> String {
    let extension = relative.extension();
    if extension.is_some_and(|extension| extension == "json") {
        let mut text = scrubber.scrub_json_text(text);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        return text;
    }
    if extension.is_some_and(|extension| extension == "toml") {
        // A TOML file that does not parse is text.
        return document::parse(SettingsFormat::Toml, text)
            .and_then(|mut document| {
                scrubber.scrub_json(&mut document);
                document::render(SettingsFormat::Toml, &document, "").ok()
            })
            .unwrap_or_else(|| scrub_lines(scrubber, text));
    }
    if Some(relative) == generated.steering_file.as_deref() {
        let front = generated.front_matter.as_str();
        if let Some(body) = text.strip_prefix(front) {
            return format!("{front}{}", scrub_lines(scrubber, body));
        }
    }
    scrub_lines(scrubber, text)
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
