//! Supervisor re-adoption through the page: a session whose supervisor died while its
//! agent lives is re-adopted when `session serve` looks at it, as every
//! session command does, and its card is answered from the page.

use super::*;

#[test]
fn the_page_re_adopts_a_session_whose_supervisor_died_and_answers_its_card() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    let serve = Serve::start(&session.env, &[]);
    let card = serve.wait_card("pending", |card| card["state"] == "pending");
    let pids = session.pids();
    crate::support::signal(pids[0], "-KILL");
    wait_until("the supervisor is gone", DEADLINE, || {
        !crate::support::alive(pids[0])
    });
    // The page's next look starts a new supervisor over the same agent.
    wait_until("a new supervisor owns the session", DEADLINE, || {
        serve.wait_card("listed", |seen| seen["id"] == card["id"]);
        session
            .record()
            .is_some_and(|record| record["pid"] != pids[0] && record["panePid"] == pids[2])
    });
    let id = card["id"].as_str().expect("id");
    let response = serve.post(
        &format!("/api/cards/{id}/answer"),
        json!({"action": "accept"}),
    );
    assert_eq!(response.status(), 200);
    session.assert_keys(&["Enter"]);
    serve.wait_card("accepted", |seen| {
        seen["id"] == card["id"] && seen["state"] == "accepted"
    });
    session.stop_and_check();
}
