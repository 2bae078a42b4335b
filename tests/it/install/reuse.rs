//! Reusing a managed install: the binary is compared with
//! its install record before reuse; a broken one is reported — by
//! `prepare --offline` as exit 7, by `adapter status` with the probes it
//! ran — and a plain `prepare` reinstalls it instead of reusing it.

use crate::install::launch::{break_binary, BROKEN};
use crate::support::archive::{self, Format};
use crate::support::{assert_prepared, TestEnv};

const VERSION: &str = "2.15.1";

fn installed_env() -> TestEnv {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    env
}

/// Temp paths and digests vary from run to run.
fn snapshot_filters() -> Vec<(&'static str, &'static str)> {
    vec![
        crate::support::TEMP_FOLDER_FILTER,
        (r"\b[0-9a-f]{64}\b", "[SHA256]"),
    ]
}

#[test]
fn offline_refuses_a_broken_install_with_a_hint() {
    let env = installed_env();
    let binary = env.managed_binary(VERSION);
    break_binary(&binary);
    let hits = env.server.total_hits();
    let outcome = env.prepare(&["--offline"]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert_eq!(
        message,
        format!(
            "the installed `kiro-cli` {VERSION} at `{}` is broken: its binary changed since it was installed ({} bytes, recorded {}), and it fails its probe: `--version` exited with status 1",
            binary.display(),
            BROKEN.len(),
            archive::kiro_script(VERSION).len()
        )
    );
    assert_eq!(
        outcome.json()["error"]["hint"],
        "reinstall it with `oneworks adapter prepare kiro --force`"
    );
    assert_eq!(env.server.total_hits(), hits, "--offline makes no request");
    assert_eq!(
        std::fs::read_to_string(&binary).expect("binary"),
        BROKEN,
        "nothing was changed"
    );
}

#[test]
fn a_touched_but_identical_binary_is_still_reused() {
    let env = installed_env();
    let binary = env.managed_binary(VERSION);
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(120);
    std::fs::File::options()
        .write(true)
        .open(&binary)
        .expect("open")
        .set_modified(later)
        .expect("touch");
    let document = assert_prepared(&env.prepare(&["--offline"]), "managed", VERSION);
    assert_eq!(document["reused"], true);
}

#[test]
fn a_plain_prepare_reinstalls_a_broken_install() {
    let env = installed_env();
    let binary = env.managed_binary(VERSION);
    break_binary(&binary);
    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    assert_eq!(document["reused"], false, "{}", outcome.describe());
    outcome.assert_stderr_contains(format!(
            "the installed kiro-cli {VERSION} is broken (its binary changed since it was installed ({} bytes, recorded {}); `--version` exited with status 1): reinstalling it",
            BROKEN.len(),
            archive::kiro_script(VERSION).len()
        ));
    assert_eq!(
        std::fs::read_to_string(&binary).expect("binary"),
        archive::kiro_script(VERSION)
    );
    env.assert_no_leftovers();
}

#[test]
fn status_probes_the_managed_install_and_reports_a_broken_one() {
    let env = installed_env();
    let outcome = env.status();
    let status = outcome.json();
    let managed = &status["candidates"][0];
    assert_eq!(managed["source"], "managed", "{}", outcome.describe());
    assert_eq!(managed["version_output"], format!("kiro-cli {VERSION}"));
    assert_eq!(
        managed["probes"],
        serde_json::json!({"version": true, "acp": true})
    );
    assert_eq!(status["selected"]["version"], VERSION);

    break_binary(&env.managed_binary(VERSION));
    let outcome = env.status();
    let status = outcome.json();
    assert_eq!(
        status["selected"],
        serde_json::Value::Null,
        "{}",
        outcome.describe()
    );
    let managed = &status["candidates"][0];
    assert_eq!(
        managed["probes"],
        // `acp --help` is not run after a failed `--version`.
        serde_json::json!({"version": false, "acp": null})
    );
    assert_eq!(managed["usable"], false);
    assert_eq!(
        managed["reason"],
        format!(
            "its binary changed since it was installed ({} bytes, recorded {}), and `--version` exited with status 1",
            BROKEN.len(),
            archive::kiro_script(VERSION).len()
        )
    );
}

#[test]
fn human_status_of_a_good_and_a_broken_install() {
    let env = installed_env();
    let good = env.run(&["adapter", "status", "kiro"]);
    good.assert_success();
    break_binary(&env.managed_binary(VERSION));
    let broken = env.run(&["adapter", "status", "kiro"]);
    broken.assert_success();
    insta::with_settings!({ filters => snapshot_filters() }, {
        insta::assert_snapshot!("status_good", good.stderr);
        insta::assert_snapshot!("status_broken", broken.stderr);
    });
}

/// A managed install whose binary was replaced by a link is reported by
/// `adapter status` as a skipped candidate with its reason — the report
/// itself does not fail — and nothing is selected.
#[test]
fn status_reports_a_linked_managed_binary_as_skipped() {
    let env = TestEnv::new();
    env.publish("2.15.1", &[Format::TarGz]);
    env.prepare(&[]).assert_success();
    let binary = env.managed_binary("2.15.1");
    let elsewhere = env.outside.join("kiro-cli");
    std::fs::rename(&binary, &elsewhere).expect("move binary");
    std::os::unix::fs::symlink(&elsewhere, &binary).expect("link binary");
    let outcome = env.status();
    outcome.assert_success();
    let document = outcome.json();
    assert_eq!(document["selected"], serde_json::Value::Null);
    let candidate = &document["candidates"][0];
    assert_eq!(candidate["source"], "managed");
    assert_eq!(candidate["usable"], false);
    assert_eq!(
        candidate["reason"],
        format!(
            "refusing to use `{}`: it is a symbolic link (oneworks never follows links inside \
             its managed folders); `oneworks adapter prepare kiro --force` reinstalls it",
            binary.display()
        )
    );
}
