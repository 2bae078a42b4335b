//! A fake `kiro-cli` for the integration tests. It answers the
//! probes (`--version`, `acp --help`) as its script says; later issues teach
//! it ACP and the TUI. Its script reaches it through a file, never through
//! environment variables, because oneworks gives Kiro an allowlisted
//! environment.

mod acp;
mod acp_script;
mod acp_steps;
mod cursor_tui;
mod error;
mod process;
mod script;
mod tui;
mod tui_script;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use error::FakeError;
use script::{Invocation, Script};

fn main() -> ExitCode {
    let invocation = match Invocation::from_argv(std::env::args().collect()) {
        Ok(invocation) => invocation,
        Err(message) => {
            eprintln!("fake-kiro-cli: {message}");
            return ExitCode::from(70);
        }
    };
    let Invocation { script, args } = invocation;
    if let Err(message) = log_invocation(&script, &args) {
        eprintln!("fake-kiro-cli: {message}");
        return ExitCode::from(70);
    }
    if script.hang_seconds > 0 {
        std::thread::sleep(Duration::from_secs(script.hang_seconds));
    }
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["--version"] | ["-V"] => answer(
            &script.version_output,
            &script.version_stderr,
            script.version_exit,
        ),
        ["acp", "--help"] | ["acp", "-h"] => {
            if let Some(path) = &script.acp_help_removes {
                let _ = fs_err::remove_file(path);
            }
            answer(
                &script.acp_help_output,
                &script.acp_help_stderr,
                script.acp_help_exit,
            )
        }
        ["login"] => login(&script),
        ["--fake-hold-on"] => exit_code(process::hold_on()),
        // `cursor-agent acp`: the same agent under Cursor's argv.
        ["acp", "--agent", _] | ["acp"] => {
            exit_code(acp::run(&script.acp.clone().unwrap_or_default()))
        }
        ["chat", "--tui", ..] => tui::run(&script.tui),
        // `cursor-agent` with no arguments is Cursor's TUI.
        [] => cursor_tui::run(&script.cursor_tui),
        _ => {
            eprintln!("fake-kiro-cli: unsupported command line {args:?}");
            ExitCode::from(2)
        }
    }
}

/// Like Kiro, keeps what a login produces under HOME and the XDG data
/// folder; the tests check where that lands.
fn login(script: &Script) -> ExitCode {
    for (variable, relative) in [
        ("HOME", ".kiro/fake-login"),
        ("XDG_DATA_HOME", "kiro-cli/fake-login.db"),
    ] {
        let Some(base) = std::env::var_os(variable) else {
            eprintln!("fake-kiro-cli: login needs {variable}");
            return ExitCode::from(70);
        };
        let path = std::path::Path::new(&base).join(relative);
        let written = path
            .parent()
            .map_or(Ok(()), fs_err::create_dir_all)
            .and_then(|()| fs_err::write(&path, b"logged in\n"))
            .map_err(oneworks::fs_error::os_cause);
        if let Err(error) = written {
            eprintln!("fake-kiro-cli: cannot write `{}`: {error}", path.display());
            return ExitCode::from(70);
        }
    }
    if let Some(release) = &script.login_wait_for_file {
        // Bounded, so a test that forgets the file does not leak a process.
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        while !release.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    if script.login_crash {
        std::process::abort();
    }
    exit_code(script.login_exit)
}

fn answer(text: &str, error_text: &str, code: i32) -> ExitCode {
    // A closed pipe is the caller's business; the exit code still counts.
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
    if !error_text.is_empty() {
        let _ = writeln!(std::io::stderr().lock(), "{error_text}");
    }
    exit_code(code)
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Appends `{"argv":[…],"env":{…}}` as one line, in one `write` call on an
/// `O_APPEND` file, so concurrent invocations do not interleave.
fn log_invocation(script: &Script, args: &[String]) -> Result<(), FakeError> {
    let Some(path) = &script.log else {
        return Ok(());
    };
    let env: serde_json::Map<String, serde_json::Value> = std::env::vars_os()
        .map(|(name, value)| {
            (
                name.to_string_lossy().into_owned(),
                serde_json::Value::String(value.to_string_lossy().into_owned()),
            )
        })
        .collect();
    // The HOME's mode as the child sees it (the tests check 0700).
    let home_mode = std::env::var_os("HOME").and_then(|home| {
        use std::os::unix::fs::PermissionsExt;
        fs_err::metadata(home)
            .ok()
            .map(|metadata| metadata.permissions().mode() & 0o7777)
    });
    let cwd = std::env::current_dir().ok();
    let mut line =
        serde_json::json!({ "argv": args, "env": env, "homeMode": home_mode, "cwd": cwd })
            .to_string();
    line.push('\n');
    let mut file = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(oneworks::fs_error::os_cause)
        .map_err(|source| FakeError::OpenLog {
            path: path.clone(),
            source,
        })?
        .into_file();
    file.write_all(line.as_bytes())
        .map_err(|source| FakeError::WriteLog {
            path: path.clone(),
            source,
        })
}
