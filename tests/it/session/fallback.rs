//! The pane-scrape fallback on real tmux: a Kiro without the recorder
//! (`paneFallback: auto`) still gets cards, read from the pane.

use serde_json::json;

use crate::session::supervisor::{request, Session};
use crate::support::fake::{install_fake, kiro_script, with};
use crate::support::wait::{wait_for, wait_for_every, wait_until};

#[test]
fn a_kiro_without_the_recorder_gets_cards_from_the_pane() {
    let session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": "Running: ls", "waitFor": markers.join("second")},
        ]})
    });
    // The same fake, reporting a version before the recorder (2.4).
    let script: serde_json::Value = serde_json::from_slice(
        &std::fs::read(session.env.bin.join("kiro-cli.script.json")).expect("script"),
    )
    .expect("script json");
    let old = with(
        &script,
        "versionOutput",
        kiro_script("2.3.0")["versionOutput"].clone(),
    );
    install_fake(&session.env.bin, "kiro-cli", &old);
    session.start();
    let card = session.pending_card();
    assert_eq!(card["title"], "Shell pwd");
    session.answer(&card, "decline").assert_success();
    session.assert_keys(&["Down", "Down", "Enter"]);
    assert_eq!(
        session.cards()[0]["state"],
        "delivered",
        "no recorder to confirm with"
    );

    // The next prompt is answered by a person: it vanishes.
    session.touch("second");
    let second = session.wait_card("for r2", |other| other["state"] == "pending");
    assert_eq!(second["title"], "Shell ls");
    session.person_presses("Escape");
    session.wait_card("answered in the terminal", |other| {
        other["id"] == second["id"] && other["state"] == "answered_in_terminal"
    });
    session.assert_keys(&["Down", "Down", "Enter", "Esc"]);
    session.stop_and_check();
}

/// A Kiro without the recorder (its pane read) whose one box comes up
/// when the marker `name` is touched; started.
fn box_on_marker(name: &str) -> Session {
    let session = Session::new(|markers| {
        json!({"requests": [
            {"id": "r1", "title": "Running: pwd", "waitFor": markers.join(name)},
        ]})
    });
    let script: serde_json::Value = serde_json::from_slice(
        &std::fs::read(session.env.bin.join("kiro-cli.script.json")).expect("script"),
    )
    .expect("script json");
    let old = with(
        &script,
        "versionOutput",
        kiro_script("2.3.0")["versionOutput"].clone(),
    );
    install_fake(&session.env.bin, "kiro-cli", &old);
    session.start();
    session
}

/// The supervisor's tmux control-mode client, once it runs.
fn control_client(supervisor: u32) -> u32 {
    wait_for(
        "the supervisor runs a control-mode client",
        crate::session::supervisor::DEADLINE,
        || {
            std::fs::read_dir("/proc")
                .expect("/proc")
                .flatten()
                .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
                .find(|&pid| {
                    let stat =
                        std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                    let parent = stat
                        .rsplit_once(')')
                        .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                        .and_then(|ppid| ppid.parse::<u32>().ok());
                    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    let args: Vec<&[u8]> = cmdline.split(|byte| *byte == 0).collect();
                    parent == Some(supervisor) && args.contains(&b"-C".as_slice())
                })
                .ok_or_else(String::new)
        },
    )
}

/// Fail safe: a control-mode client that dies leaves the pane read by
/// polling, said once in the log.
#[test]
fn a_killed_control_client_leaves_the_pane_polled() {
    let session = box_on_marker("box");
    let supervisor = u32::try_from(
        session.record().expect("record")["pid"]
            .as_u64()
            .expect("pid"),
    )
    .expect("pid");
    let client = control_client(supervisor);
    let status = std::process::Command::new("kill")
        .args(["-KILL", &client.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let log = || {
        std::fs::read_to_string(session.session_root().join("supervisor.log")).unwrap_or_default()
    };
    crate::support::wait::wait_until(
        "the log says tmux control mode ended",
        crate::session::supervisor::DEADLINE,
        || log().contains("tmux control mode ended"),
    );
    session.touch("box");
    let card = session.pending_card();
    assert_eq!(card["title"], "Shell pwd");
    assert_eq!(
        log().matches("tmux control mode ended").count(),
        1,
        "{}",
        log()
    );
    session.stop_and_check();
}

/// CPU seconds (user + system) of `pid` so far (`/proc/PID/stat`).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("supervisor stat");
    let (_, after) = stat.rsplit_once(')').expect("stat shape");
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime, stime (fields 14, 15); USER_HZ is 100 on Linux.
    let ticks: f64 =
        fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    ticks / 100.0
}

/// How long the session is left alone before the box: long past any
/// warm-up, so a reader that slowed down while nothing changed would show.
const IDLE: std::time::Duration = std::time::Duration::from_secs(10);

/// A box that comes up after a long quiet still gets its
/// card from tmux's notice that the pane changed (long before the safety
/// look). How fast, and what idling costs, is measured by
/// `benches/session/idle_pane.sh` in a release build (printed here too).
#[test]
fn a_box_after_a_long_idle_gets_its_card_from_the_change_notice() {
    use std::time::{Duration, Instant};

    let session = box_on_marker("box");
    let record = session.record().expect("record");
    let supervisor = u32::try_from(record["pid"].as_u64().expect("pid")).expect("pid");
    let socket = record["tmux"].as_str().expect("tmux socket").to_owned();
    let pane = || {
        let output = std::process::Command::new("tmux")
            .args(["-S", &socket, "-f", "/dev/null", "-u"])
            .args(["capture-pane", "-p", "-J", "-t", "oneworks"])
            .output()
            .expect("run tmux");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    // The TUI is up when it has drawn its screen.
    wait_until(
        "the fake TUI drew its screen",
        crate::session::supervisor::DEADLINE,
        || !pane().trim().is_empty(),
    );

    let (cpu0, wall0) = (cpu_seconds(supervisor), Instant::now());
    // The quiet itself is what is tested: nothing to wait for instead.
    std::thread::sleep(IDLE);
    let idle_cpu = (cpu_seconds(supervisor) - cpu0) / wall0.elapsed().as_secs_f64() * 100.0;

    // The card's line in `cards.jsonl` (written as the card is made), read
    // without a process of ours in the way.
    let history = session.session_root().join("cards.jsonl");
    let pending = || {
        std::fs::read_to_string(&history)
            .unwrap_or_default()
            .lines()
            .any(|line| line.contains("\"pending\""))
    };
    assert!(!pending(), "a card before the box");
    session.touch("box");
    // The wait also notes when the box was first seen on the pane.
    let mut shown = None;
    let carded = wait_for_every(
        Duration::from_millis(5),
        "a card for the box",
        crate::session::supervisor::DEADLINE,
        || {
            if pending() {
                return Ok(Instant::now());
            }
            let screen = pane();
            if shown.is_none() && screen.contains("requires approval") {
                shown = Some(Instant::now());
            }
            Err(screen)
        },
    );
    // A card before this test saw the box: 0 by this measure.
    let shown = shown.unwrap_or(carded);
    let latency = carded.saturating_duration_since(shown);
    eprintln!(
        "idle supervisor CPU {idle_cpu:.3} % of a core over {:.1} s; box → card {} ms",
        IDLE.as_secs_f64(),
        latency.as_millis()
    );
    // The box's card came from tmux's word that the pane changed, not from
    // the safety look (every 10 s): the functional point. Its speed and
    // the idle CPU are the bench's to judge (benches/session/idle_pane.sh,
    // release; a debug build's /proc ticks cannot tell 0.1 % from 0.5 %).
    assert!(
        latency < oneworks::session::tmux_control::SAFETY_LOOK / 2,
        "box → card took {latency:?} after {IDLE:?} idle: no change notice"
    );
    session.stop_and_check();
}
