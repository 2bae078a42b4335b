//! `oneworks session …`: start, list, attach, stop a supervised agent TUI
//! session, and list or answer its approval cards. `start`
//! launches the supervisor (`session_start.rs`); the other commands talk
//! to it over the approvals socket.

use serde_json::json;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use crate::cli::{GlobalArgs, SessionCommand, VerdictArg};
use crate::error::{Error, ErrorKind};
use crate::launch::profile::layout::ProfileLayout;
use crate::output;
use crate::session::cards::{Card, CardState};
use crate::session::channel::{card_of, Client};
use crate::session::supervisor::{self, supervise, Record, SessionPaths};
use crate::session::tmux::{self, Tmux};
use crate::session::SessionError;
use crate::settings::Settings;

/// How long `stop` waits for the supervisor to exit.
const STOP_DEADLINE: Duration = Duration::from_secs(20);

pub fn run(settings: &Settings, global: &GlobalArgs, command: SessionCommand) -> Result<(), Error> {
    match command {
        // The settings resolved the adapter, `--trust-workspace` applied.
        SessionCommand::Start {
            name, cwd, detach, ..
        } => {
            super::session_start::start(settings, settings.adapter()?, global, &name, cwd, detach)?;
            if detach {
                return Ok(());
            }
            attach(settings, &name)
        }
        SessionCommand::List { json } => list(settings, global, json),
        SessionCommand::Hook => super::session_hook::run(&crate::settings::HookSettings::resolve(
            Some(&settings.options),
        )),
        SessionCommand::Attach { name } => {
            recover_or_note(settings, global, &name);
            attach_here(settings, &name)
        }
        SessionCommand::Stop { name } => {
            if super::run_kept::stop(settings, &name)? {
                return Ok(());
            }
            stop(settings, &name)
        }
        SessionCommand::Cancel { name } => super::run_kept::cancel(settings, &name),
        SessionCommand::Keep(args) => super::session_keep::own(settings, settings.adapter()?, args),
        SessionCommand::Approvals { name, watch, json } => {
            recover_or_note(settings, global, &name);
            approvals(settings, &name, watch, json)
        }
        SessionCommand::Answer { name, card, action } => {
            recover_or_note(settings, global, &name);
            answer(settings, &name, &card, action)
        }
        SessionCommand::Adopt { name, .. } => Ok(supervise::adopt(
            &settings.world(settings.adapter()?),
            &name,
        )?),
        SessionCommand::Serve {
            listen,
            public_url,
            open,
            json,
        } => crate::commands::serve::run(
            settings,
            global.config.clone(),
            listen,
            public_url,
            open,
            json,
        ),
        SessionCommand::Supervise(args) => {
            let adapter = settings.adapter()?;
            Ok(supervise::supervise(
                &settings.world(adapter),
                &args.name,
                args.cli_path,
                &args.cli_version,
                args.runtime_path,
                args.cwd,
            )?)
        }
    }
}

/// Re-adopts session `name` when its supervisor died; a
/// failure is a note: the command goes on with what it can reach (the card
/// history), as it did before.
fn recover_or_note(settings: &Settings, global: &GlobalArgs, name: &str) {
    if let Err(error) = super::session_start::recover(settings, global, name) {
        output::say(
            settings.quiet,
            format_args!("note: could not re-adopt session `{name}`: {error}"),
        );
    }
}

/// Session `name`'s folders. Only `start` (`session_start.rs`) uses the
/// agent home (through the profile world); the other commands need the
/// root and the runtime folder, which do not depend on the adapter.
fn layout(settings: &Settings, name: &str) -> (ProfileLayout, SessionPaths) {
    let layout = ProfileLayout::new(&settings.project, &settings.locations, name, "");
    let paths = SessionPaths::new(&layout);
    (layout, paths)
}

/// The running supervisor's record, or why there is none.
fn running(settings: &Settings, name: &str) -> Result<(Record, SessionPaths), Error> {
    let (layout, paths) = layout(settings, name);
    supervisor::check_runtime(&layout)?;
    match supervisor::read_record(&paths) {
        None => Err(SessionError::NotRunning(name.to_owned()).into()),
        Some(record) if !supervisor::is_running(&record, &paths) => {
            Err(SessionError::SupervisorGone(name.to_owned()).into())
        }
        Some(record) => Ok((record, paths)),
    }
}

/// Whether session `name` has an approvals channel that listens: its
/// running supervisor's, or its kept session's owner's.
fn live_channel(
    layout: &ProfileLayout,
    paths: &SessionPaths,
    name: &str,
) -> Result<(), SessionError> {
    if crate::acp::kept::is_owned(&crate::acp::kept::KeptPaths::new(layout)) {
        return Ok(());
    }
    match supervisor::read_record(paths) {
        None => Err(SessionError::NotRunning(name.to_owned())),
        Some(record) if !supervisor::is_running(&record, paths) => {
            Err(SessionError::SupervisorGone(name.to_owned()))
        }
        Some(_) => Ok(()),
    }
}

fn connect(settings: &Settings, name: &str) -> Result<Client, Error> {
    let (layout, paths) = layout(settings, name);
    supervisor::check_runtime(&layout)?;
    live_channel(&layout, &paths, name)?;
    Ok(Client::connect(&paths.approvals, name)?)
}

/// `session attach NAME`: a terminal is needed before anything else.
fn attach_here(settings: &Settings, name: &str) -> Result<(), Error> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(Error::msg(
            ErrorKind::Usage,
            "`session attach` needs a terminal, and standard input or output is not one",
        )
        .with_hint(format!(
            "run it from a terminal, or answer approvals with `oneworks session approvals {name}`/`answer`"
        )));
    }
    attach(settings, name)
}

fn attach(settings: &Settings, name: &str) -> Result<(), Error> {
    let (_, paths) = running(settings, name)?;
    let tmux = Tmux {
        program: tmux::find(settings.options.path.as_deref())?,
        socket: paths.tmux.clone(),
        env: Default::default(),
    };
    let status = tmux
        .attach_command()
        .status()
        .map_err(|error| Error::new(ErrorKind::Session, error))?;
    if status.success() {
        Ok(())
    } else {
        Err(Error::msg(
            ErrorKind::Session,
            format!("`tmux attach` failed: {status}"),
        ))
    }
}

fn stop(settings: &Settings, name: &str) -> Result<(), Error> {
    let (layout, paths) = layout(settings, name);
    supervisor::check_runtime(&layout)?;
    let Some(record) = supervisor::read_record(&paths) else {
        return Err(SessionError::NotRunning(name.to_owned()).into());
    };
    if supervisor::is_running(&record, &paths) {
        let asked = Client::connect(&paths.approvals, name)
            .and_then(|mut client| client.request(&json!({"op": "stop"})));
        // A supervisor that does not answer is left alone: stopping it by
        // force here could leave the agent half-answered behind a frozen TUI.
        if let Err(error @ SessionError::Unresponsive { .. }) = asked {
            return Err(error.into());
        }
        let deadline = Instant::now() + STOP_DEADLINE;
        while supervisor::is_running(&record, &paths) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        if supervisor::is_running(&record, &paths) {
            crate::process::group::terminate_group(record.pid);
        }
    } else {
        output::say(
            settings.quiet,
            format_args!("note: the supervisor of session `{name}` was gone; cleaning up"),
        );
    }
    supervisor::clean_up(
        &record,
        &paths,
        tmux::find(settings.options.path.as_deref()).ok().as_deref(),
    );
    output::say(settings.quiet, format_args!("session `{name}` stopped"));
    Ok(())
}

fn list(settings: &Settings, global: &GlobalArgs, json: bool) -> Result<(), Error> {
    let names = crate::launch::profile::layout::session_names(&settings.project);
    let mut rows = Vec::new();
    for name in &names {
        recover_or_note(settings, global, name);
        let (_, paths) = layout(settings, name);
        let Some(record) = supervisor::read_record(&paths) else {
            continue;
        };
        let state = match supervisor::is_running(&record, &paths) {
            // Said once: the record forgets it.
            true if record.recovered => {
                let seen = supervisor::Record {
                    recovered: false,
                    ..record.clone()
                };
                let _ = supervisor::write_record(&paths.record, &seen);
                "recovered"
            }
            true => "running",
            false => "stale",
        };
        rows.push(json!({
            "name": name,
            "kind": "tui",
            "state": state,
            "pid": record.pid,
            "adapter": record.adapter,
            "cliVersion": record.cli_version,
            "startedAt": record.started_at,
        }));
    }
    for (name, record, status) in super::run_kept::listed(settings, &names) {
        let status = status.as_ref();
        rows.push(json!({
            "name": name,
            "kind": "kept",
            "state": if status.is_some_and(|status| status.serving) { "in a turn" } else { "kept" },
            "pid": record.pid,
            "adapter": record.adapter,
            "cliVersion": record.cli_version,
            "startedAt": record.started_at,
            "agentPid": status.and_then(|status| status.agent_pid),
            "turns": status.map(|status| status.turns),
            "idleSeconds": status.and_then(|status| status.idle_seconds),
            "queued": status.map(|status| status.queued),
        }));
    }
    if json {
        return Ok(output::print_json(&rows)?);
    }
    if rows.is_empty() {
        output::say(settings.quiet, "no session is running");
    }
    for row in &rows {
        let text = format!(
            "{}\t{} {}\tpid {}\t{} {}\tsince {}\n",
            row["name"].as_str().unwrap_or_default(),
            row["kind"].as_str().unwrap_or_default(),
            row["state"].as_str().unwrap_or_default(),
            row["pid"],
            row["adapter"].as_str().unwrap_or_default(),
            row["cliVersion"].as_str().unwrap_or_default(),
            row["startedAt"].as_str().unwrap_or_default()
        );
        output::print_text(&output::sanitize(&text))?;
    }
    Ok(())
}

/// A card in `session approvals`: `ID<TAB>STATE<TAB>TITLE[<TAB>(reason)]`,
/// then one indented line for each of the command, the paths and the
/// working folder the request carries, and a last one when the card is not
/// shown whole. The text is card text already: one line per
/// field, nothing invisible.
fn card_line(card: &Card) -> String {
    let mut line = format!("{}\t{}\t{}", card.id, card.state.as_str(), card.title);
    if let Some(reason) = card.reason_line() {
        line.push_str(&format!("\t({reason})"));
    }
    line.push('\n');
    let mut detail = |name: &str, text: &str| line.push_str(&format!("  {name}: {text}\n"));
    if let Some(command) = &card.command {
        detail("command", command);
    }
    for path in &card.paths {
        detail("path", path);
    }
    if let Some(cwd) = &card.cwd {
        detail("in", cwd);
    }
    if !card.complete {
        detail(
            "note",
            "too long to show whole: accept it in the terminal, or decline it here",
        );
    }
    output::sanitize(&line).into_owned()
}

fn approvals(settings: &Settings, name: &str, watch: bool, json: bool) -> Result<(), Error> {
    if !watch {
        let (layout, paths) = layout(settings, name);
        supervisor::check_runtime(&layout)?;
        let listed = live_channel(&layout, &paths, name).and_then(|()| {
            Client::connect(&paths.approvals, name)
                .and_then(|mut client| client.request(&json!({"op": "list"})))
        });
        let cards: Vec<Card> = match listed {
            Ok(reply) => serde_json::from_value(reply["cards"].clone()).unwrap_or_default(),
            Err(error) => history_instead(settings, name, &paths, error)?,
        };
        if json {
            return Ok(output::print_json(&cards)?);
        }
        for card in &cards {
            output::print_text(&card_line(card))?;
        }
        return Ok(());
    }
    let mut client = connect(settings, name)?;
    client.send(&json!({"op": "watch"}))?;
    while let Some(value) = client.next(None)? {
        let Some(card) = card_of(&value) else {
            continue;
        };
        if json {
            output::print_json(&card)?;
        } else {
            output::print_text(&card_line(&card))?;
        }
    }
    Ok(())
}

/// When the supervisor is not running or does not answer: the cards as
/// `cards.jsonl` last recorded them, with a note saying so; else `error`.
fn history_instead(
    settings: &Settings,
    name: &str,
    paths: &SessionPaths,
    error: SessionError,
) -> Result<Vec<Card>, Error> {
    let history = &paths.history;
    let why = match &error {
        SessionError::NotRunning(_) => format!("session `{name}` is not running"),
        SessionError::SupervisorGone(_) | SessionError::Unresponsive { .. } => error.to_string(),
        _ => return Err(error.into()),
    };
    let Some(cards) = crate::session::cards::history::read(&paths.project, history) else {
        return Err(error.into());
    };
    output::say(
        settings.quiet,
        format_args!(
            "note: {why}; these are the cards recorded in `{}`",
            history.display()
        ),
    );
    Ok(cards)
}

fn answer(settings: &Settings, name: &str, card: &str, action: VerdictArg) -> Result<(), Error> {
    let action = match action {
        VerdictArg::Accept => "accept",
        VerdictArg::Decline => "decline",
        VerdictArg::Cancel => "cancel",
    };
    let mut client = connect(settings, name)?;
    let reply = client.request(&json!({"op": "answer", "card": card, "action": action}))?;
    if let Some(error) = reply["error"].as_str() {
        return Err(Error::msg(ErrorKind::Session, output::sanitize(error)));
    }
    let Some(card) = card_of(&reply["card"]) else {
        return Err(Error::msg(
            ErrorKind::Session,
            "the supervisor sent an unreadable reply",
        ));
    };
    match card.state {
        CardState::Delivered | CardState::Accepted | CardState::Declined | CardState::Cancelled => {
            output::say(
                settings.quiet,
                format_args!("card `{}`: {}", card.id, card.state.as_str()),
            );
            Ok(())
        }
        state => {
            let reason = card
                .reason_line()
                .unwrap_or_else(|| state.as_str().replace('_', " "));
            Err(Error::msg(
                ErrorKind::Session,
                format!(
                    "card `{}` was not delivered ({}): {reason}",
                    card.id,
                    state.as_str()
                ),
            ))
        }
    }
}
