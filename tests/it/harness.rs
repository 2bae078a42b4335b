//! Tests of the test doubles themselves: the fake `kiro-cli`, the local
//! server, the archive builders, the adapter-file editor and the wait. If
//! these fail, the product tests above them prove nothing.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::support::archive::{self, Entry, Format};
use crate::support::fake::{self, install_fake, FAKE_EXE};
use crate::support::manifest::{self, Libc};
use crate::support::server::{Route, Server};

fn run(program: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(program)
        .args(args)
        .env_clear()
        .output()
        .unwrap_or_else(|error| panic!("run {}: {error}", program.display()));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn fake_kiro_answers_the_probes_its_script_describes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let kiro = install_fake(dir.path(), "kiro-cli", &fake::kiro_script("2.15.1"));
    assert_eq!(run(&kiro, &["--version"]).0, Some(0));
    assert_eq!(run(&kiro, &["--version"]).1, "kiro-cli 2.15.1\n");
    assert_eq!(run(&kiro, &["acp", "--help"]).0, Some(0));
    let (code, _, stderr) = run(&kiro, &["frobnicate"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("frobnicate"), "{stderr}");

    let amazon = install_fake(dir.path(), "q", &fake::amazon_q_script());
    assert_eq!(run(&amazon, &["--version"]).1, "q 1.17.0\n");
    assert_eq!(run(&amazon, &["acp", "--help"]).0, Some(2));
    let kiro_q = install_fake(dir.path(), "q2", &fake::kiro_q_script("2.15.1"));
    assert_eq!(run(&kiro_q, &["--version"]).1, "q (Kiro CLI) 2.15.1\n");
    assert_eq!(run(&kiro_q, &["acp", "--help"]).0, Some(0));

    let failing = install_fake(
        dir.path(),
        "failing",
        &json!({ "versionExit": 3, "versionStderr": "boom" }),
    );
    let (code, stdout, stderr) = run(&failing, &["--version"]);
    assert_eq!(
        (code, stdout.as_str(), stderr.trim()),
        (Some(3), "kiro-cli 2.15.1\n", "boom")
    );
}

#[test]
fn fake_kiro_finds_its_script_beside_its_executable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("kiro-cli");
    // Copied by another process: a file this process had open for writing
    // could leak into a concurrently forked child and make exec fail with
    // ETXTBSY.
    let copied = std::process::Command::new("cp")
        .arg(FAKE_EXE)
        .arg(&copy)
        .status()
        .expect("run cp");
    assert!(copied.success(), "copy fake");
    assert_eq!(
        run(&copy, &["--version"]).1,
        "kiro-cli 2.15.1\n",
        "defaults without a script"
    );
    std::fs::write(
        dir.path().join("kiro-cli.script.json"),
        r#"{"versionOutput":"kiro-cli 9.9.9"}"#,
    )
    .expect("write script");
    assert_eq!(run(&copy, &["--version"]).1, "kiro-cli 9.9.9\n");
    // A misspelt field fails loudly rather than testing nothing.
    std::fs::write(
        dir.path().join("kiro-cli.script.json"),
        r#"{"versionOutptu":"kiro-cli 9.9.9"}"#,
    )
    .expect("write script");
    let (code, stdout, stderr) = run(&copy, &["--version"]);
    assert_ne!(code, Some(0), "{stdout}");
    assert!(stderr.contains("unknown field `versionOutptu`"), "{stderr}");
}

#[test]
fn fake_kiro_logs_argv_and_environment() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log.jsonl");
    let kiro = install_fake(
        dir.path(),
        "kiro-cli",
        &fake::with(
            &fake::kiro_script("2.15.1"),
            "log",
            json!(log.to_string_lossy()),
        ),
    );
    let status = Command::new(&kiro)
        .args(["acp", "--help"])
        .env_clear()
        .env("MARKER_VARIABLE", "present")
        .status()
        .expect("run fake");
    assert!(status.success());
    let line: Value = serde_json::from_str(
        std::fs::read_to_string(&log)
            .expect("log")
            .lines()
            .next()
            .expect("a line"),
    )
    .expect("json line");
    assert_eq!(line["argv"], json!(["acp", "--help"]));
    assert_eq!(line["env"]["MARKER_VARIABLE"], "present");
}

/// A raw HTTP/1.1 request; returns (status, headers, body).
fn request(server: &Server, method: &str, path: &str) -> (u16, String, Vec<u8>) {
    let address = server.url("").trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(address).expect("connect");
    write!(stream, "{method} {path} HTTP/1.1\r\nHost: test\r\n\r\n").expect("send");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let split = response
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("response head");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head[9..12].parse().expect("status code");
    (status, head, response[split + 4..].to_vec())
}

#[test]
fn server_routes_faults_and_counts() {
    let server = Server::start();
    assert_eq!(request(&server, "GET", "/missing").0, 404);
    server.route("/a", Route::ok("hello"));
    let (status, head, body) = request(&server, "GET", "/a?x=1");
    assert_eq!((status, body.as_slice()), (200, &b"hello"[..]));
    assert!(head.contains("Content-Length: 5"), "{head}");
    assert_eq!(request(&server, "HEAD", "/a").2, b"");
    assert_eq!(
        server.hits("/a"),
        2,
        "HEAD counts too; the query is not part of the path"
    );
    assert_eq!(server.hits("/missing"), 1);

    server.route("/flaky", Route::fail_then(2, 503, Some(1), Route::ok("ok")));
    let (status, head, _) = request(&server, "GET", "/flaky");
    assert_eq!(status, 503);
    assert!(head.contains("Retry-After: 1"), "{head}");
    assert_eq!(request(&server, "GET", "/flaky").0, 503);
    assert_eq!(request(&server, "GET", "/flaky").2, b"ok");

    server.route(
        "/cut",
        Route::Truncate {
            body: b"0123456789".to_vec().into(),
            send: 4,
        },
    );
    let (_, head, body) = request(&server, "GET", "/cut");
    assert!(head.contains("Content-Length: 10"), "{head}");
    assert_eq!(body, b"0123");

    server.route(
        "/slow",
        Route::Slow {
            body: b"abcdefgh".to_vec().into(),
            chunk: 3,
            delay_ms: 1,
        },
    );
    assert_eq!(request(&server, "GET", "/slow").2, b"abcdefgh");
    assert_eq!(server.total_hits(), 8);
}

#[test]
fn server_stall_waits_for_the_release_file() {
    let server = Server::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let release = dir.path().join("release");
    server.route(
        "/stall",
        Route::Stall {
            body: b"first-second".to_vec().into(),
            after_bytes: 6,
            release: release.clone(),
        },
    );
    let url = server.url("");
    let reader = std::thread::spawn(move || {
        let address = url.trim_start_matches("http://").to_owned();
        let mut stream = TcpStream::connect(address).expect("connect");
        write!(stream, "GET /stall HTTP/1.1\r\n\r\n").expect("send");
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        response
    });
    crate::support::wait::wait_until(
        "the server stalled the request",
        std::time::Duration::from_secs(30),
        || server.stalled("/stall") > 0,
    );
    assert!(
        !reader.is_finished(),
        "the response ended before the release"
    );
    std::fs::write(&release, "").expect("release");
    let response = reader.join().expect("reader");
    assert!(response.ends_with(b"\r\n\r\nfirst-second"));
}

fn unpack_tar(format: Format, bytes: &[u8], into: &Path) {
    let tar_bytes = match format {
        Format::TarGz => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(bytes)
                .read_to_end(&mut out)
                .expect("gunzip");
            out
        }
        Format::TarXz => {
            let mut out = Vec::new();
            liblzma::read::XzDecoder::new(bytes)
                .read_to_end(&mut out)
                .expect("unxz");
            out
        }
        Format::TarZst => zstd::stream::decode_all(bytes).expect("unzstd"),
        Format::Zip => unreachable!(),
    };
    tar::Archive::new(tar_bytes.as_slice())
        .unpack(into)
        .expect("unpack tar");
}

#[test]
fn kiro_archives_unpack_to_a_working_kiro_cli_in_every_format() {
    for format in Format::ALL {
        let bytes = archive::kiro_archive(format, "2.15.1");
        let dir = tempfile::tempdir().expect("temp dir");
        if format == Format::Zip {
            zip::ZipArchive::new(std::io::Cursor::new(&bytes))
                .expect("zip")
                .extract(dir.path())
                .expect("extract zip");
        } else {
            unpack_tar(format, &bytes, dir.path());
        }
        let binary = dir.path().join("kirocli/bin/kiro-cli");
        let (code, stdout, _) = run(&binary, &["--version"]);
        assert_eq!(
            (code, stdout.as_str()),
            (Some(0), "kiro-cli 2.15.1\n"),
            "{format:?}"
        );
        assert_eq!(run(&binary, &["acp", "--help"]).0, Some(0), "{format:?}");
        assert!(dir.path().join("kirocli/bin/kiro-cli-chat").is_file());
        assert!(dir.path().join("kirocli/install.sh").is_file());
    }
}

#[test]
fn hostile_tar_names_are_written_verbatim() {
    let cases = archive::hostile_tar_cases("2.15.1", "owevilX", "/tmp/outside");
    let names = |entries: &[Entry]| -> Vec<(Vec<u8>, Option<Vec<u8>>, tar::EntryType)> {
        let bytes = archive::tar(entries);
        let mut archive = tar::Archive::new(bytes.as_slice());
        archive
            .entries()
            .expect("entries")
            .map(|entry| {
                let entry = entry.expect("entry");
                (
                    entry.path_bytes().into_owned(),
                    entry.link_name_bytes().map(|link| link.into_owned()),
                    entry.header().entry_type(),
                )
            })
            .collect()
    };
    let find = |case: &str| {
        let hostile = cases
            .iter()
            .find(|hostile| hostile.name == case)
            .expect("case");
        names(&hostile.entries)
    };
    assert!(find("parent-dir")
        .iter()
        .any(|(name, ..)| name == b"../owevilX-up1"));
    assert!(find("absolute")
        .iter()
        .any(|(name, ..)| name == b"/tmp/outside/owevilX-absolute"));
    assert!(find("symlink-outside").iter().any(|(name, link, kind)| {
        name == b"kirocli/bin/link"
            && link.as_deref() == Some(&b"../../../outside"[..])
            && kind.is_symlink()
    }));
    assert!(find("hard-link-outside")
        .iter()
        .any(|(_, link, kind)| kind.is_hard_link()
            && link.as_deref() == Some(&b"/tmp/outside/secret"[..])));
    assert!(find("fifo").iter().any(|(_, _, kind)| kind.is_fifo()));
    assert!(find("char-device")
        .iter()
        .any(|(_, _, kind)| kind.is_character_special()));
    let duplicates = find("duplicate")
        .iter()
        .filter(|(name, ..)| name == b"kirocli/bin/kiro-cli")
        .count();
    assert_eq!(duplicates, 2);
    assert!(find("control-character")
        .iter()
        .any(|(name, ..)| name.contains(&0x1b)));
}

#[test]
fn hostile_zip_names_are_written_verbatim() {
    let cases = archive::hostile_zip_cases("2.15.1", "owevilX", "/tmp/outside");
    for hostile in &cases {
        let bytes = archive::zip(&hostile.entries);
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip reads");
        let mut names = Vec::new();
        let mut symlinks = Vec::new();
        for index in 0..zip.len() {
            let file = zip.by_index_raw(index).expect("entry");
            names.push(String::from_utf8_lossy(file.name_raw()).into_owned());
            if file
                .unix_mode()
                .is_some_and(|mode| mode & 0o170000 == 0o120000)
            {
                symlinks.push(file.name().to_owned());
            }
        }
        match hostile.name {
            "parent-dir" => assert!(names.contains(&"../owevilX-up1".to_owned()), "{names:?}"),
            "parent-dir-deep" => assert!(
                names.contains(&"../../../../../owevilX-up5".to_owned()),
                "{names:?}"
            ),
            "absolute" => assert!(
                names.contains(&"/tmp/outside/owevilX-absolute".to_owned()),
                "{names:?}"
            ),
            "symlink-outside" => assert_eq!(symlinks, vec!["kirocli/bin/link".to_owned()]),
            // The `zip` reader keeps one entry per name, so count the
            // central directory records themselves.
            "duplicate" => assert_eq!(
                central_directory_names(&archive::zip(&hostile.entries))
                    .iter()
                    .filter(|name| *name == "kirocli/bin/kiro-cli")
                    .count(),
                2,
                "{names:?}"
            ),
            other => panic!("unchecked zip case {other}"),
        }
    }
}

/// The names of the central directory records (signature `PK\x01\x02`,
/// name length at offset 28, name at offset 46).
fn central_directory_names(bytes: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut index = 0;
    while index + 46 <= bytes.len() {
        if &bytes[index..index + 4] == b"PK\x01\x02" {
            let length = u16::from_le_bytes([bytes[index + 28], bytes[index + 29]]) as usize;
            names.push(
                String::from_utf8_lossy(&bytes[index + 46..index + 46 + length]).into_owned(),
            );
            index += 46 + length;
        } else {
            index += 1;
        }
    }
    names
}

#[test]
fn manifest_entries_describe_their_bytes() {
    let bytes = archive::kiro_archive(Format::TarZst, "2.15.1");
    let entry = manifest::entry("2.15.1", Format::TarZst, Libc::Musl, &bytes);
    assert_eq!(entry["sha256"], manifest::sha256_hex(&bytes));
    assert_eq!(entry["size"], bytes.len());
    assert_eq!(entry["fileType"], "tarZst");
    assert_eq!(
        entry["targetTriple"],
        format!("{}-unknown-linux-musl", manifest::ARCH)
    );
    assert_eq!(
        entry["download"],
        format!("2.15.1/kirocli-{}-linux-musl.tar.zst", manifest::ARCH)
    );
    let bomb = archive::bomb(Format::TarGz, "2.15.1", 16 * 1024 * 1024);
    assert!(
        bomb.len() * 8 < 16 * 1024 * 1024,
        "bomb is {} bytes",
        bomb.len()
    );
}

/// The adapter-file editor changes the value at a key path, lists
/// included, and refuses a key the file does not have instead of writing
/// the built-in file unchanged.
#[test]
fn the_adapter_file_editor_sets_by_key_path_and_refuses_a_missing_key() {
    use crate::support::adapter_yaml::AdapterYaml;
    let mut data = AdapterYaml::builtin("kiro");
    data.set("tui.renderGapMs", 40)
        .set("acp.command.0.program", "other-cli");
    let again = AdapterYaml::parse(&data.text());
    assert_eq!(again.get("tui.renderGapMs").as_u64(), Some(40));
    assert_eq!(
        again.get("acp.command.0.program").as_str(),
        Some("other-cli")
    );
    for path in ["tui.renderGapMsTypo", "acp.command.9.program", "nope.x"] {
        let refused = std::panic::catch_unwind(move || {
            AdapterYaml::builtin("kiro").set(path, 1);
        });
        let message = refused.expect_err(path);
        let message = message
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or_default();
        assert_eq!(message, format!("the adapter file has no `{path}`"));
    }
}

/// The wait returns as soon as its condition holds and fails naming what
/// never happened, with what it saw last.
#[test]
fn the_wait_returns_when_its_condition_holds_and_fails_naming_it() {
    use crate::support::wait::{wait_for, wait_until};
    use std::time::Duration;
    let mut looks = 0;
    let found = wait_for("the third look", Duration::from_secs(10), || {
        looks += 1;
        if looks == 3 {
            Ok(looks)
        } else {
            Err(format!("look {looks}"))
        }
    });
    assert_eq!(found, 3);
    let refused = std::panic::catch_unwind(|| {
        wait_until("never", Duration::from_millis(50), || false);
    });
    let message = refused.expect_err("a wait on a false condition fails");
    let message = message
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(
        message.starts_with("timed out after 50ms waiting until never"),
        "{message}"
    );
}

/// A test that ends early leaves no session running: its `TestEnv`, when
/// dropped, stops every session of its project whose supervisor is alive
/// (the supervisor, its tmux and the agent all end).
#[test]
fn a_session_a_test_leaves_running_is_stopped_when_its_env_drops() {
    use crate::session::supervisor::{alive, assert_gone, record_pids};
    let env = crate::support::TestEnv::new();
    let script = fake::with(&fake::kiro_script("2.15.1"), "tui", json!({}));
    install_fake(&env.bin, "kiro-cli", &script);
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    env.run(&["session", "start", "kiro", "--detach", "--name", "left"])
        .assert_success();
    let record = env.session_record("left").expect("supervisor record");
    let pids = record_pids(&record);
    assert!(pids.iter().all(|pid| alive(*pid)), "{record:#}");
    drop(env);
    assert_gone(&pids);
}
