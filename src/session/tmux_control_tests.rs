//! The looks' timing on a simulated clock, and the fall back to polling.

use super::*;

/// Steps a millisecond clock over `total`, with output at every step for
/// which `output` says so; returns the times (ms) the pane was looked at.
fn simulate(total: u64, output: impl Fn(u64) -> bool) -> Vec<u64> {
    let start = Instant::now();
    let mut pacing = Pacing::default();
    let mut looks = Vec::new();
    for ms in 0..total {
        let now = start + Duration::from_millis(ms);
        if output(ms) {
            pacing.changed();
        }
        if pacing.due().is_none_or(|due| due <= now) {
            pacing.looked(now);
            looks.push(ms);
        }
    }
    looks
}

#[test]
fn an_idle_pane_is_looked_at_once_then_only_for_safety() {
    let looks = simulate(30_000, |_| false);
    assert_eq!(looks, [0, 10_000, 20_000]);
}

#[test]
fn output_after_a_long_quiet_is_looked_at_at_once_and_once_more_after_it_stops() {
    // One burst (a box drawn in a few writes) at 25 s.
    let looks = simulate(26_000, |ms| (25_000..25_003).contains(&ms));
    assert_eq!(looks, [0, 10_000, 20_000, 25_000, 25_100, 25_200]);
}

#[test]
fn a_flood_of_output_is_coalesced() {
    // Output every millisecond for 5 s (an agent streaming).
    let looks = simulate(5_000, |_| true);
    assert!(looks.len() <= 51, "{} looks in 5 s", looks.len());
    assert!(
        looks.windows(2).all(|pair| pair[1] - pair[0] >= 100),
        "{looks:?}"
    );
    // And still at least every COALESCE while it flows.
    assert!(looks.windows(2).all(|pair| pair[1] - pair[0] <= 100));
}

/// A change source fed by the test.
struct Fed(tokio::sync::mpsc::UnboundedReceiver<()>);

impl Changes for Fed {
    async fn changed(&mut self) -> bool {
        self.0.recv().await.is_some()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_source_that_ends_leaves_polling() {
    let (send, receive) = tokio::sync::mpsc::unbounded_channel();
    let mut pace = Pace::new(Some(Fed(receive)), Duration::from_millis(5));
    assert_eq!(pace.next().await, LookReason::Due, "the first look");
    send.send(()).expect("send");
    assert_eq!(pace.next().await, LookReason::Due, "after output");
    drop(send);
    // The trailing look may come first; the end is seen right after.
    let mut next = pace.next().await;
    if next == LookReason::Due {
        next = pace.next().await;
    }
    assert_eq!(next, LookReason::SourceEnded);
    assert!(!pace.is_event_driven());
    assert_eq!(pace.next().await, LookReason::Poll);
    assert_eq!(pace.next().await, LookReason::Poll);
}
