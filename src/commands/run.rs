//! `oneworks run ADAPTER`: one prompt through the agent's ACP mode
//! as a structured stream. Resolves the CLI before the runtime
//! (it may download), enters the session's profile world, then hands the
//! run to the ACP client on the tokio runtime.

use std::io::Read;
use std::path::Path;

use super::run_plan;
use crate::acp::client;
use crate::acp::kept::{self, KeptPaths};
use crate::cli::{GlobalArgs, RunArgs};
use crate::error::{Error, ErrorKind};
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::profile::world::{self, Purpose};
use crate::process;
use crate::settings::{Adapter, Settings};

fn read_prompt(args: &RunArgs) -> Result<String, Error> {
    if let Some(text) = &args.prompt {
        return Ok(text.clone());
    }
    let Some(file) = &args.prompt_file else {
        return Err(Error::msg(ErrorKind::Usage, "a prompt is required")
            .with_hint("pass `--prompt TEXT` or `--prompt-file FILE`"));
    };
    if file == Path::new("-") {
        if args.json {
            return Err(Error::msg(
                ErrorKind::Usage,
                "`--prompt-file -` cannot be used with `--json`: stdin carries the permission replies",
            )
            .with_hint("write the prompt to a file and pass its path"));
        }
        return read_bounded(std::io::stdin().lock(), "standard input");
    }
    let opened = fs_err::File::open(file).map_err(|error| Error::new(ErrorKind::Usage, error))?;
    read_bounded(opened, &format!("`{}`", file.display()))
}

/// The longest prompt read from a file or stdin; `/dev/zero` never ends.
const MAX_PROMPT_BYTES: u64 = 1 << 20;

/// Reads a whole prompt of at most [`MAX_PROMPT_BYTES`], never more.
fn read_bounded(reader: impl Read, source: &str) -> Result<String, Error> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_PROMPT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| {
            Error::msg(
                ErrorKind::Usage,
                format!("failed to read the prompt from {source}: {error}"),
            )
        })?;
    if bytes.len() as u64 > MAX_PROMPT_BYTES {
        return Err(Error::msg(
            ErrorKind::Usage,
            format!("the prompt in {source} is over the limit of 1 MiB"),
        )
        .with_hint("shorten the prompt, or put the material in a file the agent can read"));
    }
    String::from_utf8(bytes).map_err(|_| {
        Error::msg(
            ErrorKind::Usage,
            format!("the prompt in {source} is not UTF-8 text"),
        )
    })
}

pub fn run(
    settings: &Settings,
    adapter: &Adapter,
    global: &GlobalArgs,
    args: &RunArgs,
) -> Result<(), Error> {
    let handshake_timeout = settings.options.handshake_timeout;
    let prompt = read_prompt(args)?;
    if prompt.trim().is_empty() {
        return Err(Error::msg(ErrorKind::Usage, "the prompt is empty"));
    }
    refuse_interactive_login_setting(adapter)?;
    let layout = ProfileLayout::new(
        &settings.project,
        &settings.locations,
        &args.session,
        &adapter.data.id,
    );
    crate::session::supervisor::check_runtime(&layout)?;
    refuse_a_tui_sessions_name(&layout, &args.session)?;
    let kept = KeptPaths::new(&layout);
    let keep = args.keep.filter(|keep| !keep.is_zero());
    // Twice at most: an owner that ends before this prompt's turn leaves
    // the name free, and the run starts afresh.
    for _ in 0..2 {
        let living = kept::living(&kept);
        if living.is_none() && keep.is_none() {
            break;
        }
        let reached = super::run_kept::run(
            settings,
            adapter,
            global,
            args,
            super::run_kept::Kept {
                layout: layout.clone(),
                paths: kept.clone(),
                living,
                prompt: prompt.clone(),
                handshake_timeout,
            },
        )?;
        if let super::run_kept::Reached::Ran = reached {
            return Ok(());
        }
    }
    let cli = crate::launch::resolve::resolve_for_launch(&super::resolver(adapter))?;
    let mut world = world::enter(
        &settings.world(adapter),
        &args.session,
        &cli.version,
        Purpose::Acp,
    )?;
    world.use_runtime(cli.runtime_path.as_deref());
    let spec = run_plan::acp_spec(&world, adapter, &cli.version, &cli.path);
    let environment =
        crate::env_options::environment::Environment::from_pairs(world.environment.iter());
    let plan = run_plan::run_plan(
        settings,
        adapter,
        args,
        prompt,
        run_plan::session_plan(
            adapter,
            args,
            &world.layout,
            &world.scrubber,
            environment,
            handshake_timeout,
        ),
        &world.layout,
    );
    let runtime = process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let result = runtime.block_on(client::run(plan, spec));
    // Threads blocked on stdin or a terminal prompt must not hold the exit.
    runtime.shutdown_background();
    drop(world);
    result.map_err(Error::from)
}

/// One name is one session: a run (kept or not) does not take the name of
/// a TUI session whose agent runs — its profile world, temp HOME included,
/// is that agent's.
fn refuse_a_tui_sessions_name(layout: &ProfileLayout, name: &str) -> Result<(), Error> {
    use crate::session::supervisor::{self, SessionPaths};
    let paths = SessionPaths::new(layout);
    let Some(record) = supervisor::read_record(&paths) else {
        return Ok(());
    };
    if supervisor::is_running(&record, &paths) || supervisor::adopt::tmux_alive(&record, &paths) {
        return Err(Error::msg(
            ErrorKind::Session,
            format!(
                "session `{name}` is a TUI session of `{}` (`session start`)",
                record.adapter
            ),
        )
        .with_hint(format!(
            "use another --session, or end it with `oneworks session stop {name}`"
        )));
    }
    Ok(())
}

/// A login method that needs a person at a terminal must not reach an ACP
/// run through the settings file either (`configContent` setting the
/// adapter's login-method key, e.g. Gemini's `security.auth.selectedType:
/// oauth-personal`): the agent would take over its stdio to ask for it.
fn refuse_interactive_login_setting(adapter: &Adapter) -> Result<(), Error> {
    let data = &adapter.data;
    let (Some(auth), Some(content)) = (&data.session.auth, &adapter.config.config_content) else {
        return Ok(());
    };
    let key = &auth.settings_key;
    // Flat (`a.b.c: x`) or nested (`a: {b: {c: x}}`).
    let nested = || {
        let mut parts = key.split('.');
        let first = content.get(parts.next()?)?;
        parts.try_fold(first, |value, part| value.get(part))
    };
    let value = content.get(key.as_str()).or_else(nested);
    match value.and_then(|value| value.as_str()) {
        Some(method) if data.acp.is_interactive_auth(method) => Err(Error::msg(
            ErrorKind::Config,
            format!(
                "`adapters.{}.configContent` sets `{key}` to `{}`, a login that needs a person at a terminal: it is never used over ACP",
                data.id,
                crate::output::sanitize::sanitize_line(method)
            ),
        )
        .with_hint(format!(
            "log in once with `oneworks adapter login {}`, or set a credential variable ({})",
            data.id,
            data.credentials.names.join(", ")
        ))),
        _ => Ok(()),
    }
}
