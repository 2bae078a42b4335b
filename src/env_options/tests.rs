use super::*;

fn with(name: &str, value: &str) -> Environment {
    Environment::from_pairs([(name, value)])
}

fn error_of(name: &str, value: &str) -> EnvError {
    EnvOptions::parse(&with(name, value)).expect_err(name)
}

#[test]
fn durations_are_seconds_or_humantime_and_unset_is_the_default() {
    let none = EnvOptions::parse(&Environment::default()).expect("defaults");
    assert_eq!(none.http_timeout, DEFAULT_HTTP_TIMEOUT);
    assert_eq!(none.lock_timeout, DEFAULT_LOCK_TIMEOUT);
    assert_eq!(none.node_mirror.as_str(), DEFAULT_NODE_MIRROR);
    let parse = |name: &str, value: &str| EnvOptions::parse(&with(name, value)).expect(name);
    assert_eq!(
        parse("ONEWORKS_HTTP_TIMEOUT", "90").http_timeout,
        Duration::from_secs(90)
    );
    assert_eq!(
        parse("ONEWORKS_HANDSHAKE_TIMEOUT", "2m").handshake_timeout,
        Duration::from_secs(120)
    );
    assert_eq!(
        parse("ONEWORKS_LOCK_TIMEOUT", "0").lock_timeout,
        Duration::ZERO
    );
    assert_eq!(
        parse("ONEWORKS_HTTP_TIMEOUT", "").http_timeout,
        DEFAULT_HTTP_TIMEOUT
    );
}

#[test]
fn a_bad_value_names_the_variable_its_value_and_why() {
    for (value, why) in [
        ("0", "is zero"),
        ("soon", "is not a number"),
        ("-5", "is not a number"),
    ] {
        let error = error_of("ONEWORKS_HTTP_TIMEOUT", value);
        let text = error.to_string();
        assert!(
            text.starts_with(&format!("ONEWORKS_HTTP_TIMEOUT `{value}` {why}")),
            "{text}"
        );
    }
    let text = error_of("ONEWORKS_NODE_MIRROR", "ftp://mirror/").to_string();
    assert!(
        text.contains("ONEWORKS_NODE_MIRROR `ftp://mirror/`"),
        "{text}"
    );
    assert_eq!(
        error_of("ONEWORKS_HOME", "relative/home").to_string(),
        "ONEWORKS_HOME `relative/home` is not an absolute path"
    );
    assert_eq!(
        error_of("ONEWORKS_NPM_REGISTRY", "ftp://x.test").to_string(),
        "ONEWORKS_NPM_REGISTRY `ftp://x.test` is not an http or https URL"
    );
    assert_eq!(
        error_of("ONEWORKS_SOME_AGENT_MANIFEST_URL", "not a url").to_string(),
        "ONEWORKS_SOME_AGENT_MANIFEST_URL `not a url` is not an http, https or file URL"
    );
}

#[test]
fn an_unknown_format_is_refused_naming_it_and_the_known_ones() {
    let error = error_of("ONEWORKS_SOME_AGENT_FORMATS", "tarGz, tarBz2");
    assert_eq!(
        error.to_string(),
        "ONEWORKS_SOME_AGENT_FORMATS `tarGz, tarBz2` names `tarBz2`, which is no archive format oneworks knows"
    );
    let hint = crate::error::Classify::hint(&error).expect("a hint");
    assert!(
        hint.starts_with("set ONEWORKS_SOME_AGENT_FORMATS to a comma-separated list of `tarGz`, "),
        "{hint}"
    );
    let known =
        EnvOptions::parse(&with("ONEWORKS_MY_AGENT_FORMATS", "zip, ,tarGz")).expect("known");
    assert_eq!(
        known.adapter("my-agent").formats,
        Some(vec![FileType::Zip, FileType::TarGz])
    );
    assert!(known.adapter("other-agent").formats.is_none());
}

#[test]
fn a_long_or_hostile_value_is_cut_and_cleaned_in_the_error() {
    let long = "x".repeat(5000);
    let text = error_of("ONEWORKS_LOCK_TIMEOUT", &long).to_string();
    assert!(text.len() < 400, "{}", text.len());
    assert!(text.contains("x…`"), "{text}");
    let text = error_of("ONEWORKS_LOCK_TIMEOUT", "1\u{1b}[2J").to_string();
    assert!(!text.contains('\u{1b}'), "{text:?}");
    let text = error_of(
        "ONEWORKS_SOME_AGENT_DOWNLOAD_BASE",
        "gopher://user:secret@mirror.test/",
    )
    .to_string();
    assert!(!text.contains("secret"), "{text}");
}

#[test]
fn adapter_variables_are_found_by_the_adapters_key() {
    let env = Environment::from_pairs([
        ("ONEWORKS_MY_AGENT_MANIFEST_URL", "file:///m/manifest.json"),
        (
            "ONEWORKS_MY_AGENT_DOWNLOAD_BASE",
            "https://mirror.test/base",
        ),
        ("ONEWORKS_MY_AGENT_ADAPTER_FILE", "/data/my-agent.yaml"),
        ("ONEWORKS_OTHER_AGENT_MANIFEST_URL", ""),
    ]);
    let options = EnvOptions::parse(&env).expect("valid");
    let mine = options.adapter("my-agent");
    assert_eq!(
        mine.manifest_url.as_ref().map(Url::as_str),
        Some("file:///m/manifest.json")
    );
    assert_eq!(
        mine.download_base.as_ref().map(Url::as_str),
        Some("https://mirror.test/base/")
    );
    assert_eq!(
        mine.adapter_file.as_deref(),
        Some(std::path::Path::new("/data/my-agent.yaml"))
    );
    assert!(
        options.adapter("other-agent").manifest_url.is_none(),
        "empty is unset"
    );
}
