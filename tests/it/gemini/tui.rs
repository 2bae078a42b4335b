//! Gemini CLI's approval box on real tmux, at the library level: the fake
//! Gemini package (tests/fakes/gemini-cli, which draws the box as the real
//! 0.61.0 does) runs in a private tmux server, the pane is read with the
//! grammar of `manifests/gemini.yaml`, and verdicts go through the
//! keystroke bridge with its per-key checks. (Through the binary —
//! `oneworks session start gemini` — once the adapter seam selects Gemini.)

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use oneworks::adapter::tui_data::TuiData;
use oneworks::session::cards::{CancelFlag, Card, CardBook, CardState, Verdict};
use oneworks::session::delivery::keystroke_bridge::{Bridge, DeliveryRefusal, Pane, PaneError};
use oneworks::session::signals::pane_fallback::detect_any;
use oneworks::session::signals::pane_watch::{self, card_for};
use oneworks::session::supervisor::state::{Delivery, PaneFactory, SessionState};
use oneworks::session::tmux::{Tmux, TmuxPane};

use crate::support::wait::wait_until_async;

/// tmux tests run serially: a loaded 2-core machine.
static SERIAL: Mutex<()> = Mutex::new(());

const DEADLINE: Duration = Duration::from_secs(60);

/// The card's title: the command, as the box's nested command box shows it.
const TITLE: &str = "touch probe-created.txt";

/// The model's answers, as Gemini's `--fake-responses` reads them: a shell
/// call, then a text (`tests/fixtures/gemini-shell-turn.jsonl`, whole, so the
/// real agent can replay it too).
const RESPONSES: &str = r#"{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"touch probe-created.txt","description":"Create a file"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15}}]}
{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"All done: the command printed hello-from-probe."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":8,"totalTokenCount":28}}]}
{"method":"generateContent","response":{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"reasoning\":\"x\",\"next_speaker\":\"user\"}"}]},"finishReason":"STOP","index":0}]}}
{"method":"generateContent","response":{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"reasoning\":\"x\",\"next_speaker\":\"user\"}"}]},"finishReason":"STOP","index":0}]}}
{"method":"countTokens","response":{"totalTokens":10}}
{"method":"countTokens","response":{"totalTokens":10}}
"#;

#[track_caller]
fn wait_until(what: &str, check: impl FnMut() -> bool) {
    crate::support::wait::wait_until(what, DEADLINE, check);
}

/// The `tui:` section of the built-in Gemini data file.
fn gemini_tui() -> TuiData {
    let file: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(include_str!("../../../manifests/gemini.yaml")).expect("yaml");
    serde_yaml_ng::from_value(file["tui"].clone()).expect("gemini tui data")
}

/// The fake package's script, or the real one's `bundle/gemini.js` named by
/// `ONEWORKS_TEST_GEMINI_JS` (by hand: the same tests against the real
/// agent, offline).
fn gemini_js() -> PathBuf {
    match std::env::var_os("ONEWORKS_TEST_GEMINI_JS") {
        Some(path) => PathBuf::from(path),
        None => {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/gemini-cli/bundle/gemini.js")
        }
    }
}

/// The fake Gemini TUI in its own tmux server, started with a prompt.
struct GeminiPane {
    _temp: tempfile::TempDir,
    cwd: PathBuf,
    tmux: Tmux,
    tui: TuiData,
    _serial: MutexGuard<'static, ()>,
}

impl GeminiPane {
    fn start(folder_trust: bool) -> GeminiPane {
        Self::start_with(folder_trust, RESPONSES)
    }

    fn start_with(folder_trust: bool, responses_text: &str) -> GeminiPane {
        let serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let temp = tempfile::tempdir().expect("tempdir");
        let home = temp.path().join("home");
        let cwd = temp.path().join("project");
        std::fs::create_dir_all(home.join(".gemini")).expect("gemini home");
        std::fs::create_dir_all(&cwd).expect("project");
        let settings = serde_json::json!({
            "security": {
                "folderTrust": {"enabled": folder_trust},
                "auth": {"selectedType": "gemini-api-key"},
            },
            "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        });
        std::fs::write(home.join(".gemini/settings.json"), settings.to_string()).expect("settings");
        let responses = temp.path().join("responses.jsonl");
        std::fs::write(&responses, responses_text).expect("responses");
        let tmux_program = oneworks::session::tmux::find(std::env::var("PATH").ok().as_deref())
            .expect("tmux on PATH");
        let env = [
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("HOME", home.to_string_lossy().into_owned()),
            ("GEMINI_CLI_HOME", home.to_string_lossy().into_owned()),
            ("GEMINI_API_KEY", "fake-key".to_owned()),
            ("GEMINI_CLI_NO_RELAUNCH", "true".to_owned()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
        let tmux = Tmux {
            program: tmux_program,
            socket: temp.path().join("tmux.sock"),
            env,
        };
        let tui = gemini_tui();
        let args: Vec<String> = [
            "-m",
            "gemini-2.5-flash",
            "--fake-responses-non-strict",
            &responses.to_string_lossy(),
            "-i",
            "create the probe file",
        ]
        .iter()
        .map(|arg| (*arg).to_owned())
        .collect();
        let node = std::iter::once("node".to_owned())
            .chain(std::iter::once(gemini_js().to_string_lossy().into_owned()))
            .chain(args)
            .collect::<Vec<_>>();
        tmux.start(&cwd, tui.width, tui.height, Path::new(&node[0]), &node[1..])
            .expect("start the fake gemini in tmux");
        GeminiPane {
            _temp: temp,
            cwd,
            tmux,
            tui,
            _serial: serial,
        }
    }

    fn capture(&self) -> String {
        self.tmux.capture().expect("capture")
    }

    fn probe(&self) -> PathBuf {
        self.cwd.join("probe-created.txt")
    }

    /// Waits for the box; returns the card the watcher would park.
    fn card(&self) -> (String, Delivery) {
        let mut found = None;
        wait_until("the approval box", || {
            let capture = self.capture();
            found = detect_any(&capture, &self.tui)
                .map(|prompt| card_for(1, &prompt, &capture, &self.tui));
            found.is_some()
        });
        let (request, delivery) = found.expect("card");
        (request.title, delivery)
    }

    fn bridge(&self) -> Bridge<'_> {
        let mut bridge = Bridge::new(&self.tui);
        bridge.render_gap = Duration::from_millis(40);
        bridge.settle = Duration::from_millis(60);
        bridge
    }

    fn deliver(&self, title: &str, verdict: Verdict) -> Result<(), DeliveryRefusal> {
        self.bridge().deliver(
            &mut TmuxPane(&self.tmux),
            title,
            verdict,
            &CancelFlag::default(),
        )
    }
}

impl Drop for GeminiPane {
    fn drop(&mut self) {
        let _ = self.tmux.kill_server();
    }
}

#[test]
fn gemini_box_accept_runs_the_command() {
    let pane = GeminiPane::start(false);
    let (title, delivery) = pane.card();
    assert_eq!(title, TITLE);
    assert_eq!(delivery, Delivery::Bridge);
    assert!(!pane.probe().exists(), "nothing runs before the verdict");
    pane.deliver(&title, Verdict::Accept).expect("delivered");
    wait_until("the touch", || pane.probe().exists());
    wait_until("the answered box", || {
        let capture = pane.capture();
        capture.contains("✓  Shell touch probe-created.txt") && capture.contains("✦ All done")
    });
    assert!(detect_any(&pane.capture(), &pane.tui).is_none());
}

#[test]
fn gemini_box_decline_and_cancel_leave_no_file() {
    for verdict in [Verdict::Decline, Verdict::Cancel] {
        let pane = GeminiPane::start(false);
        let (title, _) = pane.card();
        pane.deliver(&title, verdict).expect("delivered");
        wait_until("the cancelled call", || {
            pane.capture().contains("ℹ Request cancelled.")
        });
        assert!(pane.capture().contains("-  Shell touch probe-created.txt"));
        assert!(!pane.probe().exists(), "{verdict:?} ran the command");
    }
}

#[test]
fn gemini_box_in_an_untrusted_folder_declines_in_one_move() {
    let pane = GeminiPane::start(true);
    let (title, _) = pane.card();
    // The card can come from a frame drawn before the trust dialog's:
    // both are on the screen within the deadline.
    wait_until("the box and the trust dialog drawn together", || {
        let capture = pane.capture();
        capture.contains("  2. No, suggest changes (esc)") && capture.contains("● 1. Trust folder")
    });
    pane.deliver(&title, Verdict::Decline).expect("delivered");
    wait_until("the cancelled call", || {
        pane.capture().contains("ℹ Request cancelled.")
    });
    assert!(!pane.probe().exists());
}

#[test]
fn gemini_box_moved_by_a_person_is_not_answered() {
    let pane = GeminiPane::start(false);
    let (title, _) = pane.card();
    // Someone at the terminal moves the focus before the verdict arrives.
    TmuxPane(&pane.tmux)
        .send_key("Down")
        .expect("a person's key");
    wait_until("the moved focus", || {
        pane.capture().contains("● 2. Allow for this session")
    });
    let reason = pane
        .deliver(&title, Verdict::Accept)
        .expect_err("must fail closed");
    assert!(
        matches!(&reason, DeliveryRefusal::FocusMoved { expected, .. } if expected == "Allow once"),
        "the card says why: {reason}"
    );
    // Nothing was sent: the box still waits, on the row the person chose.
    let capture = pane.capture();
    assert!(capture.contains("● 2. Allow for this session"), "{capture}");
    assert!(!pane.probe().exists());
}

#[test]
fn gemini_box_of_another_command_is_not_answered() {
    let pane = GeminiPane::start(false);
    let (_, _) = pane.card();
    let reason = pane
        .deliver("touch other.txt", Verdict::Accept)
        .expect_err("must fail closed");
    assert!(
        matches!(&reason, DeliveryRefusal::NotThisPrompt(shown) if shown.contains("touch probe-created.txt")),
        "names what is on screen: {reason}"
    );
    assert!(
        detect_any(&pane.capture(), &pane.tui).is_some(),
        "still waiting"
    );
    assert!(!pane.probe().exists());
}

/// A pane whose keys are logged, for the exact sequence on the real tmux.
struct LoggedPane<'a> {
    inner: TmuxPane<'a>,
    keys: Vec<String>,
}

impl Pane for LoggedPane<'_> {
    fn capture(&mut self) -> Result<String, PaneError> {
        self.inner.capture()
    }
    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        self.keys.push(key.to_owned());
        self.inner.send_key(key)
    }
}

#[test]
fn gemini_box_decline_walks_down_one_key_at_a_time() {
    let pane = GeminiPane::start(false);
    let (title, _) = pane.card();
    let mut logged = LoggedPane {
        inner: TmuxPane(&pane.tmux),
        keys: Vec::new(),
    };
    pane.bridge()
        .deliver(
            &mut logged,
            &title,
            Verdict::Decline,
            &CancelFlag::default(),
        )
        .expect("delivered");
    assert_eq!(logged.keys, ["Down", "Down", "Enter"]);
    wait_until("the cancelled call", || {
        pane.capture().contains("ℹ Request cancelled.")
    });
}

/// The supervisor's pane for deliveries: owns its tmux handle.
struct OwnedPane(Tmux);

impl Pane for OwnedPane {
    fn capture(&mut self) -> Result<String, PaneError> {
        TmuxPane(&self.0).capture()
    }
    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        TmuxPane(&self.0).send_key(key)
    }
}

async fn wait_card(state: &SessionState, what: &str, check: impl Fn(&Card) -> bool) -> Card {
    let mut found = None;
    wait_until_async(what, DEADLINE, || {
        found = state.cards().into_iter().find(|card| check(card));
        found.is_some()
    })
    .await;
    found.expect("the card waited for")
}

/// The watcher and the card book of a supervisor on the Gemini pane, as
/// `session start` runs them (with the adapter's grammar).
fn with_watcher<F: std::future::Future<Output = ()>>(
    pane: &GeminiPane,
    body: impl FnOnce(Arc<SessionState>) -> F,
) {
    let runtime = oneworks::process::runtime().expect("runtime");
    runtime.block_on(async {
        let tmux = pane.tmux.clone();
        let factory: PaneFactory = Arc::new(move || Box::new(OwnedPane(tmux.clone())));
        let state = SessionState::new(
            CardBook::new("default", None, None),
            pane.tui.clone(),
            factory,
        );
        let watch = tokio::spawn(pane_watch::run(
            pane.tmux.clone(),
            Arc::clone(&state),
            pane.tui.clone(),
            Duration::from_millis(pane.tui.fallback.poll_ms),
        ));
        body(state).await;
        watch.abort();
    });
}

/// A second turn's shell call, after the first turn's answers: its box is
/// a later pane state the watcher cards only once it has looked past the
/// first box's going.
const SECOND_TURN: &str = r#"{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"touch second-turn.txt","description":"Create another file"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":5,"totalTokenCount":35}}]}
"#;

#[test]
fn gemini_watcher_parks_one_card_and_its_answer_runs_the_command() {
    let pane = GeminiPane::start_with(false, &format!("{RESPONSES}{SECOND_TURN}"));
    let pane = &pane;
    with_watcher(pane, |state| async move {
        let card = wait_card(&state, "a pending card", |card| {
            card.state == CardState::Pending
        })
        .await;
        assert_eq!(card.title, TITLE);
        let updates = state.subscribe();
        state.answer(&card.id, Verdict::Accept).expect("claimed");
        let ended = state.delivery_end(&card.id, updates).await.expect("card");
        assert_eq!(ended.state, CardState::Delivered, "{ended:?}");
        wait_until_async("the touch ran", DEADLINE, || pane.probe().exists()).await;
        // The box goes after our Enter and the turn ends. A second prompt
        // draws a second box: its card proves the watcher looked at every
        // state after the first box, and the redraws on the way parked no
        // second card for it.
        wait_until_async("the first turn ended", DEADLINE, || {
            pane.capture().contains("All done")
        })
        .await;
        for key in ["a", "g", "a", "i", "n", "Enter"] {
            TmuxPane(&pane.tmux).send_key(key).expect("a person's key");
        }
        let second = wait_card(&state, "the second turn's card", |card| {
            card.title == "touch second-turn.txt"
        })
        .await;
        let cards = state.cards();
        assert_eq!(cards.len(), 2, "{cards:?}");
        let first = cards
            .iter()
            .find(|c| c.id == card.id)
            .expect("the first card");
        assert_eq!(first.state, CardState::Delivered, "{cards:?}");
        assert_eq!(second.state, CardState::Pending, "{cards:?}");
    });
}

#[test]
fn gemini_watcher_sees_the_terminal_answer_first() {
    let pane = GeminiPane::start(false);
    let pane = &pane;
    with_watcher(pane, |state| async move {
        let card = wait_card(&state, "a pending card", |card| {
            card.state == CardState::Pending
        })
        .await;
        // The person picks `1. Allow once` with its digit.
        TmuxPane(&pane.tmux).send_key("1").expect("a person's key");
        let answered = wait_card(&state, "answered in the terminal", |other| {
            other.id == card.id && other.state == CardState::AnsweredInTerminal
        })
        .await;
        assert_eq!(answered.by.as_deref(), Some("terminal"));
        assert!(
            state.answer(&card.id, Verdict::Decline).is_err(),
            "a resolved card refuses a second answer"
        );
        wait_until_async("the person's allow ran", DEADLINE, || pane.probe().exists()).await;
    });
}

#[test]
fn gemini_box_of_a_long_command_is_carded_and_checked_whole() {
    // Too long for the tool line, which then shows the description.
    let long = format!(
        "echo {} && echo {} > long.txt",
        "x".repeat(150),
        "y".repeat(150)
    );
    let responses = RESPONSES.replace("touch probe-created.txt", &long);
    let pane = GeminiPane::start_with(false, &responses);
    let (title, _) = pane.card();
    assert_eq!(title, long);
    assert!(pane.capture().contains("? Shell  Create a file"));
    pane.deliver(&title, Verdict::Accept).expect("delivered");
    let written = pane.cwd.join("long.txt");
    wait_until("the command", || written.exists());
    wait_until("its output", || {
        std::fs::read_to_string(&written).is_ok_and(|text| text == format!("{}\n", "y".repeat(150)))
    });
}
