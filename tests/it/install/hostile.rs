//! Hostile archives and a hostile managed tree
//! (symlinks and special files where the installer expects folders and a
//! regular executable), and a hostile `kiro.lock` (a link, a FIFO, a huge
//! file). Each must be refused — exit 6 for what is unsafe to read, with
//! its name (a tar entry by its type letter) — leave nothing outside
//! staging and publish nothing.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::support::archive::{self, Entry, Format};
use crate::support::manifest::{self, Libc};
use crate::support::server::Route;
use crate::support::{assert_prepared, walk, Artifact, Outcome, TestEnv};

const VERSION: &str = "2.15.1";

/// A name no other test uses, so files an attack created can be found.
fn marker(env: &TestEnv) -> String {
    let base = env.base();
    let name = base
        .file_name()
        .expect("temp dir name")
        .to_string_lossy()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "");
    format!("owevil{name}")
}

fn serve_archive(env: &TestEnv, format: Format, bytes: Vec<u8>) -> Artifact {
    let artifact = Artifact::new(VERSION, format, Libc::Gnu, bytes);
    env.server.route(
        &artifact.server_path,
        Route::Ok(artifact.bytes.clone().into()),
    );
    env.serve_manifest(&manifest::document(
        VERSION,
        std::slice::from_ref(&artifact.entry),
    ));
    artifact
}

/// Everything an attack could have left: returns what is wrong, empty when
/// the refusal was clean.
fn check_refusal(env: &TestEnv, marker: &str, outcome: &Outcome) -> Vec<String> {
    let mut problems = Vec::new();
    if outcome.code != Some(6) {
        problems.push(format!("expected exit 6\n{}", outcome.describe()));
        return problems;
    }
    match outcome.json()["error"]["kind"].as_str() {
        Some("unsafe_archive") => {}
        other => problems.push(format!("error kind {other:?}, expected unsafe_archive")),
    }
    let hint = &outcome.json()["error"]["hint"];
    if hint != "the archive was refused and nothing was installed: check that the mirror serves Kiro CLI's own archives" {
        problems.push(format!("unexpected hint {hint}"));
    }
    if std::fs::symlink_metadata(env.version_dir(VERSION)).is_ok() {
        problems.push("the version was published".to_owned());
    }
    let staging_left = walk(&env.staging_dir());
    if !staging_left.is_empty() {
        problems.push(format!("staging not cleaned: {staging_left:?}"));
    }
    let spool_left: Vec<_> = walk(&env.cache)
        .into_iter()
        .filter(|path| path.is_file())
        .collect();
    if !spool_left.is_empty() {
        problems.push(format!("spool not cleaned: {spool_left:?}"));
    }
    let base = env.base();
    let mut planted: Vec<_> = walk(&base)
        .into_iter()
        .filter(|path| path.to_string_lossy().contains(marker))
        .collect();
    // A deep `../` could climb out of the test's temp dir.
    for ancestor in base.ancestors().skip(1).take(3) {
        if let Ok(entries) = std::fs::read_dir(ancestor) {
            planted.extend(
                entries
                    .flatten()
                    .map(|entry| entry.path())
                    .filter(|path| path.to_string_lossy().contains(marker)),
            );
        }
    }
    if !planted.is_empty() {
        problems.push(format!("files planted by the archive: {planted:?}"));
    }
    let outside: Vec<_> = walk(&env.outside);
    if outside != vec![env.outside.join("secret")] {
        problems.push(format!("the outside folder changed: {outside:?}"));
    }
    let secret = env.outside.join("secret");
    match std::fs::symlink_metadata(&secret) {
        Ok(meta) if meta.nlink() == 1 && meta.is_file() => {}
        other => problems.push(format!(
            "the outside secret was linked or replaced: {other:?}"
        )),
    }
    if std::fs::read_to_string(&secret).ok().as_deref() != Some("secret\n") {
        problems.push("the outside secret was modified".to_owned());
    }
    problems
}

fn refuse_all(format: Format, cases: fn(&str, &str, &str) -> Vec<archive::Hostile>) {
    let mut failures = Vec::new();
    // Each case gets its own world, so the attack's marker and outside
    // folder are built per case.
    let count = cases(VERSION, "marker", "/outside").len();
    for index in 0..count {
        let env = TestEnv::new();
        let marker = marker(&env);
        let case = cases(VERSION, &marker, &env.outside.to_string_lossy()).swap_remove(index);
        serve_archive(&env, format, archive::pack(format, &case.entries));
        let outcome = env.prepare(&[]);
        let mut problems = check_refusal(&env, &marker, &outcome);
        if problems.is_empty()
            && !outcome.json()["error"]["message"]
                .as_str()
                .is_some_and(|message| message.contains(&case.offender))
        {
            problems.push(format!(
                "the message should name the entry `{}`\n{}",
                case.offender,
                outcome.describe()
            ));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{format:?} `{}`:\n  {}",
                case.name,
                problems.join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn hostile_tar_gz_entries_are_refused() {
    refuse_all(Format::TarGz, archive::hostile_tar_cases);
}

#[test]
fn hostile_tar_zst_entries_are_refused() {
    refuse_all(Format::TarZst, archive::hostile_tar_cases);
}

#[test]
fn hostile_zip_entries_are_refused() {
    refuse_all(Format::Zip, archive::hostile_zip_cases);
}

#[test]
fn the_hostile_cases_are_not_refused_for_another_reason() {
    // The same builders with nothing hostile added must install: otherwise
    // the refusals above could come from a broken archive, not the attack.
    for format in [Format::TarGz, Format::TarZst, Format::Zip] {
        let env = TestEnv::new();
        serve_archive(
            &env,
            format,
            archive::pack(format, &archive::kiro_entries(VERSION)),
        );
        assert_prepared(&env.prepare(&[]), "managed", VERSION);
    }
    let env = TestEnv::new();
    let mut entries = archive::kiro_entries(VERSION);
    entries.push(Entry::symlink("kirocli/bin/q", "kiro-cli"));
    serve_archive(&env, Format::TarGz, archive::pack(Format::TarGz, &entries));
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    let link = env.version_dir(VERSION).join("kirocli/bin/q");
    assert_eq!(
        std::fs::read_link(&link).ok(),
        Some(std::path::PathBuf::from("kiro-cli")),
        "a symlink that stays inside the archive is kept"
    );
}

#[test]
fn archive_expanding_past_the_size_bound_is_refused() {
    let mut failures = Vec::new();
    for format in [Format::TarGz, Format::TarZst, Format::Zip] {
        let env = TestEnv::new();
        let bytes = archive::bomb(format, VERSION, 16 * 1024 * 1024);
        assert!(
            bytes.len() * 8 < 16 * 1024 * 1024,
            "{format:?} bomb compresses to {} bytes, too big for the test",
            bytes.len()
        );
        serve_archive(&env, format, bytes);
        let outcome = env.prepare(&[]);
        let problems = check_refusal(&env, &marker(&env), &outcome);
        if !problems.is_empty() {
            failures.push(format!("{format:?}:\n  {}", problems.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn only_the_executable_bit_of_modes_is_kept() {
    let env = TestEnv::new();
    let mut entries = archive::kiro_entries(VERSION);
    entries.push(Entry::file("kirocli/bin/setuid", 0o4777, "#!/bin/sh\n"));
    entries.push(Entry::file("kirocli/world-writable", 0o666, "data\n"));
    serve_archive(&env, Format::TarGz, archive::pack(Format::TarGz, &entries));
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    let mode = |path: &str| {
        std::fs::metadata(env.version_dir(VERSION).join(path))
            .expect("installed file")
            .mode()
            & 0o7777
    };
    assert_eq!(
        mode("kirocli/bin/setuid") & 0o7000,
        0,
        "setuid/setgid/sticky dropped"
    );
    assert_eq!(
        mode("kirocli/bin/setuid") & 0o100,
        0o100,
        "executable bit kept"
    );
    assert_eq!(
        mode("kirocli/world-writable") & 0o022,
        0,
        "group/other write dropped"
    );
}

// ---------------------------------------------------------------------------
// Hostile managed tree.

/// Installs VERSION cleanly and returns the env.
fn installed() -> TestEnv {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    env
}

/// Why a symlink is refused.
const SYMLINK: &str =
    "it is a symbolic link (oneworks never follows links inside its managed folders)";

/// Exit 6 with the message ``refusing to use `PATH`: REASON``.
#[track_caller]
fn assert_refused(outcome: &Outcome, path: &Path, reason: &str) {
    let message = outcome.assert_error(6, "unsafe_archive");
    assert_eq!(
        message,
        format!("refusing to use `{}`: {reason}", path.display()),
        "{}",
        outcome.describe()
    );
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link)
        .unwrap_or_else(|error| panic!("symlink {}: {error}", link.display()));
}

#[test]
fn managed_root_that_is_a_symlink_is_refused() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let elsewhere = env.base().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("elsewhere");
    std::fs::create_dir_all(env.kiro_root().parent().expect("adapters")).expect("adapters");
    symlink(&elsewhere, &env.kiro_root());
    assert_refused(&env.prepare(&[]), &env.kiro_root(), SYMLINK);
    assert!(
        walk(&elsewhere).is_empty(),
        "wrote through the symlink: {:?}",
        walk(&elsewhere)
    );
}

#[test]
fn ancestor_symlink_under_oneworks_home_is_refused() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let elsewhere = env.base().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("elsewhere");
    std::fs::create_dir_all(&env.oneworks_home).expect("oneworks home");
    let adapters = env.oneworks_home.join("adapters");
    symlink(&elsewhere, &adapters);
    assert_refused(&env.prepare(&[]), &adapters, SYMLINK);
    assert!(
        walk(&elsewhere).is_empty(),
        "wrote through the symlink: {:?}",
        walk(&elsewhere)
    );
}

#[test]
fn versions_folder_that_is_a_symlink_is_refused() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let elsewhere = env.base().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("elsewhere");
    std::fs::create_dir_all(env.kiro_root()).expect("kiro root");
    symlink(&elsewhere, &env.versions_dir());
    assert_refused(&env.prepare(&[]), &env.versions_dir(), SYMLINK);
    assert!(
        walk(&elsewhere).is_empty(),
        "wrote through the symlink: {:?}",
        walk(&elsewhere)
    );
}

#[test]
fn version_folder_that_is_a_symlink_is_refused() {
    let env = installed();
    let moved = env.base().join("moved-version");
    std::fs::rename(env.version_dir(VERSION), &moved).expect("move version");
    symlink(&moved, &env.version_dir(VERSION));
    assert_refused(&env.prepare(&[]), &env.version_dir(VERSION), SYMLINK);
    assert_refused(
        &env.prepare(&["--offline"]),
        &env.version_dir(VERSION),
        SYMLINK,
    );
}

#[test]
fn executable_symlink_escaping_the_version_folder_is_refused() {
    let env = installed();
    let binary = env.managed_binary(VERSION);
    let planted = env.outside.join("kiro-cli");
    std::fs::copy(&binary, &planted).expect("copy binary outside");
    std::fs::remove_file(&binary).expect("remove binary");
    symlink(&planted, &binary);
    assert_refused(&env.prepare(&[]), &binary, SYMLINK);
    assert_refused(&env.prepare(&["--offline"]), &binary, SYMLINK);
}

#[test]
fn executable_that_is_a_folder_is_refused() {
    let env = installed();
    let binary = env.managed_binary(VERSION);
    std::fs::remove_file(&binary).expect("remove binary");
    std::fs::create_dir(&binary).expect("folder in its place");
    let reason = "it is a directory, not a regular file";
    assert_refused(&env.prepare(&[]), &binary, reason);
    assert_refused(&env.prepare(&["--offline"]), &binary, reason);
}

#[test]
fn executable_that_is_a_fifo_is_refused() {
    let env = installed();
    let binary = env.managed_binary(VERSION);
    std::fs::remove_file(&binary).expect("remove binary");
    let status = std::process::Command::new("mkfifo")
        .arg(&binary)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo failed");
    let reason = "it is a FIFO, not a regular file";
    assert_refused(&env.prepare(&[]), &binary, reason);
    assert_refused(&env.prepare(&["--offline"]), &binary, reason);
}

#[test]
fn a_duplicate_in_a_zip_with_prepended_bytes_is_refused() {
    let env = TestEnv::new();
    let marker = marker(&env);
    let case = archive::hostile_zip_cases(VERSION, &marker, &env.outside.to_string_lossy())
        .into_iter()
        .find(|case| case.name == "duplicate")
        .expect("duplicate case");
    // Self-extracting zips carry a prefix; offsets in the directory then
    // do not point where they say.
    let mut bytes = b"JUNKPREFIX".to_vec();
    bytes.extend(archive::pack(Format::Zip, &case.entries));
    serve_archive(&env, Format::Zip, bytes);
    let outcome = env.prepare(&[]);
    let problems = check_refusal(&env, &marker, &outcome);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A project's `kiro.lock` comes from a repository that may be hostile: a
/// FIFO is refused rather than waited on, a link is not followed out of
/// the project, and a huge file is not swallowed.
#[test]
fn a_hostile_kiro_lock_is_refused_not_followed_or_waited_on() {
    let env = TestEnv::new();
    let lock = env.kiro_lock();
    let victim = env.outside.join("victim.json");
    std::fs::write(&victim, "{}").expect("victim");
    std::os::unix::fs::symlink(&victim, &lock).expect("link kiro.lock");
    for args in [
        &["adapter", "prepare", "kiro", "--offline", "--json"][..],
        &["adapter", "status", "kiro", "--json"][..],
    ] {
        let outcome = env.run(args);
        let message = outcome.assert_error(6, "unsafe_archive");
        assert_eq!(
            message,
            format!(
                "refusing to read `{}`: it is a symbolic link",
                lock.display()
            )
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "{}");

    std::fs::remove_file(&lock).expect("unlink");
    let made = std::process::Command::new("mkfifo")
        .arg(&lock)
        .status()
        .expect("mkfifo");
    assert!(made.success(), "mkfifo");
    let outcome = env.prepare(&["--offline"]);
    let message = outcome.assert_error(6, "unsafe_archive");
    assert_eq!(
        message,
        format!(
            "refusing to read `{}`: it is a FIFO, not a regular file",
            lock.display()
        )
    );

    std::fs::remove_file(&lock).expect("unlink");
    let file = std::fs::File::create(&lock).expect("create");
    file.set_len(2 * 1024 * 1024).expect("grow");
    let outcome = env.prepare(&["--offline"]);
    let message = outcome.assert_error(3, "config");
    assert_eq!(
        message,
        format!("`{}` is larger than 1048576 bytes", lock.display())
    );
    env.assert_nothing_published("2.15.1");
}

/// An archive entry of a type oneworks does not handle is refused in plain
/// words: its tar type letter, not a Rust enum's debug name.
#[test]
fn an_unsupported_tar_entry_type_is_named_by_its_letter() {
    let env = TestEnv::new();
    let mut inner = archive::tar(&archive::kiro_entries("2.15.1"));
    // Drop the two zero blocks that end the archive, append a GNU "volume
    // header" entry (type `V`), and end the archive again.
    inner.truncate(inner.len() - 1024);
    let mut builder = tar::Builder::new(inner);
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::new(b'V'));
    header.set_mode(0o644);
    header.set_size(4);
    header.set_path("kirocli/odd").expect("path");
    header.set_cksum();
    builder.append(&header, &b"data"[..]).expect("append");
    let bytes = archive::gzip(&builder.into_inner().expect("finish"));
    let artifact = Artifact::new("2.15.1", Format::TarGz, Libc::Gnu, bytes);
    env.server.route(
        &artifact.server_path,
        Route::Ok(artifact.bytes.clone().into()),
    );
    env.serve_manifest(&manifest::document(
        "2.15.1",
        std::slice::from_ref(&artifact.entry),
    ));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(6, "unsafe_archive");
    assert!(
        message.ends_with("unsupported entry type `V`"),
        "{}",
        outcome.describe()
    );
    env.assert_nothing_published("2.15.1");
}
