//! Where a person answers permission questions. With `--json`: JSON lines
//! on stdin (`{"id":"…","reply":"…"}` or `{"cancel":true}`), read on a
//! thread of their own so a blocked read never holds the runtime. On a
//! terminal: a `dialoguer` selection on stderr, also on its own thread.
//! Otherwise there is no channel and a question that needs a person fails
//! closed.
//!
//! Bounded: a reply line holds at most [`MAX_REPLY_LINE`] bytes (a longer
//! one is skipped without being held and answered with a diagnostic, as is
//! a line that is not UTF-8; the channel stays open), and the queue between
//! the reader thread and the run holds at most [`QUEUE`] inputs (the
//! reader waits while it is full).

use std::io::{ErrorKind, IsTerminal};

use serde_json::Value;
use tokio::sync::mpsc::{Receiver, Sender};

use super::permissions::Choice;
use crate::process::lines::{BlockingLines, Line};

/// The longest reply line read; replies are a few dozen bytes.
pub const MAX_REPLY_LINE: usize = 64 * 1024;
/// How many inputs wait for the run at most.
pub const QUEUE: usize = 64;

pub type InputSender = Sender<Input>;
pub type InputReceiver = Receiver<Input>;

/// The bounded queue of what a person said.
pub fn input_channel() -> (InputSender, InputReceiver) {
    tokio::sync::mpsc::channel(QUEUE)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelKind {
    Json,
    Terminal,
    None,
}

impl ChannelKind {
    pub fn detect(json: bool) -> Self {
        if json {
            ChannelKind::Json
        } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            ChannelKind::Terminal
        } else {
            ChannelKind::None
        }
    }
}

/// Something a person said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Reply {
        id: String,
        reply: String,
    },
    Cancel,
    /// A line that was not a reply (reported, then ignored).
    Invalid(String),
    /// Stdin ended: no further answers will come.
    Closed,
}

/// Parses one line of the JSON channel.
pub fn parse_input(line: &str) -> Option<Input> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(line) else {
        return Some(Input::Invalid(
            "a reply line is not a JSON object".to_owned(),
        ));
    };
    if object.get("cancel") == Some(&Value::Bool(true)) {
        return Some(Input::Cancel);
    }
    let text = |value: Option<&Value>| match value {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Number(number)) => Some(number.to_string()),
        _ => None,
    };
    match (text(object.get("id")), text(object.get("reply"))) {
        (Some(id), Some(reply)) => Some(Input::Reply { id, reply }),
        _ => Some(Input::Invalid(
            "a reply needs `id` and `reply` (or is `{\"cancel\":true}`)".to_owned(),
        )),
    }
}

/// What one raw reply line says: an input, or nothing for a blank line.
pub fn read_input(line: Line) -> Option<Input> {
    match line {
        Line::TooLong(length) => Some(Input::Invalid(format!(
            "a reply line of {length} bytes is over the limit of {MAX_REPLY_LINE} bytes and was skipped"
        ))),
        Line::Text(bytes) => match std::str::from_utf8(&bytes) {
            Ok(text) => parse_input(text),
            Err(_) => Some(Input::Invalid(
                "a reply line is not UTF-8 and was skipped".to_owned(),
            )),
        },
    }
}

/// Starts the stdin reader of the JSON channel.
pub fn spawn_json_reader(sender: InputSender) {
    std::thread::spawn(move || {
        let mut lines = BlockingLines::new(std::io::stdin().lock(), MAX_REPLY_LINE);
        while let Ok(Some(line)) = lines.next_line() {
            if let Some(input) = read_input(line) {
                if sender.blocking_send(input).is_err() {
                    return;
                }
            }
        }
        let _ = sender.blocking_send(Input::Closed);
    });
}

/// Asks on the terminal; the answer (an ordinal) or a cancel arrives on
/// `sender`. Escape in the prompt cancels the run; Ctrl-C there is the
/// SIGINT the prompt library raises, handled as any interrupt.
/// `agent` is the adapter's display name, from its data.
pub fn spawn_terminal_prompt(
    id: String,
    agent: &str,
    title: String,
    choices: &[Choice],
    sender: InputSender,
) {
    let items: Vec<String> = choices
        .iter()
        .map(|choice| crate::output::clean(&choice.display()))
        .collect();
    let ordinals: Vec<usize> = choices.iter().map(|choice| choice.shown.ordinal).collect();
    let prompt = format!(
        "{agent} asks permission · {agent} 请求权限: {}",
        crate::output::clean(&title),
        agent = crate::output::clean(agent)
    );
    // Before the prompt starts, so the settings saved are the person's.
    let open = crate::process::terminal::PromptOpen::begin();
    std::thread::spawn(move || {
        let _open = open;
        let picked = dialoguer::Select::with_theme(&dialoguer::theme::ColorfulTheme::default())
            .with_prompt(prompt)
            .items(&items)
            .default(0)
            .interact_opt();
        let input = match picked {
            Ok(Some(index)) => match ordinals.get(index) {
                Some(ordinal) => Input::Reply {
                    id,
                    reply: ordinal.to_string(),
                },
                None => Input::Cancel,
            },
            // Ctrl-C read as a key: the prompt library has already raised
            // SIGINT for it (console's `read_key`), and that signal is the
            // run's interrupt. Sending a cancel as well made one key press
            // two — whichever came second counted as the "second Ctrl-C"
            // and killed the agent before it read the `cancelled` answer
            // and `session/cancel` already written to it.
            Err(dialoguer::Error::IO(error)) if error.kind() == ErrorKind::Interrupted => return,
            Ok(None) | Err(_) => Input::Cancel,
        };
        let _ = sender.blocking_send(input);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_cancels_and_junk_are_told_apart() {
        assert_eq!(
            parse_input(r#"{"id":"p1","reply":"Allow once"}"#),
            Some(Input::Reply {
                id: "p1".into(),
                reply: "Allow once".into()
            })
        );
        assert_eq!(
            parse_input(r#"{"id":7,"reply":2}"#),
            Some(Input::Reply {
                id: "7".into(),
                reply: "2".into()
            })
        );
        assert_eq!(parse_input(r#"{"cancel":true}"#), Some(Input::Cancel));
        assert!(matches!(
            parse_input(r#"{"cancel":false}"#),
            Some(Input::Invalid(_))
        ));
        assert!(matches!(parse_input("yes"), Some(Input::Invalid(_))));
        assert_eq!(parse_input("  "), None);
    }

    #[test]
    fn overlong_and_non_utf8_lines_are_invalid_inputs_not_the_end() {
        let input: &[u8] = b"\xff\xfe\n{\"cancel\":true}\n";
        let mut lines = BlockingLines::new(input, MAX_REPLY_LINE);
        let first = read_input(lines.next_line().expect("read").expect("line"));
        assert!(
            matches!(&first, Some(Input::Invalid(message)) if message.contains("not UTF-8")),
            "{first:?}"
        );
        let second = read_input(lines.next_line().expect("read").expect("line"));
        assert_eq!(second, Some(Input::Cancel));
        let long = read_input(Line::TooLong(MAX_REPLY_LINE + 1));
        assert!(matches!(long, Some(Input::Invalid(message)) if message.contains("65537 bytes")));
    }
}
