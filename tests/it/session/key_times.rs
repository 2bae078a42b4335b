//! The fake TUI's `keyTimes` log, which benches/session.sh reads: every key
//! with the `CLOCK_MONOTONIC` nanoseconds of its arrival, in the order the
//! keys came, on the clock the benchmark driver reads.

use serde_json::json;

use crate::session::supervisor::{request, Session};

fn monotonic_ns() -> u128 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    u128::try_from(now.tv_sec).expect("seconds") * 1_000_000_000
        + u128::try_from(now.tv_nsec).expect("nanoseconds")
}

#[test]
fn the_fake_tui_stamps_each_key_with_its_monotonic_arrival() {
    let session = Session::new(|markers| {
        json!({
            "requests": [request("r1", "Running: ls -la")],
            "keyTimes": markers.join("key-times.log"),
        })
    });
    session.start();
    let card = session.pending_card();
    let before = monotonic_ns();
    session.answer(&card, "decline").assert_success();
    session.assert_keys(&["Down", "Down", "Enter"]);
    let after = monotonic_ns();
    let text = std::fs::read_to_string(session.marker("key-times.log")).expect("key times");
    let stamped: Vec<(u128, String)> = text
        .lines()
        .map(|line| {
            let (ns, name) = line.split_once(' ').expect("`<ns> <name>`");
            (ns.parse().expect("nanoseconds"), name.to_owned())
        })
        .collect();
    let names: Vec<&str> = stamped.iter().map(|(_, name)| name.as_str()).collect();
    assert_eq!(names, ["Down", "Down", "Enter"], "{text}");
    let times: Vec<u128> = stamped.iter().map(|(ns, _)| *ns).collect();
    assert!(times.windows(2).all(|pair| pair[0] <= pair[1]), "{text}");
    assert!(
        before <= times[0] && times[2] <= after,
        "keys at {times:?} not within the answer ({before} … {after})"
    );
    session.stop_and_check();
}
