//! Who may open `session serve`: only a bearer header opens the API
//! (never a cookie or a query, no redirect to another host), `--open`
//! hands the opener a single-use code and never the token, and a foreign
//! Host or Origin is refused.

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

#[test]
fn open_hands_the_opener_a_single_use_code_never_the_token() {
    let env = env_with_project();
    let record = record_opener(&env);
    let serve = Serve::start(&env, &["--open"]);
    let (opened, recorded) = opened_url(&record);
    assert!(
        !recorded.contains(&serve.token),
        "the token reached the opener's argv or environment: {recorded}"
    );
    assert!(
        recorded.contains("PATH="),
        "the environment was recorded: {recorded}"
    );
    let prefix = format!("{}/#code=", serve.base);
    let code = opened
        .strip_prefix(&prefix)
        .expect("URL/#code=…")
        .to_owned();
    assert_eq!(code.len(), 64, "{opened}");
    assert!(code.chars().all(|c| c.is_ascii_hexdigit()), "{opened}");
    // No process on the machine has the token in its argv.
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        if let Ok(argv) = std::fs::read(entry.path().join("cmdline")) {
            let argv = String::from_utf8_lossy(&argv);
            assert!(!argv.contains(&serve.token), "argv {argv}");
        }
    }

    // The code is worth nothing but one exchange: not as a bearer, not
    // from another origin (which does not spend it), not twice.
    let as_bearer = serve
        .raw(reqwest::Method::GET, "/api/cards")
        .bearer_auth(&code)
        .send()
        .expect("GET");
    assert_eq!(as_bearer.status(), 401);
    for origin in [Some("http://evil.example"), None] {
        let mut post = serve
            .raw(reqwest::Method::POST, "/api/exchange")
            .header(header::CONTENT_TYPE, "application/json")
            .body(json!({"code": code}).to_string());
        if let Some(origin) = origin {
            post = post.header(header::ORIGIN, origin);
        }
        assert_eq!(post.send().expect("POST").status(), 403, "{origin:?}");
    }
    let wrong = serve.exchange(&one_character_off(&code));
    assert_eq!(wrong.status(), 401);
    let traded = serve.exchange(&code);
    assert_eq!(traded.status(), 200);
    assert_no_cookie_no_redirect(&traded, "the exchange");
    assert_eq!(json_of(traded), json!({"token": serve.token}));
    let again = serve.exchange(&code);
    assert_eq!(again.status(), 401, "a code traded twice");
    assert!(again.headers().get(header::SET_COOKIE).is_none());
    let huge = serve.exchange(&"a".repeat(64 * 1024));
    assert_eq!(huge.status(), 413);
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
