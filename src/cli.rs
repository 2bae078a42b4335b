//! Command-line types (clap). They hold no logic: `settings` resolves them
//! with the config and environment, `commands` acts on the result.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::error::ErrorKind;
pub use crate::launch::profile::layout::parse_session_name;

mod values;
use values::{parse_adapter_name, parse_keep};
pub use values::{parse_timeout, ValueError};

mod hidden;
pub use hidden::{KeepArgs, SuperviseArgs};

#[derive(Debug, Parser)]
#[command(
    name = "oneworks",
    version,
    about = "Install, configure and supervise vendor coding-agent CLIs",
    long_about = "Install, configure and supervise vendor coding-agent CLIs.\n\n\
        Each agent CLI is an adapter (`oneworks adapter list`). `oneworks adapter prepare ADAPTER` \
        resolves a verified CLI; `oneworks config render ADAPTER` writes the isolated \
        world a session gets from `.oneworks/config.yaml`.",
    after_help = "Exit codes: 0 ok, 1 internal, 2 usage, 3 config, 4 network, 5 checksum, \
        6 unsafe content, 7 no usable agent CLI, 8 install-lock timeout, 9 agent failed, 10 permission refused, 11 session, 130 interrupted."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Use this config file instead of the project's `.oneworks/config.yaml`
    /// [env: ONEWORKS_CONFIG]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print only errors
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more detail (repeat for debug logs)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Never draw progress bars
    #[arg(long, global = true)]
    pub no_progress: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install, inspect and manage adapter CLIs
    #[command(subcommand)]
    Adapter(AdapterCommand),
    /// Check and render configuration
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Run one prompt through an agent over ACP and stream its events
    Run(RunArgs),
    /// Supervised agent TUI sessions whose approvals can be answered from elsewhere
    #[command(subcommand)]
    Session(SessionCommand),
    /// Print shell completions to stdout
    Completions {
        /// The shell to generate completions for
        shell: clap_complete::Shell,
    },
}

/// An adapter's name: a built-in one or one whose data file is
/// in `ONEWORKS_ADAPTERS_DIR`. Its form is checked here; whether it is
/// known, when the command resolves it (a usage error listing the known
/// ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterName(pub String);

impl AdapterName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Subcommand)]
pub enum AdapterCommand {
    /// Resolve a verified agent CLI: install the managed version, or check the system/path one
    Prepare(PrepareArgs),
    /// Show which CLI would be used, and why other candidates were skipped
    Status {
        /// The adapter (`adapter list` shows them all)
        #[arg(value_name = "ADAPTER", value_parser = parse_adapter_name)]
        adapter: AdapterName,
        /// Print one JSON document on stdout
        #[arg(long)]
        json: bool,
    },
    /// List adapters and their installed versions
    List {
        /// Print one JSON document on stdout
        #[arg(long)]
        json: bool,
    },
    /// Run the agent's own login inside a session profile
    Login {
        /// The adapter (`adapter list` shows them all)
        #[arg(value_name = "ADAPTER", value_parser = parse_adapter_name)]
        adapter: AdapterName,
        /// Session whose profile receives the login
        #[arg(long, default_value = "default", value_parser = parse_session_name)]
        session: String,
    },
    /// Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)
    Prune {
        /// The adapter (`adapter list` shows them all)
        #[arg(value_name = "ADAPTER", value_parser = parse_adapter_name)]
        adapter: AdapterName,
        /// How many of the newest versions to keep
        #[arg(long, default_value_t = 1)]
        keep: usize,
    },
}

#[derive(Debug, Args)]
pub struct PrepareArgs {
    /// The adapter (`adapter list` shows them all)
    #[arg(value_name = "ADAPTER", value_parser = parse_adapter_name)]
    pub adapter: AdapterName,
    /// Make no network request: use an installed version or fail (exit 7)
    #[arg(long, conflicts_with = "force")]
    pub offline: bool,
    /// Download and install again even if the version is installed
    #[arg(long)]
    pub force: bool,
    /// Install exactly the artifact recorded in `.oneworks/<adapter>.lock`
    #[arg(long)]
    pub locked: bool,
    /// Print one JSON document on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("input").required(true).args(["prompt", "prompt_file"]))]
pub struct RunArgs {
    /// The adapter (`adapter list` shows them all)
    #[arg(value_name = "ADAPTER", value_parser = parse_adapter_name)]
    pub adapter: AdapterName,
    /// The prompt text
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// Read the prompt from FILE (`-`: stdin; not with --json, whose stdin carries replies)
    #[arg(long, value_name = "FILE")]
    pub prompt_file: Option<PathBuf>,
    /// Session name (its profile and cached agent session)
    #[arg(long, default_value = "default", value_parser = parse_session_name)]
    pub session: String,
    /// Continue the session's last agent session when the agent can load it
    #[arg(long)]
    pub resume: bool,
    /// Permission policy
    #[arg(long, value_enum, default_value_t = ModeArg::Default)]
    pub mode: ModeArg,
    /// Model id (must be one the session advertises)
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// Reasoning effort (must be one the session advertises)
    #[arg(long, value_name = "E")]
    pub effort: Option<String>,
    /// Cancel the turn after this long (`90s`, `10m`)
    #[arg(long, value_name = "DUR", value_parser = parse_timeout)]
    pub timeout: Option<crate::acp::RunTimeout>,
    /// JSON lines: events on stdout, permission replies on stdin
    #[arg(long)]
    pub json: bool,
    /// Trust the project folder for agents that gate features on folder trust (a decision for you, never a repository's config)
    #[arg(long)]
    pub trust_workspace: bool,
    /// Keep the agent running after the turn, idle for DUR (default 10m; `0`: not kept): later runs of this --session reach it
    #[arg(long, value_name = "DUR", num_args = 0..=1, default_missing_value = "10m", value_parser = parse_keep)]
    pub keep: Option<std::time::Duration>,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored
    Check,
    /// Trust the project's config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes
    #[command(
        long_about = "Trust the project's `.oneworks/config.yaml` (or the file named by --config).\n\n\
            A project's config arrives with a clone, so until you trust it oneworks ignores \
            its keys that run code or move credentials (hooks, MCP servers with a command, \
            passEnv, cli.path, paths outside the project, webhooks) and every key of \
            configContent and agentConfig that the adapter does not list as safe (an \
            agent's settings can run commands or send credentials). \
            Read the file first. oneworks records its real path and the sha256 of its bytes \
            in its own data folder (never in the project); editing the file untrusts it \
            until you trust it again. Your own config and --config files outside the \
            project tree are trusted without asking; a --config file inside it is the \
            project's, wherever it sits."
    )]
    Trust,
    /// Forget that the project's config file (or --config FILE) was trusted
    #[command(
        long_about = "Forget that the project's `.oneworks/config.yaml` (or the file named by \
            --config) was trusted: its record is removed from oneworks' data folder, and its \
            keys that run code or move credentials are ignored again."
    )]
    Untrust,
    /// Write (or with --dry-run print) the agent world a session gets
    Render {
        /// The adapter (`adapter list` shows them all)
        #[arg(value_name = "ADAPTER", value_parser = parse_adapter_name)]
        adapter: AdapterName,
        /// Session name
        #[arg(long, default_value = "default", value_parser = parse_session_name)]
        session: String,
        /// Print what would be written instead of writing it
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Start the agent's TUI in a supervised tmux session (and attach, unless --detach)
    Start {
        /// The adapter (`adapter list` shows them all)
        #[arg(value_name = "ADAPTER", value_parser = parse_adapter_name)]
        adapter: AdapterName,
        /// Session name
        #[arg(long, default_value = "default", value_parser = parse_session_name)]
        name: String,
        /// The agent's working folder (not the project)
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Return at once instead of attaching this terminal
        #[arg(long)]
        detach: bool,
        /// Trust the project folder for agents that gate features on folder trust (a decision for you, never a repository's config)
        #[arg(long)]
        trust_workspace: bool,
    },
    /// List the sessions of this project and whether their supervisor runs
    List {
        /// Print one JSON document on stdout
        #[arg(long)]
        json: bool,
    },
    /// Attach this terminal to a running session's TUI
    Attach {
        /// Session name (as given to `session start --name`; see `session list`)
        #[arg(value_parser = parse_session_name)]
        name: String,
    },
    /// End the agent and the supervisor of a session
    Stop {
        /// Session name (as given to `session start --name`; see `session list`)
        #[arg(value_parser = parse_session_name)]
        name: String,
    },
    /// List (or with --watch stream) a session's approval cards
    Approvals {
        /// Session name (as given to `session start --name`; see `session list`)
        #[arg(value_parser = parse_session_name)]
        name: String,
        /// Keep streaming card changes
        #[arg(long)]
        watch: bool,
        /// JSON output (an array; JSON lines with --watch)
        #[arg(long)]
        json: bool,
    },
    /// Answer an approval card and wait until the verdict is delivered
    Answer {
        /// Session name (as given to `session start --name`; see `session list`)
        #[arg(value_parser = parse_session_name)]
        name: String,
        /// The card id (from `session approvals`)
        card: String,
        action: VerdictArg,
    },
    /// Serve a page (and a JSON API) to answer every session's approvals from a browser
    Serve {
        /// Address to listen on; a non-loopback one must be carried over a tunnel or TLS proxy
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
        listen: std::net::SocketAddr,
        /// The URL this server is reached at from outside (adds `answer_url` to webhook POSTs)
        #[arg(long, value_name = "URL")]
        public_url: Option<url::Url>,
        /// Also open the page in the default browser
        #[arg(long)]
        open: bool,
        /// Print the URL as one JSON document
        #[arg(long)]
        json: bool,
    },
    /// Cancel the turn in progress of a kept session (`run --keep`), from any process
    Cancel {
        /// Session name (as given to `run --session`; see `session list`)
        #[arg(value_parser = parse_session_name)]
        name: String,
    },
    /// The agent's approval hook (registered by `session start`): hands its
    /// stdin payload to the session's supervisor, prints nothing, decides nothing
    #[command(hide = true)]
    Hook,
    /// The owner of a kept session (started by `run --keep`)
    #[command(hide = true)]
    Keep(KeepArgs),
    /// A new supervisor for a session whose supervisor died (started by the
    /// next command that touches the session): re-adopts its tmux and agent
    #[command(hide = true)]
    Adopt {
        /// Session name
        #[arg(long, value_parser = parse_session_name)]
        name: String,
        #[arg(long, value_parser = parse_adapter_name)]
        adapter: AdapterName,
    },
    /// The supervisor process itself (started by `session start`)
    #[command(hide = true)]
    Supervise(SuperviseArgs),
}

impl SessionCommand {
    /// Whether the command only reaches sessions already running (so it
    /// works with a config that no longer loads).
    pub fn reaches_running_sessions_only(&self) -> bool {
        matches!(
            self,
            SessionCommand::List { .. }
                | SessionCommand::Attach { .. }
                | SessionCommand::Stop { .. }
                | SessionCommand::Cancel { .. }
                | SessionCommand::Approvals { .. }
                | SessionCommand::Answer { .. }
        )
    }
}

/// `--mode`: the permission policy of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Ask for every permission
    #[value(name = "default")]
    Default,
    /// Ask for every permission (planning turns)
    #[value(name = "plan")]
    Plan,
    /// Allow edits (write/edit/delete/move) by `allow_once`; ask for the rest
    #[value(name = "acceptEdits")]
    AcceptEdits,
    /// Allow everything by `allow_once`, never ask
    #[value(name = "dontAsk")]
    DontAsk,
    /// Allow everything by `allow_once`, never ask
    #[value(name = "bypassPermissions")]
    BypassPermissions,
}

impl From<ModeArg> for crate::acp::permissions::decide::Mode {
    fn from(mode: ModeArg) -> Self {
        use crate::acp::permissions::decide::Mode;
        match mode {
            ModeArg::Default => Mode::Default,
            ModeArg::Plan => Mode::Plan,
            ModeArg::AcceptEdits => Mode::AcceptEdits,
            ModeArg::DontAsk => Mode::DontAsk,
            ModeArg::BypassPermissions => Mode::BypassPermissions,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VerdictArg {
    /// Allow once (the prompt's default row)
    Accept,
    /// Reject once
    Decline,
    /// Reject once, recorded as cancelled
    Cancel,
}

/// Parses the process arguments. On a usage error prints clap's message on
/// stderr (and, when `--json` is among the arguments, the `{"error":…}`
/// document on stdout) and returns the exit code; `--help`/`--version`
/// print and return 0.
pub fn parse() -> Result<Cli, u8> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    Cli::try_parse_from(&args).map_err(|error| {
        use clap::error::ErrorKind as ClapKind;
        let informational = matches!(
            error.kind(),
            ClapKind::DisplayHelp
                | ClapKind::DisplayVersion
                | ClapKind::DisplayHelpOnMissingArgumentOrSubcommand
        );
        if informational {
            let code = if error.kind() == ClapKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ErrorKind::Usage.exit_code()
            } else {
                0
            };
            if error.use_stderr() {
                let _ = error.print();
                return code;
            }
            // Help and version are output like any other: a closed pipe
            // ends quietly, a full disk is a plain error.
            use std::io::IsTerminal;
            let rendered = error.render();
            let text = if std::io::stdout().is_terminal() {
                rendered.ansi().to_string()
            } else {
                rendered.to_string()
            };
            return match crate::output::print_bytes(text.as_bytes()) {
                Ok(()) => code,
                Err(failure) => {
                    let kind = crate::error::Classify::kind(&failure);
                    let message = crate::error::message(&failure);
                    let report = crate::output::Failure {
                        kind,
                        message: &message,
                        hint: None,
                    };
                    crate::output::report_error(&report, false);
                    if kind == ErrorKind::StdoutClosed {
                        code
                    } else {
                        kind.exit_code()
                    }
                }
            };
        }
        // clap echoes the offending argument: scrubbed and sanitized like
        // every other message (a value may be a secret or carry controls).
        crate::output::human(error.render().to_string().trim_end());
        if args.iter().skip(1).any(|arg| arg == "--json") {
            let message = error.kind().as_str().map_or_else(
                || "invalid command line".to_owned(),
                |kind| kind.to_lowercase(),
            );
            let detail = error
                .render()
                .to_string()
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_owned();
            let document = serde_json::json!({
                "error": {
                    "kind": ErrorKind::Usage.as_str(),
                    "message": crate::output::clean(if detail.is_empty() { &message } else { &detail }),
                    "hint": "run with --help to see the accepted arguments",
                }
            });
            let _ = crate::output::print_json(&document);
        }
        ErrorKind::Usage.exit_code()
    })
}

impl Cli {
    /// Whether this invocation asked for JSON output (errors follow suit).
    pub fn wants_json(&self) -> bool {
        match &self.command {
            Command::Adapter(AdapterCommand::Prepare(args)) => args.json,
            Command::Adapter(AdapterCommand::Status { json, .. }) => *json,
            Command::Adapter(AdapterCommand::List { json }) => *json,
            Command::Run(args) => args.json,
            Command::Session(SessionCommand::List { json })
            | Command::Session(SessionCommand::Approvals { json, .. })
            | Command::Session(SessionCommand::Serve { json, .. }) => *json,
            Command::Session(
                SessionCommand::Supervise { .. }
                | SessionCommand::Keep(_)
                | SessionCommand::Adopt { .. },
            ) => true,
            _ => false,
        }
    }
}

#[cfg(test)]
#[path = "cli_tests.rs"]
mod tests;
