//! One request as the fake model reads it off the wire: the HTTP head and
//! body (chunked, gzip or zstd undone), which of the three wire formats it
//! used, and what the fake answered ([`Request`], [`Wire`], [`Answer`]).

use std::io::{BufRead, Read};

use serde_json::Value;

use super::plan::{last_item, tools};

/// Which of the three wire formats a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    ChatCompletions,
    Responses,
    Messages,
}

impl Wire {
    pub(super) fn of(path: &str) -> Option<Wire> {
        if path.ends_with("/chat/completions") {
            Some(Wire::ChatCompletions)
        } else if path.ends_with("/responses") {
            Some(Wire::Responses)
        } else if path.ends_with("/messages") {
            Some(Wire::Messages)
        } else {
            None
        }
    }
}

/// What the fake answered to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A call to the shell tool `name` with these JSON arguments.
    ToolCall { name: String, arguments: String },
    /// The reply after a tool result ([`DONE_TEXT`]).
    Done,
    /// A harmless short text ([`OTHER_TEXT`]).
    Other,
    /// A model list, a token count.
    Meta,
    /// 404: a path the fake does not know.
    NotFound,
    /// 400: a model request whose body is not a JSON object (an agent's
    /// bug must show, not be answered as if it had asked something).
    BadRequest,
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Without the query.
    pub path: String,
    pub query: Option<String>,
    /// Names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The decoded body (`Value::Null` when empty or not JSON).
    pub body: Value,
    /// The body's bytes, after any `Content-Encoding` was undone.
    pub raw: Vec<u8>,
    pub wire: Option<Wire>,
    pub streamed: bool,
    pub answer: Answer,
}

impl Request {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }

    /// Whether `secret` arrived as `Authorization: Bearer <secret>`,
    /// `x-api-key: <secret>` or `api-key: <secret>`.
    pub fn carries(&self, secret: &str) -> bool {
        self.header("authorization")
            .is_some_and(|value| value.strip_prefix("Bearer ").unwrap_or(value) == secret)
            || self.header("x-api-key") == Some(secret)
            || self.header("api-key") == Some(secret)
    }

    /// The body as text (lossy), to look for what was asked.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// The last message or input item, cut to 160 characters (for
    /// failure messages).
    pub fn last_message(&self) -> String {
        let last = last_item(&self.body, self.wire.unwrap_or(Wire::ChatCompletions));
        last.to_string().chars().take(160).collect()
    }

    /// The names of the tools the request offered.
    pub fn tool_names(&self) -> Vec<String> {
        tools(&self.body)
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    }
}

/// At most this much body is read (a long conversation with a big tool
/// list stays well below).
const MAX_BODY: usize = 64 << 20;

pub(super) fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
        None => (target, None),
    };
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let mut raw = Vec::new();
    if get("transfer-encoding").is_some_and(|value| value.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?.trim(), 16).ok()?;
            if size == 0 {
                // Trailers, then the empty line.
                loop {
                    let mut trailer = String::new();
                    if reader.read_line(&mut trailer).ok()? == 0 || trailer.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            if raw.len() + size > MAX_BODY {
                return None;
            }
            let mut chunk = vec![0; size];
            reader.read_exact(&mut chunk).ok()?;
            raw.extend_from_slice(&chunk);
            let mut end = String::new();
            reader.read_line(&mut end).ok()?;
        }
    } else if let Some(length) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        if length > MAX_BODY {
            return None;
        }
        raw = vec![0; length];
        reader.read_exact(&mut raw).ok()?;
    }
    match get("content-encoding").as_deref() {
        Some("gzip") => {
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(&raw[..])
                .read_to_end(&mut plain)
                .ok()?;
            raw = plain;
        }
        Some("zstd") => raw = zstd::decode_all(&raw[..]).ok()?,
        _ => {}
    }
    let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    let wire = Wire::of(&path);
    let streamed = body["stream"] == true;
    Some(Request {
        method,
        path,
        query,
        headers,
        body,
        raw,
        wire,
        streamed,
        answer: Answer::NotFound,
    })
}
