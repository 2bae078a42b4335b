//! `oneworks run kiro`: one prompt through `kiro-cli acp --agent oneworks`
//! as a structured stream (SPEC §7). Resolves the CLI before the runtime
//! (it may download), enters the session's profile world, then hands the
//! run to the ACP client on the tokio runtime.

use std::io::Read;
use std::path::Path;

use crate::acp::client::{self, RunPlan};
use crate::acp::permissions::rules::Rules;
use crate::acp::session_cache::SessionCache;
use crate::acp::setup::SessionPlan;
use crate::cli::RunArgs;
use crate::error::{Error, ErrorKind};
use crate::process;
use crate::profile::world::{self, Purpose};
use crate::settings::Settings;

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
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| {
                Error::msg(
                    ErrorKind::Usage,
                    format!("failed to read the prompt from stdin: {error}"),
                )
            })?;
        return Ok(text);
    }
    fs_err::read_to_string(file).map_err(|error| Error::new(ErrorKind::Usage, error))
}

pub fn run(settings: &Settings, args: &RunArgs) -> Result<(), Error> {
    let prompt = read_prompt(args)?;
    if prompt.trim().is_empty() {
        return Err(Error::msg(ErrorKind::Usage, "the prompt is empty"));
    }
    let cli = crate::adapter::resolve::resolve_for_launch(settings)?;
    let world = world::enter(settings, &args.session, &cli.version, Purpose::Acp)?;
    let data = &settings.data;
    let spec = world
        .child(&cli.path)
        .args(&data.acp.command)
        .arg(&data.session.agent_name);
    let kiro = &settings.config.config.adapters.kiro;
    let dot_dir = settings
        .project
        .initialized
        .then(|| settings.project.dot_dir());
    let (rules, rule_notes) = Rules::load(
        &settings.locations.data_home,
        &settings.project.root,
        dot_dir.as_deref(),
    );
    let plan = RunPlan {
        spec,
        session: SessionPlan {
            data: &data.acp,
            cwd: world.layout.project.clone(),
            resume: args.resume,
            cache: SessionCache::new(&world.layout.root),
            scrubber: &world.scrubber,
            kiro,
            additional_dirs: kiro
                .additional_dirs
                .iter()
                .map(|dir| dir.0.clone())
                .collect(),
            environment: crate::locations::Environment::from_pairs(world.environment.iter()),
            model: args.model.clone(),
            effort: args.effort.clone(),
        },
        prompt,
        mode: args.mode,
        rules,
        rule_notes,
        json: args.json,
        timeout: args.timeout,
    };
    let runtime = process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let result = runtime.block_on(client::run(plan));
    // Threads blocked on stdin or a terminal prompt must not hold the exit.
    runtime.shutdown_background();
    drop(world);
    result.map_err(Error::from)
}
