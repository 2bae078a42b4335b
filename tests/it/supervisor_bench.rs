//! Benchmarks of supervised sessions (issue 7), as ignored tests so they
//! build with the suite and run on demand, serially, on real tmux:
//!
//! `cargo test --release --features fakes --test it supervisor_bench -- --ignored --nocapture --test-threads 1`
//!
//! - latency from a request line appended to the recorder to its card line
//!   on `session approvals --watch --json` (p50/p95 over 200 requests);
//! - `session answer … accept` until Enter was sent, with the default gaps,
//!   split into the deliberate wait (settle) and everything else;
//! - supervisor CPU over `BENCH_IDLE_SECONDS` (default 60) idle seconds,
//!   and its peak RSS.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::supervisor::Session;

fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    let index = ((sorted.len() as f64 * fraction) as usize).min(sorted.len() - 1);
    sorted[index]
}

fn line(message: &Value) -> String {
    format!(
        "{}\n",
        json!({"ts": 1, "dir": "in", "msg": message.to_string()})
    )
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture"]
fn supervisor_bench_recorder_to_watch_latency_and_idle_cost() {
    let session = Session::new(|_| json!({}));
    session.start();
    let recorder = session.runtime().join("recorder.jsonl");
    let mut watch = session
        .env
        .cmd(&["session", "approvals", "default", "--watch", "--json"]);
    let mut watch = watch.stdout(Stdio::piped()).spawn().expect("watch");
    let mut cards = BufReader::new(watch.stdout.take().expect("stdout"));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&recorder)
        .expect("recorder");
    let mut next_state = |wanted: &str| loop {
        let mut text = String::new();
        assert!(
            cards.read_line(&mut text).expect("watch line") > 0,
            "watch ended"
        );
        let card: Value = serde_json::from_str(&text).expect("card");
        if card["state"] == wanted {
            return;
        }
    };
    let mut latencies = Vec::new();
    for index in 0..200 {
        let id = format!("b{index}");
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission",
            "params": {"toolCall": {"toolCallId": format!("c{index}"), "title": format!("Running: echo {index}")},
            "options": [{"optionId": "allow_once", "kind": "allow_once"}, {"optionId": "reject_once", "kind": "reject_once"}]}});
        let started = Instant::now();
        file.write_all(line(&request).as_bytes()).expect("append");
        next_state("pending");
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        let response =
            json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "cancelled"}}});
        file.write_all(line(&response).as_bytes()).expect("append");
        next_state("answered_in_terminal");
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "recorder → watch: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms (200 requests; target p95 ≤ 20 ms)",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.95),
        latencies[latencies.len() - 1]
    );
    let _ = watch.kill();
    let _ = watch.wait();

    let supervisor = session.pids()[0];
    let ticks = |pid: u32| -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .expect("stat")
            .1
            .split_whitespace()
            .collect();
        (fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime"))
            as f64
    };
    let seconds: u64 = std::env::var("BENCH_IDLE_SECONDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(60);
    let before = ticks(supervisor);
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(seconds));
    let used = ticks(supervisor) - before;
    // Clock ticks are 1/100 s on Linux.
    let share = used / 100.0 / started.elapsed().as_secs_f64() * 100.0;
    let status = std::fs::read_to_string(format!("/proc/{supervisor}/status")).expect("status");
    let peak = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap_or_default()
        .trim_start_matches("VmHWM:")
        .trim()
        .to_owned();
    println!("supervisor idle: {share:.3} % of one core over {seconds} s (target ≤ 0.1 %); peak RSS {peak}");
    session.stop_and_check();
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture"]
fn supervisor_bench_answer_to_enter() {
    const RUNS: usize = 20;
    let requests: Vec<Value> = (0..RUNS)
        .map(|index| json!({"id": format!("a{index}"), "title": format!("Running: echo {index}")}))
        .collect();
    let mut session = Session::new(|_| json!({"requests": requests}));
    // The default gaps of the built-in adapter data.
    session.env.env.remove("ONEWORKS_KIRO_ADAPTER_FILE");
    let settle = 500.0;
    session.start();
    let mut totals = Vec::new();
    for index in 0..RUNS {
        let card = session.wait_card("pending", |card| card["state"] == "pending");
        let started = Instant::now();
        session.answer(&card, "accept").assert_success();
        totals.push(started.elapsed().as_secs_f64() * 1000.0);
        session.assert_keys(&vec!["Enter"; index + 1]);
    }
    totals.sort_by(f64::total_cmp);
    // A command that starts, loads settings and asks the supervisor: the
    // part of `answer` that is not the delivery.
    let start_up = {
        let started = Instant::now();
        session
            .env
            .run(&["session", "list", "--json"])
            .assert_success();
        started.elapsed().as_secs_f64() * 1000.0
    };
    println!(
        "answer → Enter sent: p50 {:.1} ms, p95 {:.1} ms; deliberate wait {settle} ms (settle); everything else p50 {:.1} ms, of which ~{start_up:.1} ms is a `oneworks session` command's own start (`session list`) (target ≤ 50 ms)",
        percentile(&totals, 0.5),
        percentile(&totals, 0.95),
        percentile(&totals, 0.5) - settle
    );
    session.stop_and_check();
}
