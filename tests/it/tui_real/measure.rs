//! The figures of `benches/session.sh`'s agents part,
//! taken on a real agent's TUI by the same harness its test uses: box on
//! screen → pending card, `session answer` → card resolved for each
//! verdict, and the idle CPU of the supervisor and of the agent. Each
//! agent's file has an ignored `measure` test calling [`run`]; the bench
//! runs them in a release build and reads the one line each prints:
//! `TUI-BENCH {json}`.

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{TuiAgent, TuiCase, DEADLINE};
use crate::support::wait::{poll, wait_for_every};

/// The approval questions of `agent`'s built-in data (regexes over a line
/// without its box sides), read from the data file itself so the figure
/// does not depend on the parser it measures.
pub fn questions(agent: &str) -> Vec<regex::Regex> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("manifests")
        .join(format!("{agent}.yaml"));
    let text = std::fs::read_to_string(&path).expect("adapter data");
    let data: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).expect("yaml");
    data["tui"]["prompt"]["questions"]
        .as_sequence()
        .expect("tui.prompt.questions")
        .iter()
        .map(|q| regex::Regex::new(q.as_str().expect("a pattern")).expect("a regex"))
        .collect()
}

pub fn box_on_screen(pane: &str, questions: &[regex::Regex]) -> bool {
    pane.lines().any(|line| {
        // The data's patterns are read whole by the grammar: here, on the
        // line as drawn or without its box sides (`┃  △ Permission
        // required` is opencode's whole question).
        let text = line.trim().trim_matches(['│', '┃', '|']).trim();
        questions
            .iter()
            .any(|q| q.is_match(line.trim()) || q.is_match(text))
    })
}

/// CPU seconds (user + system) of `pid` so far.
pub fn cpu_seconds(pid: u32) -> f64 {
    // A process that ended between two readings counts as 0.
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    let Some(close) = stat.rfind(')') else {
        return 0.0;
    };
    let after = &stat[close + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 =
        fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    // USER_HZ is 100 on Linux.
    ticks / 100.0
}

/// CPU seconds of `root` and every process below it (an agent's Node
/// workers, its shell).
pub fn tree_cpu_seconds(root: u32) -> f64 {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let ppid = stat[close + 2..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parents.push((pid, ppid));
        }
    }
    let mut tree = vec![root];
    let mut at = 0;
    while at < tree.len() {
        let parent = tree[at];
        tree.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(pid, _)| *pid),
        );
        at += 1;
    }
    tree.iter().map(|pid| cpu_seconds(*pid)).sum()
}

/// Whether `supervisor` has its tmux control-mode child (`tmux … -C …`).
pub fn control_client_runs(supervisor: u32) -> bool {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .any(|entry| {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                return false;
            };
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|ppid| ppid.parse::<u32>().ok());
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            parent == Some(supervisor) && cmdline.split(|byte| *byte == 0).any(|arg| arg == b"-C")
        })
}

/// Percentile `p` (0–100) of `values`, in milliseconds.
pub fn percentile(values: &[Duration], p: f64) -> f64 {
    let mut ms: Vec<f64> = values.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (ms.len() as f64 - 1.0)).round() as usize;
    ms[rank.min(ms.len() - 1)]
}

/// One round: a prompt typed, the box on screen, its card. Returns the
/// box → card latency and the card.
fn one_box(
    tui: &TuiAgent,
    name: &str,
    file: &str,
    questions: &[regex::Regex],
) -> (Duration, Value) {
    tui.agent.model.set_command(&format!("touch {file}"));
    tui.agent.model.set_trigger(Some(file));
    let watch = tui
        .agent
        .env
        .oneworks()
        .args(["session", "approvals", name, "--watch", "--json"]);
    box_and_card(
        watch,
        || tui.pane(name),
        questions,
        || {
            tui.submit(
                name,
                &format!("Create the file {file} with the shell tool."),
            );
        },
    )
}

/// Times a box and its card: `watch` (`session approvals NAME --watch
/// --json`) runs while `ask` makes the agent ask; the box counts as shown
/// at the first `pane()` that holds one of `questions`, the card at the
/// first pending card line `watch` prints. Returns the box → card latency
/// (0 when the card came first: a hook, a recorder) and the card.
pub fn box_and_card(
    watch: crate::support::Invocation,
    pane: impl Fn() -> String,
    questions: &[regex::Regex],
    ask: impl FnOnce(),
) -> (Duration, Value) {
    let mut child = watch.stdin_null().stderr_null().spawn();
    let (lines_tx, lines_rx) = std::sync::mpsc::channel::<(Instant, String)>();
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if lines_tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    ask();
    // The wait also notes when the box was first seen on the pane.
    let mut shown = None;
    let found = poll(Duration::from_millis(5), DEADLINE, || {
        if shown.is_none() && box_on_screen(&pane(), questions) {
            shown = Some(Instant::now());
        }
        while let Ok((at, line)) = lines_rx.try_recv() {
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if value["state"] == "pending" || value["card"]["state"] == "pending" {
                let card = if value["card"].is_object() {
                    value["card"].clone()
                } else {
                    value
                };
                return Ok((at, card));
            }
        }
        Err(pane())
    });
    let _ = child.kill();
    let _ = child.wait();
    let (carded, card) =
        found.unwrap_or_else(|seen| panic!("no card within {DEADLINE:?}; the pane:\n{seen}"));
    // A card may come first (a hook, a recorder): then the latency is 0 by
    // this measure and the box is checked to show up anyway.
    let shown = match shown {
        Some(at) => at,
        None => {
            wait_for_every(Duration::from_millis(5), "the box shows", DEADLINE, || {
                let screen = pane();
                if box_on_screen(&screen, questions) {
                    Ok(())
                } else {
                    Err(screen)
                }
            });
            carded
        }
    };
    (carded.saturating_duration_since(shown), card)
}

/// `session answer NAME CARD verdict`: how long until it returned (the
/// keys delivered and checked).
pub fn answer(tui: &TuiAgent, name: &str, card: &Value, verdict: &str) -> Duration {
    let id = card["id"].as_str().expect("card id");
    let started = Instant::now();
    tui.session(&["answer", name, id, verdict]).assert_success();
    started.elapsed()
}

/// How many boxes [`run`] answers each way: the accepts first, then the
/// declines (after Claude's `No` the fake model hears the refusal with the
/// next prompt and ends that turn without a box, so its decline is last).
#[derive(Debug, Clone, Copy)]
pub struct Rounds {
    pub accepts: usize,
    pub declines: usize,
}

impl Rounds {
    /// Three boxes accepted, then three declined.
    pub const EVEN: Rounds = Rounds {
        accepts: 3,
        declines: 3,
    };
}

/// How long the idle CPU is measured: `ONEWORKS_BENCH_IDLE_SECONDS`
/// (`benches/session.sh` passes its `BENCH_IDLE_SECONDS`), 60 by default.
pub fn idle() -> Duration {
    let seconds = std::env::var("ONEWORKS_BENCH_IDLE_SECONDS")
        .ok()
        .map(|text| {
            text.parse::<u64>()
                .unwrap_or_else(|_| panic!("ONEWORKS_BENCH_IDLE_SECONDS={text:?}: not seconds"))
        })
        .unwrap_or(60);
    Duration::from_secs(seconds)
}

/// [`run`] on the agent `prepare` gives, alone (no other real agent's test
/// runs meanwhile: [`crate::support::heavy::alone`]), idle for [`idle`].
pub fn serially(prepare: impl FnOnce() -> TuiAgent, case: &TuiCase, signal: &str, rounds: Rounds) {
    let _alone = crate::support::heavy::alone();
    run(&prepare(), case, signal, rounds, idle());
}

/// Measures `rounds` boxes in one session (each answered through its card,
/// the accepts first), then the idle CPU over `idle`; prints
/// `TUI-BENCH {json}`.
pub fn run(tui: &TuiAgent, case: &TuiCase, signal: &str, rounds: Rounds, idle: Duration) {
    let agent = tui.agent.agent;
    let questions = questions(agent);
    let name = "bench";
    tui.start(name, case.start_args);
    tui.wait_pane(name, "the TUI ready for a prompt", case.ready);
    let mut to_card = Vec::new();
    let mut accepts = Vec::new();
    let mut declines = Vec::new();
    for round in 0..rounds.accepts + rounds.declines {
        let file = format!("probe-bench-{round}.txt");
        let (latency, card) = one_box(tui, name, &file, &questions);
        to_card.push(latency);
        // What the model heard up to the box: the answer's effect comes after.
        let before = tui.agent.model.requests().len();
        let decline = round >= rounds.accepts;
        if decline {
            declines.push(answer(tui, name, &card, "decline"));
        } else {
            accepts.push(answer(tui, name, &card, "accept"));
            tui.wait_file(name, &file);
        }
        tui.wait_went_on(name, before, decline);
        // The turn is over when the pane no longer shows the box and the
        // agent went on; the next prompt waits for the ready text again.
        tui.wait("the box gone and the TUI ready again", name, || {
            let pane = tui.pane(name);
            !box_on_screen(&pane, &questions)
                && case.ready_again.is_none_or(|ready| pane.contains(ready))
        });
    }
    let figures = Figures {
        agent,
        signal,
        to_card,
        accepts,
        declines,
    };
    figures.idle_and_print(&tui.record(name), idle);
    tui.stop(name);
}

/// What a measure took, printed with the idle CPU as `TUI-BENCH {json}`.
pub struct Figures<'a> {
    pub agent: &'a str,
    /// The signal the cards came from (`pane`, `hook`, `recorder`).
    pub signal: &'a str,
    pub to_card: Vec<Duration>,
    pub accepts: Vec<Duration>,
    pub declines: Vec<Duration>,
}

impl Figures<'_> {
    /// Measures the idle CPU of the session `record` names over `idle`
    /// (the supervisor alone, and the agent's process tree), then prints
    /// every figure as one `TUI-BENCH {json}` line.
    pub fn idle_and_print(&self, record: &Value, idle: Duration) {
        let supervisor = record["pid"].as_u64().expect("supervisor pid") as u32;
        let agent_pid = record["panePid"].as_u64().expect("pane pid") as u32;
        let (s0, a0, t0) = (
            cpu_seconds(supervisor),
            tree_cpu_seconds(agent_pid),
            Instant::now(),
        );
        std::thread::sleep(idle);
        let wall = t0.elapsed().as_secs_f64();
        let supervisor_cpu = (cpu_seconds(supervisor) - s0) / wall * 100.0;
        // Whether the pane was read event-driven the whole time (a dead
        // control-mode client means polling: the figure says which).
        let control_mode = control_client_runs(supervisor);
        // A worker that ended while idle takes its seconds with it: never below 0.
        let agent_cpu = ((tree_cpu_seconds(agent_pid) - a0) / wall * 100.0).max(0.0);
        let spread = |values: &[Duration]| {
            if values.is_empty() {
                Value::Null
            } else {
                json!({"p50": percentile(values, 50.0), "max": percentile(values, 100.0)})
            }
        };
        let to_card = &self.to_card;
        let figures = json!({
            "agent": self.agent,
            "signal": self.signal,
            "rounds": to_card.len(),
            "box_to_card_ms": {"p50": percentile(to_card, 50.0), "p95": percentile(to_card, 95.0), "max": percentile(to_card, 100.0)},
            "accept_ms": spread(&self.accepts),
            "decline_ms": spread(&self.declines),
            "idle_seconds": wall,
            "supervisor_cpu_percent": supervisor_cpu,
            "agent_cpu_percent": agent_cpu,
            "control_mode": control_mode,
        });
        println!("TUI-BENCH {figures}");
    }
}
