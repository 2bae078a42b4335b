//! One structured run from start to exit: starts the agent's ACP mode
//! through the child-process seam, runs setup and the turn on the message
//! loop, then stops the agent (politely, or at once after a second
//! interrupt) and turns an
//! agent that died (or stalled the handshake) into an error carrying the
//! tail of its stderr. A setup failure is an `error` event too, like a
//! failed turn.

use std::time::Duration;

use super::answer_input::ChannelKind;
use super::events::{Event, Sink};
use super::permissions::decide::Mode;
use super::permissions::remembered::Rules;
use super::quirks::Quirks;
use super::setup::{self, SessionPlan};
use super::turn::Turn;
use super::AcpError;
use crate::process::child::{ManagedChild, StopBounds, Stopped};
use crate::process::interrupts::Interrupts;
use crate::process::spec::ChildSpec;

/// Everything a run needs, resolved by the command.
pub struct RunPlan<'a> {
    /// The adapter's id (hints name it).
    pub adapter: String,
    /// The adapter's display name (prompts name it).
    pub display_name: String,
    pub session: SessionPlan<'a>,
    pub prompt: String,
    pub mode: Mode,
    pub rules: Rules,
    pub rule_notes: Vec<String>,
    /// The written policy and the decision record.
    pub decisions: super::permissions::decision_log::DecisionPlan,
    pub json: bool,
    pub timeout: Option<super::RunTimeout>,
}

pub async fn run(mut plan: RunPlan<'_>, spec: ChildSpec) -> Result<(), AcpError> {
    // Whatever way the run ends, a terminal prompt's raw mode ends with it.
    let _terminal = crate::process::terminal::RestoreOnDrop;
    let mut interrupts = Interrupts::install().map_err(AcpError::Io)?;
    let rules = std::mem::take(&mut plan.rules);
    let rule_notes = std::mem::take(&mut plan.rule_notes);
    let (result, rules) = attempt(&plan, &spec, rules, &rule_notes, &mut interrupts).await;
    match result {
        // An agent that exits instead of answering `session/load` (some do,
        // for a session they no longer have) has nothing to resume:
        // `--resume` means "resume when possible", so start it again
        // without it, once, and say so.
        Err(AcpError::GoneOnLoad { when }) if plan.session.resume => {
            plan.session.resume = false;
            Sink::new(plan.json)
                .diagnostic(format!(
                    "--resume: the agent ended {when} instead of answering it (it cannot load the cached session); starting it again with a new session"
                ))
                .map_err(AcpError::Output)?;
            attempt(&plan, &spec, rules, &[], &mut interrupts).await.0
        }
        other => other,
    }
}

/// A turn of a kept session: the prompt waits in the owner's
/// queue, then runs over the owner's socket exactly as a one-shot run
/// runs over the agent's stdio; closing the connection hands the agent
/// back. The agent is neither started nor stopped here.
pub async fn run_kept(
    mut plan: RunPlan<'_>,
    connection: super::kept::caller::OwnerConnection,
    keep: Option<Duration>,
) -> Result<(), AcpError> {
    let _terminal = crate::process::terminal::RestoreOnDrop;
    let mut interrupts = Interrupts::install().map_err(AcpError::Io)?;
    let mut sink = Sink::new(plan.json);
    let mut told = Ok(());
    let queued = |ahead: usize| {
        if told.is_ok() {
            told = sink.diagnostic(format!(
                "kept session: waiting for {ahead} turn(s) before this one"
            ));
        }
    };
    let (grant, stream) = tokio::select! {
        granted = connection.turn(keep, queued) => granted?,
        // Nothing was sent to the agent yet: leaving the queue is enough.
        _ = interrupts.recv() => return Err(AcpError::Interrupted),
    };
    told.map_err(AcpError::Output)?;
    let quirks = super::quirks::by_name(&plan.session.data.quirks)
        .map_err(|error| setup_failed(&mut Sink::new(plan.json), error.into()))?;
    let (reader, writer) = stream.into_split();
    let mut turn = Turn::new(
        Box::new(writer),
        Box::new(reader),
        Sink::new(plan.json),
        ChannelKind::detect(plan.json),
        &mut interrupts,
        plan.mode,
        std::mem::take(&mut plan.rules),
        plan.session.scrubber,
        plan.session.data,
        quirks,
        plan.display_name.clone(),
        plan.timeout.clone(),
    );
    turn.relayed = Some(grant.cancel_token.clone());
    turn.follow(plan.decisions.clone());
    let mut in_setup = true;
    let result = if grant.handshake {
        if grant.recovered {
            plan.session.resume = true;
            turn.sink
                .diagnostic(
                    "kept session: the agent had ended; it was started again and loads its session",
                )
                .map_err(AcpError::Output)?;
        }
        drive(
            &mut turn,
            &plan.session,
            &plan.rule_notes,
            &plan.prompt,
            &mut in_setup,
        )
        .await
    } else {
        follow_up(&mut turn, &plan, grant, &mut in_setup).await
    };
    match result {
        Err(error) if in_setup => Err(setup_failed(&mut turn.sink, error)),
        other => other,
    }
}

/// The next turn of the kept agent session: no handshake, the model and
/// effort set when asked, then the prompt.
async fn follow_up(
    turn: &mut Turn<'_>,
    plan: &RunPlan<'_>,
    grant: super::kept::protocol::Grant,
    in_setup: &mut bool,
) -> Result<(), AcpError> {
    let (Some(session_id), Some(session)) = (grant.session_id, grant.session) else {
        return Err(AcpError::Malformed {
            method: "the kept session's grant".to_owned(),
            what: "the agent session".to_owned(),
        });
    };
    turn.session_id = Some(session_id.clone());
    for note in &plan.rule_notes {
        turn.sink
            .diagnostic(note.clone())
            .map_err(AcpError::Output)?;
    }
    let (model, effort) =
        setup::apply_model_and_effort(turn, &plan.session, &session_id, &session).await?;
    turn.sink
        .emit(&setup::started(session_id.clone(), true, model, effort))
        .map_err(AcpError::Output)?;
    *in_setup = false;
    turn.prompt(&session_id, &plan.prompt).await
}

/// One start of the agent: setup and the turn, then the agent stopped.
/// The permission rules come back for a second start.
async fn attempt(
    plan: &RunPlan<'_>,
    spec: &ChildSpec,
    rules: Rules,
    rule_notes: &[String],
    interrupts: &mut Interrupts,
) -> (Result<(), AcpError>, Rules) {
    match attempt_inner(plan, spec, rules, rule_notes, interrupts).await {
        Ok(outcome) => outcome,
        Err(error) => (Err(error), Rules::default()),
    }
}

async fn attempt_inner(
    plan: &RunPlan<'_>,
    spec: &ChildSpec,
    rules: Rules,
    rule_notes: &[String],
    interrupts: &mut Interrupts,
) -> Result<(Result<(), AcpError>, Rules), AcpError> {
    let StartedAgent {
        mut child,
        stdin,
        stdout,
        quirks,
    } = start_agent(plan, spec)?;
    let channel = ChannelKind::detect(plan.json);
    let mut turn = Turn::new(
        stdin,
        stdout,
        Sink::new(plan.json),
        channel,
        interrupts,
        plan.mode,
        rules,
        plan.session.scrubber,
        plan.session.data,
        quirks,
        plan.display_name.clone(),
        plan.timeout.clone(),
    );
    turn.follow(plan.decisions.clone());
    let mut in_setup = true;
    let result = drive(
        &mut turn,
        &plan.session,
        rule_notes,
        &plan.prompt,
        &mut in_setup,
    )
    .await;
    let rules = turn.take_rules();
    let kill_now = turn.kill_now;
    let mut sink = std::mem::replace(&mut turn.sink, Sink::new(plan.json));
    let (stdin, reader) = turn.into_parts();
    drop(stdin);
    let grace = Duration::from_millis(plan.session.data.stop_grace_ms);
    let stopped = stop_agent(&mut child, reader, kill_now, grace, interrupts).await;
    let result = match (&stopped, result) {
        (Ok(Stopped::Interrupted(_)), Ok(())) => Err(AcpError::Interrupted),
        (_, result) => result,
    };
    let result = with_exit_details(result, stopped, &mut child).await;
    let result = match result {
        // Not a failure yet: the run starts the agent again.
        Err(error @ AcpError::GoneOnLoad { .. }) if plan.session.resume => Err(error),
        Err(error) if in_setup => Err(setup_failed(&mut sink, error)),
        other => other,
    };
    Ok((result, rules))
}

/// The agent's process and its pipes, with the quirks of its dialect.
struct StartedAgent {
    child: ManagedChild,
    stdin: super::turn::AgentWriter,
    stdout: super::turn::AgentReader,
    quirks: &'static dyn Quirks,
}

/// Looks up the adapter's quirks, spawns the agent and takes its pipes; an
/// unknown quirk module or a failed spawn is a setup failure.
fn start_agent(plan: &RunPlan<'_>, spec: &ChildSpec) -> Result<StartedAgent, AcpError> {
    let quirks = match super::quirks::by_name(&plan.session.data.quirks) {
        Ok(quirks) => quirks,
        Err(error) => return Err(setup_failed(&mut Sink::new(plan.json), error.into())),
    };
    let program = spec.program.display().to_string();
    let label = format!("{} acp", plan.adapter);
    let spawned = ManagedChild::spawn(spec, label).map_err(|source| AcpError::Spawn {
        program,
        adapter: plan.adapter.clone(),
        source,
    });
    let mut child = match spawned {
        Ok(child) => child,
        Err(error) => return Err(setup_failed(&mut Sink::new(plan.json), error)),
    };
    let (Some(stdin), Some(stdout)) = (child.take_stdin(), child.take_stdout()) else {
        return Err(AcpError::Io(std::io::Error::other(
            "the agent's pipes are missing",
        )));
    };
    Ok(StartedAgent {
        child,
        stdin: Box::new(stdin),
        stdout: Box::new(stdout),
        quirks,
    })
}

/// Stops the agent (its stdin already closed): at once when the turn asked
/// for it, else politely within `grace`; an interrupt meanwhile kills its
/// group at once.
async fn stop_agent(
    child: &mut ManagedChild,
    reader: super::turn::Reader,
    kill_now: bool,
    grace: Duration,
    interrupts: &mut Interrupts,
) -> std::io::Result<Stopped> {
    // Whatever the agent still says is read and dropped: it creates nothing.
    let drain = tokio::spawn(drain(reader));
    if kill_now {
        child.kill_now();
    }
    let bounds = StopBounds::with_grace(grace);
    // An interrupt while the agent is being stopped kills its group at once.
    let stopped = child.stop_unless(bounds, interrupts.recv()).await;
    drain.abort();
    stopped
}

/// An agent that died or stalled the handshake: its error gains how the
/// agent ended and, where the error shows it, the tail of its stderr.
async fn with_exit_details(
    result: Result<(), AcpError>,
    stopped: std::io::Result<Stopped>,
    child: &mut ManagedChild,
) -> Result<(), AcpError> {
    match result {
        Err(AcpError::AgentGone { when, .. }) => Err(AcpError::AgentGone {
            when: format!("{when}{}", exit_status_note(stopped)),
            tail: stderr_tail(child).await,
        }),
        Err(AcpError::GoneOnLoad { when }) => Err(AcpError::GoneOnLoad {
            when: format!("{when}{}", exit_status_note(stopped)),
        }),
        Err(AcpError::HandshakeTimeout { step, limit, .. }) => Err(AcpError::HandshakeTimeout {
            step,
            limit,
            tail: stderr_tail(child).await,
        }),
        other => other,
    }
}

/// ` (<exit status>)` when the stop saw one, else nothing.
fn exit_status_note(stopped: std::io::Result<Stopped>) -> String {
    match stopped {
        Ok(stopped) => format!(" ({})", stopped.status()),
        Err(_) => String::new(),
    }
}

/// The agent's stderr tail as the end of a message (empty when silent).
async fn stderr_tail(child: &mut ManagedChild) -> String {
    let tail = child.stderr_tail().await;
    if tail.trim().is_empty() {
        String::new()
    } else {
        format!("; the last lines of its stderr:\n{tail}")
    }
}

/// A failure before the prompt: an `error` event (with `--json`; human mode
/// prints errors once, at the command edge), then the error itself.
fn setup_failed(sink: &mut Sink, error: AcpError) -> AcpError {
    if matches!(error, AcpError::Output(_)) {
        return error;
    }
    // The message with its causes, as the final error document has it.
    let message = crate::error::message(&error);
    let event = Event::Error {
        kind: crate::error::Classify::kind(&error).as_str().to_owned(),
        message,
    };
    // The error itself matters more than a closed stdout here.
    let _ = sink.emit(&event);
    error
}

async fn drain(mut reader: super::turn::Reader) {
    while let Ok(Some(_)) = reader.next_line().await {
        tracing::debug!("ignored a message after the turn ended");
    }
}

async fn drive(
    turn: &mut Turn<'_>,
    plan: &SessionPlan<'_>,
    rule_notes: &[String],
    prompt: &str,
    in_setup: &mut bool,
) -> Result<(), AcpError> {
    let emit_failed = AcpError::Output;
    for note in rule_notes {
        turn.sink.diagnostic(note.clone()).map_err(emit_failed)?;
    }
    let handshake = setup::initialize(turn, plan).await?;
    setup::authenticate(turn, plan, &handshake).await?;
    let (session_id, resumed, session) = setup::open_session(turn, &handshake, plan).await?;
    let (model, effort) = setup::apply_model_and_effort(turn, plan, &session_id, &session).await?;
    turn.sink
        .emit(&setup::started(session_id.clone(), resumed, model, effort))
        .map_err(emit_failed)?;
    // From here a failure is the turn's, reported by the turn itself.
    *in_setup = false;
    turn.prompt(&session_id, prompt).await
}
