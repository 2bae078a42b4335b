//! Many `prepare` processes on one managed root, the install lock, and
//! processes killed half-way: exactly one download, no half-installed
//! version ever visible, no lock left that blocks the next run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use fs4::fs_std::FileExt;

use crate::support::archive::{self, Format};
use crate::support::manifest::{self, Libc};
use crate::support::server::Route;
use crate::support::wait::{poll, wait_until, DEADLINE};
use crate::support::{
    assert_prepared, path_of, reused, run_binary, walk, Artifact, Running, TestEnv,
};

const VERSION: &str = "2.15.1";
const WAIT: Duration = Duration::from_secs(90);

#[test]
fn eight_concurrent_prepares_download_once() {
    let env = TestEnv::new();
    let release = env.stage_release(VERSION, &[Format::TarGz]);
    let artifact = release.gnu(Format::TarGz).clone();
    // Hold the one download open until every process has asked for the
    // manifest, so they really contend for the install lock.
    let release_marker = env.base().join("release-download");
    env.server.route(
        &artifact.server_path,
        Route::Stall {
            body: artifact.bytes.clone().into(),
            after_bytes: artifact.bytes.len() / 2,
            release: release_marker.clone(),
        },
    );
    env.serve_manifest(&release.manifest());

    let running: Vec<Running> = (0..8)
        .map(|_| {
            env.oneworks()
                .args(["adapter", "prepare", "kiro", "--json"])
                .start()
        })
        .collect();
    // Each process reads the manifest before it takes the install lock, so
    // all eight ask while the download is held: they really contend.
    wait_until(
        "all eight processes asked for the manifest",
        DEADLINE,
        || {
            assert!(
                std::fs::symlink_metadata(env.version_dir(VERSION)).is_err(),
                "the version became visible before its download finished"
            );
            env.manifest_hits() >= 8
        },
    );
    std::fs::write(&release_marker, "go").expect("release download");

    let pids: Vec<u32> = running.iter().map(Running::pid).collect();
    let outcomes: Vec<_> = running.into_iter().map(Running::wait).collect();
    let documents: Vec<_> = outcomes
        .iter()
        .map(|outcome| assert_prepared(outcome, "managed", VERSION))
        .collect();
    let fresh = documents
        .iter()
        .filter(|document| !reused(document))
        .count();
    assert_eq!(
        fresh,
        1,
        "exactly one process installs, the others reuse:\n{}",
        outcomes
            .iter()
            .map(|outcome| outcome.stdout.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The others said whom they waited for (the lock's own wording). Which pid
    // a waiter reads is a race: the holder writes its pid just after it
    // takes the lock, so a waiter may read the previous holder's pid (the
    // installer's, or another reuser's) or none yet. Deterministic: any
    // pid named belongs to another of these processes, never the waiter.
    let waiting = "waiting for another oneworks";
    let waited: Vec<(u32, &str)> = pids
        .iter()
        .zip(&outcomes)
        .filter(|(_, outcome)| outcome.stderr.contains(waiting))
        .map(|(&pid, outcome)| (pid, outcome.stderr.as_str()))
        .collect();
    assert!(
        !waited.is_empty(),
        "no process reported waiting for the lock"
    );
    for (own_pid, stderr) in waited {
        let line = stderr
            .lines()
            .find(|line| line.contains(waiting))
            .unwrap_or_default();
        let named = line
            .split_once("(pid ")
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(pid, _)| pid.parse::<u32>());
        match named {
            None => assert!(
                line.contains("waiting for another oneworks to finish installing"),
                "unexpected wait message: {stderr}"
            ),
            Some(Ok(pid)) => assert!(
                pid != own_pid && pids.contains(&pid),
                "waited for pid {pid}, not another of the spawned {pids:?} (own pid {own_pid}): {stderr}"
            ),
            Some(Err(error)) => panic!("unreadable pid in the wait message ({error}): {stderr}"),
        }
    }
    let path = path_of(&documents[0]);
    assert!(documents.iter().all(|document| path_of(document) == path));
    assert!(documents
        .iter()
        .all(|document| document["sha256"] == documents[0]["sha256"]));
    assert_eq!(
        env.server.hits(&artifact.server_path),
        1,
        "exactly one download"
    );
    assert_eq!(release.artifact_hits(&env.server), 1);
    let (code, output) = run_binary(&path, &["--version"]);
    assert_eq!((code, output.trim()), (Some(0), "kiro-cli 2.15.1"));
    env.assert_no_leftovers();
}

/// Holds the install lock from the test, as another oneworks would.
fn hold_install_lock(env: &TestEnv) -> std::fs::File {
    std::fs::create_dir_all(env.kiro_root()).expect("kiro root");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(env.install_lock())
        .expect("open install lock");
    FileExt::lock_exclusive(&file).expect("lock");
    file
}

#[test]
fn lock_held_by_another_process_times_out_naming_the_variable() {
    let mut env = TestEnv::new();
    let release = env.publish(VERSION, &[Format::TarGz]);
    env.set_env("ONEWORKS_LOCK_TIMEOUT", "1");
    let lock = hold_install_lock(&env);

    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(8, "lock_timeout");
    assert_eq!(
        message,
        format!(
            "timed out after 1s waiting for another oneworks to finish installing (lock `{}`)",
            env.install_lock().display()
        )
    );
    assert_eq!(
        outcome.json()["error"]["hint"],
        "raise ONEWORKS_LOCK_TIMEOUT (seconds) or wait for the other install to finish"
    );
    assert_eq!(
        release.artifact_hits(&env.server),
        0,
        "downloaded without the lock"
    );
    env.assert_nothing_published(VERSION);

    drop(lock);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert!(
        env.install_lock().exists(),
        "the lock file is never deleted"
    );
}

#[test]
fn the_wait_message_names_a_pid_only_while_it_is_alive() {
    use std::io::{Seek, Write};
    let mut env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.set_env("ONEWORKS_LOCK_TIMEOUT", "1");
    let mut lock = hold_install_lock(&env);
    let mut record = |pid: u32| {
        lock.set_len(0).expect("truncate");
        lock.rewind().expect("rewind");
        writeln!(lock, "{pid}").expect("record pid");
    };
    let mut gone = std::process::Command::new("true").spawn().expect("spawn");
    let dead = gone.id();
    gone.wait().expect("wait");
    record(dead);
    let outcome = env.prepare(&[]);
    outcome.assert_error(8, "lock_timeout");
    assert!(
        outcome
            .stderr
            .starts_with("waiting for another oneworks to finish installing\n"),
        "{}",
        outcome.describe()
    );
    assert!(!outcome.all_text().contains(&format!("pid {dead}")));

    let alive = std::process::id();
    record(alive);
    let outcome = env.prepare(&[]);
    outcome.assert_error(8, "lock_timeout");
    assert!(
        outcome.stderr.starts_with(&format!(
            "waiting for another oneworks (pid {alive}) to finish installing\n"
        )),
        "{}",
        outcome.describe()
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn reuse_also_takes_the_install_lock() {
    let mut env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    env.set_env("ONEWORKS_LOCK_TIMEOUT", "1");
    let _lock = hold_install_lock(&env);
    env.prepare(&[]).assert_error(8, "lock_timeout");
}

/// A Kiro archive big enough to stop half-way (the padding is noise, so
/// compression cannot shrink it).
fn padded_artifact(format: Format) -> Artifact {
    let bytes = archive::pack(
        format,
        &archive::kiro_entries_with_padding(VERSION, 4 * 1024 * 1024),
    );
    Artifact::new(VERSION, format, Libc::Gnu, bytes)
}

fn regular_files(dir: &Path) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|path| {
            std::fs::symlink_metadata(path)
                .map(|meta| meta.is_file() && meta.len() > 0)
                .unwrap_or(false)
        })
        .collect()
}

/// Starts a prepare whose download stalls after `fraction_percent` of the
/// artifact, waits until `in_progress` holds, SIGKILLs it, then checks that
/// the next prepare installs cleanly.
fn kill_then_recover(format: Format, fraction_percent: usize, in_progress: fn(&TestEnv) -> bool) {
    let mut env = TestEnv::new();
    env.set_env("ONEWORKS_LOCK_TIMEOUT", "10");
    let artifact = padded_artifact(format);
    let never = env.base().join("never-released");
    env.server.route(
        &artifact.server_path,
        Route::Stall {
            body: artifact.bytes.clone().into(),
            after_bytes: artifact.bytes.len() * fraction_percent / 100,
            release: never,
        },
    );
    env.serve_manifest(&manifest::document(
        VERSION,
        std::slice::from_ref(&artifact.entry),
    ));

    let running = env
        .oneworks()
        .args(["adapter", "prepare", "kiro", "--json"])
        .start();
    let reached = poll(Duration::from_millis(10), WAIT, || {
        assert!(
            std::fs::symlink_metadata(env.version_dir(VERSION)).is_err(),
            "a version folder became visible before the download finished"
        );
        if env.server.stalled(&artifact.server_path) >= 1 && in_progress(&env) {
            Ok(())
        } else {
            Err(String::new())
        }
    });
    if reached.is_err() {
        let outcome = running.kill();
        panic!(
            "the install never reached the point to kill it (staging {:?}, cache {:?})\n{}",
            walk(&env.staging_dir()),
            walk(&env.cache),
            outcome.describe()
        );
    }
    let killed = running.kill();
    assert_eq!(
        killed.code,
        None,
        "killed by a signal\n{}",
        killed.describe()
    );
    assert!(
        std::fs::symlink_metadata(env.version_dir(VERSION)).is_err(),
        "a half-installed version is visible after the kill"
    );

    env.server.route(
        &artifact.server_path,
        Route::Ok(artifact.bytes.clone().into()),
    );
    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    assert!(!reused(&document), "{}", outcome.describe());
    assert_eq!(document["sha256"].as_str(), Some(artifact.sha256.as_str()));
    let (code, output) = run_binary(&path_of(&document), &["--version"]);
    assert_eq!((code, output.trim()), (Some(0), "kiro-cli 2.15.1"));
    let padding = env.version_dir(VERSION).join("kirocli/share/padding.bin");
    assert_eq!(
        std::fs::metadata(&padding).map(|meta| meta.len()).ok(),
        Some(4 * 1024 * 1024),
        "the recovered install is complete"
    );
    assert!(
        env.install_lock().exists(),
        "the lock file is never deleted"
    );
    // The killed run could not clean up after itself; the next one must.
    env.assert_no_leftovers();
}

#[test]
fn sigkill_during_download_leaves_nothing_that_blocks_the_next_prepare() {
    // A zip is spooled to ONEWORKS_CACHE_DIR while it downloads.
    kill_then_recover(Format::Zip, 50, |env| !regular_files(&env.cache).is_empty());
}

#[test]
fn sigkill_during_extraction_leaves_nothing_that_blocks_the_next_prepare() {
    // A tar streams into staging while it downloads: once `kiro-cli` is in
    // staging, extraction is under way.
    kill_then_recover(Format::TarGz, 75, |env| {
        regular_files(&env.staging_dir())
            .iter()
            .any(|path| path.ends_with("kirocli/bin/kiro-cli"))
    });
}
