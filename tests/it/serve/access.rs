//! Who may open `session serve`: only a bearer header opens the API
//! (never a cookie or a query, no redirect to another host), `--open`
//! hands the opener only the path of a private file (nothing in its argv
//! opens anything), and a foreign Host or Origin is refused.

use std::os::unix::fs::MetadataExt;

use super::*;

#[test]
fn only_a_bearer_header_opens_the_api_never_a_cookie_or_a_query() {
    let env = env_with_project();
    let serve = Serve::start(&env, &[]);
    let cookie = format!("oneworks_serve_{}={}", serve.port, serve.token);
    let attempts: Vec<(&str, reqwest::blocking::RequestBuilder)> = vec![
        ("nothing", serve.raw(reqwest::Method::GET, "/api/cards")),
        (
            "a query",
            serve.raw(
                reqwest::Method::GET,
                &format!("/api/cards?token={}", serve.token),
            ),
        ),
        (
            "the old cookie",
            serve
                .raw(reqwest::Method::GET, "/api/cards")
                .header(header::COOKIE, &cookie),
        ),
        (
            "a wrong bearer",
            serve
                .raw(reqwest::Method::GET, "/api/cards")
                .bearer_auth(one_character_off(&serve.token)),
        ),
        (
            "the token as Basic",
            serve
                .raw(reqwest::Method::GET, "/api/cards")
                .header(header::AUTHORIZATION, format!("Basic {}", serve.token)),
        ),
        (
            "the view with a query",
            serve.raw(
                reqwest::Method::GET,
                &format!("/view?token={}", serve.token),
            ),
        ),
        ("the events", serve.raw(reqwest::Method::GET, "/events")),
    ];
    for (what, attempt) in attempts {
        let response = attempt.send().expect("GET");
        assert_eq!(response.status(), 401, "{what}");
        assert_no_cookie_no_redirect(&response, what);
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(response.headers()[name], value, "{what}: {name}");
        }
        assert_eq!(response.text().expect("body"), "Unauthorized", "{what}");
    }

    // The shell is open to all, with or without the old `?token=`: no data,
    // no cookie, no redirect.
    for path in ["/", &format!("/?token={}", serve.token)] {
        let shell = serve.raw(reqwest::Method::GET, path).send().expect("GET");
        assert_eq!(shell.status(), 200, "{path}");
        assert_no_cookie_no_redirect(&shell, path);
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(shell.headers()[name], value, "{path}: {name}");
        }
        let html = shell.text().expect("body");
        assert!(html.contains("<script src=\"/assets/serve.js\""), "{html}");
        assert!(html.contains("<noscript>"), "{html}");
        assert!(html.contains("needs JavaScript"), "{html}");
        assert!(!html.contains("<script>"), "inline script: {html}");
        assert!(!html.contains("style="), "inline style: {html}");
        assert!(!html.contains("No session in this project"), "data: {html}");
        assert!(!html.contains(&serve.token), "{html}");
    }
    for (path, kind) in [
        ("/assets/serve.js", "text/javascript"),
        ("/assets/serve.css", "text/css"),
    ] {
        let asset = serve.raw(reqwest::Method::GET, path).send().expect("GET");
        assert_eq!(asset.status(), 200, "{path}");
        assert_eq!(asset.headers()[header::CONTENT_TYPE], kind, "{path}");
    }

    let view = serve.get("/view");
    assert_eq!(view.status(), 200);
    assert_no_cookie_no_redirect(&view, "the view");
    assert!(view
        .text()
        .expect("body")
        .contains("No session in this project"));
    let sessions = serve.get("/api/sessions");
    assert_eq!(sessions.status(), 200);
    assert_no_cookie_no_redirect(&sessions, "the API");
    assert_eq!(json_of(sessions), json!([]));
    // The page's old form route is gone: the page answers through the API.
    let form = serve
        .raw(reqwest::Method::POST, "/cards/x/answer")
        .bearer_auth(&serve.token)
        .header(header::ORIGIN, &serve.base)
        .form(&[("action", "accept")])
        .send()
        .expect("POST");
    assert_eq!(form.status(), 404);
}

#[test]
fn no_path_redirects_to_another_host() {
    let env = env_with_project();
    let serve = Serve::start(&env, &[]);
    let token = &serve.token;
    for path in [
        format!("//evil.example/x?token={token}"),
        "//evil.example/x".to_owned(),
        format!("///evil.example/x?token={token}"),
        format!("/%2F%2Fevil.example/x?token={token}"),
        format!("/\\evil.example/x?token={token}"),
        format!("/api/cards?token={token}"),
        format!("/?token={token}&next=//evil.example"),
    ] {
        for bearer in [false, true] {
            let mut get = serve.raw(reqwest::Method::GET, &path);
            if bearer {
                get = get.bearer_auth(token);
            }
            let response = get.send().expect("GET");
            assert_no_cookie_no_redirect(&response, &path);
            let status = response.status().as_u16();
            assert!([200, 401, 404].contains(&status), "{path}: {status}");
            let body = response.text().expect("body");
            assert!(!body.contains("evil.example"), "{path}: {body}");
        }
    }
}

/// Every part of the opener's argv worth trying as a secret: each
/// argument, each of its path components, each run of hex digits in it.
fn parts_of(args: &[String]) -> Vec<String> {
    let mut parts = Vec::new();
    for arg in args {
        parts.push(arg.clone());
        parts.extend(
            Path::new(arg)
                .iter()
                .map(|part| part.to_string_lossy().into_owned()),
        );
        parts.extend(
            arg.split(|c: char| !c.is_ascii_hexdigit())
                .filter(|run| run.len() >= 8)
                .map(str::to_owned),
        );
    }
    parts.sort();
    parts.dedup();
    parts
}

/// Whether `runuser -u nobody -- cat PATH` reads the file.
fn nobody_reads(path: &Path) -> bool {
    let output = std::process::Command::new("runuser")
        .args(["-u", "nobody", "--", "cat"])
        .arg(path)
        .output()
        .expect("runuser");
    output.status.success()
}

#[test]
fn open_hands_the_opener_only_the_path_of_a_private_file() {
    let env = env_with_project();
    // Every folder down to the runtime folder open to pass through, as
    // `/run/user` and `/tmp` are: only oneworks' own folder and file may
    // keep another user out.
    for folder in [env.base(), env.runtime_dir.clone()] {
        crate::support::set_mode(&folder, 0o711);
    }
    let record = record_opener(&env);
    let serve = Serve::start(&env, &["--open"]);
    let (args, recorded) = opener_args(&record);
    assert!(
        !recorded.contains(&serve.token),
        "the token reached the opener's argv or environment: {recorded}"
    );
    assert!(
        recorded.contains("PATH="),
        "the environment was recorded: {recorded}"
    );
    // No process on the machine has the token in its argv.
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        if let Ok(argv) = std::fs::read(entry.path().join("cmdline")) {
            let argv = String::from_utf8_lossy(&argv);
            assert!(!argv.contains(&serve.token), "argv {argv}");
        }
    }

    // Nothing in the argv opens anything: not traded at the old exchange
    // (from the page's origin), not as a bearer.
    let parts = parts_of(&args);
    assert!(parts.len() > 2, "{parts:?}");
    for part in &parts {
        let traded = serve
            .raw(reqwest::Method::POST, "/api/exchange")
            .header(header::ORIGIN, &serve.base)
            .header(header::CONTENT_TYPE, "application/json")
            .body(json!({"code": part}).to_string())
            .send()
            .expect("POST");
        assert_eq!(traded.status(), 401, "{part}");
        assert!(
            !traded.text().expect("body").contains(&serve.token),
            "{part}"
        );
        let as_bearer = serve
            .raw(reqwest::Method::GET, "/api/cards")
            .bearer_auth(part)
            .send()
            .expect("GET");
        assert_eq!(as_bearer.status(), 401, "{part}");
    }

    let (file, _) = opened_file(&record);
    let folder = env.runtime_dir.join("oneworks");
    assert_eq!(file.parent(), Some(folder.as_path()), "{recorded}");
    assert!(file.to_string_lossy().ends_with(".html"), "{recorded}");

    // The file: ours, 0600 in a 0700 folder, closed to another user.
    let mode = |path: &Path| std::fs::metadata(path).expect("meta").mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&folder), 0o700);
    let html = std::fs::read_to_string(&file).expect("the file");
    assert!(html.contains(&serve.url()), "{html}");
    assert!(!html.contains("<script"), "{html}");
    let root = std::fs::metadata(env.base()).expect("meta").uid() == 0;
    if root {
        // A file anyone may read, beside: reached, so the refusal below is
        // the folder's and the file's own.
        let beside = env.runtime_dir.join("readable");
        std::fs::write(&beside, "x").expect("write");
        crate::support::set_mode(&beside, 0o644);
        assert!(
            nobody_reads(&beside),
            "nobody cannot even reach the runtime dir"
        );
        assert!(!nobody_reads(&file), "another user read the file");
    } else {
        crate::support::missing("reading as another user (`runuser -u nobody`) needs root");
    }

    // An API call is not the page: the file waits for the page's first
    // call, then goes.
    assert_eq!(serve.get("/api/cards").status(), 200);
    assert!(file.exists(), "removed before the page loaded");
    assert_eq!(serve.get("/view").status(), 200);
    assert!(!file.exists(), "still there after the page loaded");
}

#[test]
fn the_open_file_goes_after_its_lifetime_and_when_serve_stops() {
    let mut env = env_with_project();
    let record = record_opener(&env);

    // Stopped (Ctrl-C or SIGTERM) before any page loaded.
    let mut serve = Serve::start(&env, &["--open"]);
    let (stopped, _) = opened_file(&record);
    assert!(stopped.exists());
    let status = std::process::Command::new("kill")
        .args(["-TERM", &serve.child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    assert!(serve.child.wait().expect("wait").success());
    assert!(!stopped.exists(), "left behind by a serve that stopped");

    // Killed (no chance to clean up): the next `--open` removes the file
    // once its lifetime is over; its own goes at the end of its lifetime.
    std::fs::remove_file(&record).expect("reset the record");
    let killed = Serve::start(&env, &["--open"]);
    let (left, _) = opened_file(&record);
    drop(killed);
    assert!(left.exists());
    std::fs::remove_file(&record).expect("reset the record");
    env.set_env("ONEWORKS_TEST_OPEN_FILE_MS", "1");
    let next = Serve::start(&env, &["--open"]);
    let (own, _) = opened_file(&record);
    assert_ne!(own, left);
    assert!(!left.exists(), "an expired file of a killed serve was kept");
    wait_until("the file's lifetime ended", DEADLINE, || !own.exists());
    assert_eq!(next.get("/api/cards").status(), 200, "serve goes on");
}

#[test]
fn a_foreign_host_or_origin_is_refused() {
    let env = env_with_project();
    let serve = Serve::start(&env, &[]);
    for host in ["evil.example", "evil.example:80", "localhost:1"] {
        let response = serve
            .client
            .get(format!("{}/", serve.base))
            .header(header::HOST, host)
            .bearer_auth(&serve.token)
            .send()
            .expect("GET");
        assert_eq!(response.status(), 421, "{host}");
    }
    let localhost = serve
        .client
        .get(format!("{}/", serve.base))
        .header(header::HOST, format!("localhost:{}", serve.port))
        .bearer_auth(&serve.token)
        .send()
        .expect("GET");
    assert_eq!(localhost.status(), 200);

    let path = format!("{}/api/cards/no-such-card/answer", serve.base);
    let body = json!({"action": "accept"});
    for origin in [Some("http://evil.example"), Some("null"), None] {
        let mut post = serve
            .client
            .post(&path)
            .bearer_auth(&serve.token)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(origin) = origin {
            post = post.header(header::ORIGIN, origin);
        }
        assert_eq!(post.send().expect("POST").status(), 403, "{origin:?}");
    }
    // The page's own origin passes the check (and finds no such card).
    assert_eq!(
        serve.post("/api/cards/no-such-card/answer", body).status(),
        404
    );
}
