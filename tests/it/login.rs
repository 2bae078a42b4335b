//! `adapter login kiro` (SPEC §3): resolves Kiro like `run` — no request
//! when a version is installed — and needs a terminal.

use crate::support::archive::Format;
use crate::support::TestEnv;

const VERSION: &str = "2.15.1";

#[test]
fn login_with_a_version_installed_makes_no_request() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.prepare(&[]).assert_success();
    let requests = env.server.total_hits();
    assert!(requests > 0, "prepare asked the server");
    let outcome = env.run_on_terminal(&["adapter", "login", "kiro"]);
    outcome.assert_success();
    assert_eq!(
        env.server.total_hits(),
        requests,
        "login made a request although {VERSION} is installed\n{}",
        outcome.describe()
    );
}

#[test]
fn login_with_nothing_installed_prepares_first() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.run_on_terminal(&["adapter", "login", "kiro"]);
    outcome.assert_success();
    assert!(env.server.total_hits() > 0, "{}", outcome.describe());
    assert!(env.version_dir(VERSION).join("install.json").is_file());
}

#[test]
fn login_without_a_terminal_is_refused_before_any_request() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.run(&["adapter", "login", "kiro"]);
    outcome.assert_code(2);
    assert_eq!(env.server.total_hits(), 0, "{}", outcome.describe());
    assert!(!env.version_dir(VERSION).exists(), "nothing installed");
}
