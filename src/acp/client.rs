//! One structured run from start to exit: starts `kiro-cli acp` through the
//! child-process seam, runs setup and the turn on the message loop, then
//! stops Kiro (politely, or at once after a second interrupt) and turns an
//! agent that died into an error carrying the tail of its stderr.

use std::time::Duration;

use super::channel::ChannelKind;
use super::events::Sink;
use super::permissions::policy::Mode;
use super::permissions::rules::Rules;
use super::setup::{self, SessionPlan};
use super::turn::Turn;
use super::AcpError;
use crate::process::child::{ManagedChild, StopBounds, Stopped};
use crate::process::signals::Interrupts;
use crate::process::spec::ChildSpec;

/// Everything a run needs, resolved by the command.
pub struct RunPlan<'a> {
    pub spec: ChildSpec,
    pub session: SessionPlan<'a>,
    pub prompt: String,
    pub mode: Mode,
    pub rules: Rules,
    pub rule_notes: Vec<String>,
    pub json: bool,
    pub timeout: Option<Duration>,
}

pub async fn run(plan: RunPlan<'_>) -> Result<(), AcpError> {
    // Whatever way the run ends, a terminal prompt's raw mode ends with it.
    let _terminal = crate::process::terminal::RestoreOnDrop;
    let mut interrupts = Interrupts::install().map_err(AcpError::Io)?;
    let program = plan.spec.program.display().to_string();
    let mut child = ManagedChild::spawn(&plan.spec, "kiro-cli acp")
        .map_err(|source| AcpError::Spawn { program, source })?;
    let (Some(stdin), Some(stdout)) = (child.take_stdin(), child.take_stdout()) else {
        return Err(AcpError::Io(std::io::Error::other(
            "the agent's pipes are missing",
        )));
    };
    let channel = ChannelKind::detect(plan.json);
    let mut turn = Turn::new(
        stdin,
        stdout,
        Sink::new(plan.json),
        channel,
        &mut interrupts,
        plan.mode,
        plan.rules,
        plan.session.scrubber,
        plan.session.data,
        plan.timeout,
    );
    let result = drive(&mut turn, &plan.session, &plan.rule_notes, &plan.prompt).await;
    let kill_now = turn.kill_now;
    let (stdin, reader) = turn.into_parts();
    drop(stdin);
    // Whatever Kiro still says is read and dropped: it creates nothing.
    let drain = tokio::spawn(drain(reader));
    if kill_now {
        child.kill_now();
    }
    let bounds = StopBounds::with_grace(Duration::from_millis(plan.session.data.stop_grace_ms));
    // An interrupt while Kiro is being stopped kills its group at once.
    let stopped = child.stop_unless(bounds, interrupts.recv()).await;
    drain.abort();
    let result = match (&stopped, result) {
        (Ok(Stopped::Interrupted(_)), Ok(())) => Err(AcpError::Interrupted),
        (_, result) => result,
    };
    match result {
        Err(AcpError::AgentGone { when, .. }) => {
            let status = match stopped {
                Ok(stopped) => format!(" ({})", stopped.status()),
                Err(_) => String::new(),
            };
            let tail = child.stderr_tail().await;
            let tail = if tail.trim().is_empty() {
                String::new()
            } else {
                format!("; the last lines of its stderr:\n{tail}")
            };
            Err(AcpError::AgentGone {
                when: format!("{when}{status}"),
                tail,
            })
        }
        other => other,
    }
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
) -> Result<(), AcpError> {
    let emit_failed = AcpError::Output;
    for note in rule_notes {
        turn.sink.diagnostic(note.clone()).map_err(emit_failed)?;
    }
    let capabilities = setup::initialize(turn).await?;
    let (session_id, resumed, session) = setup::open_session(turn, &capabilities, plan).await?;
    let (model, effort) = setup::apply_model_and_effort(turn, plan, &session_id, &session).await?;
    turn.sink
        .emit(&setup::started(session_id.clone(), resumed, model, effort))
        .map_err(emit_failed)?;
    turn.prompt(&session_id, prompt).await
}
