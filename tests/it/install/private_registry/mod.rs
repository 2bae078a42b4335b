//! Private registries, scoped registries and a company CA
//! against a real Verdaccio with htpasswd auth and no uplink: the
//! fake Gemini package is published to it with the real npm, and `adapter
//! prepare gemini` installs it with the token of the user's `.npmrc`
//! (`${NPM_TOKEN}` expanded), from a scoped registry, through a TLS mirror
//! whose certificate a test CA given by `SSL_CERT_FILE` signs, and refuses
//! with a clear message under a wrong token or none. After each, no file
//! oneworks wrote and nothing it printed holds the token.

mod verdaccio;

use std::path::Path;

use base64::Engine as _;
use serde_json::Value;

use crate::support::{assert_empty_or_missing, Outcome, TestEnv};
use verdaccio::Verdaccio;

/// The version of tests/fakes/gemini-cli.
const VERSION: &str = "0.61.0";

/// A world whose user `.npmrc` is `npmrc`, with `NPM_TOKEN` set to `token`.
fn env_with(npmrc: &str, token: &str) -> TestEnv {
    let mut env = TestEnv::new();
    std::fs::write(env.home.join(".npmrc"), npmrc).expect("write .npmrc");
    env.set_env("NPM_TOKEN", token);
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "1");
    env
}

fn prepare(env: &TestEnv) -> Outcome {
    env.run(&["adapter", "prepare", "gemini", "--json", "-v"])
}

/// A registry with the fake Gemini published, and a reader's token.
fn registry(tls: Option<(&Path, &Path)>) -> Option<(Verdaccio, String)> {
    let verdaccio = Verdaccio::start(tls)?;
    let publisher = verdaccio.add_user("publisher", "publisher-password-1");
    verdaccio.publish_fake_gemini(&publisher);
    let reader = verdaccio.add_user("ci-runner", "ci-runner-password-1");
    Some((verdaccio, reader))
}

#[track_caller]
fn assert_installed(outcome: &Outcome) {
    outcome.assert_success();
    let document = outcome.json();
    assert_eq!(document["adapter"], "gemini", "{}", outcome.describe());
    assert_eq!(document["version"], VERSION, "{}", outcome.describe());
}

/// No file below the test's world (but the `.npmrc` the test wrote) and
/// nothing `outcome` printed holds `token`, raw or base64-encoded.
#[track_caller]
fn assert_token_nowhere(env: &TestEnv, outcomes: &[&Outcome], token: &str) {
    let encoded = base64::engine::general_purpose::STANDARD.encode(token);
    let needles = [token.to_owned(), encoded.trim_end_matches('=').to_owned()];
    for outcome in outcomes {
        for needle in &needles {
            assert!(
                !outcome.all_text().contains(needle.as_str()),
                "the token was printed\n{}",
                outcome.describe()
            );
        }
    }
    let npmrc = env.home.join(".npmrc");
    let mut pending = vec![env.base()];
    let mut files = 0;
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let path = entry.expect("entry").path();
            let kind = std::fs::symlink_metadata(&path)
                .expect("metadata")
                .file_type();
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() && path != npmrc {
                files += 1;
                let bytes = std::fs::read(&path).expect("read");
                for needle in &needles {
                    assert!(
                        memchr::memmem::find(&bytes, needle.as_bytes()).is_none(),
                        "`{}` holds the token",
                        path.display()
                    );
                }
            }
        }
    }
    assert!(files > 0, "oneworks wrote nothing to search");
}

fn gemini_versions(env: &TestEnv) -> std::path::PathBuf {
    env.oneworks_home.join("adapters/gemini/versions")
}

#[test]
fn private_registry_installs_with_the_npmrc_token() {
    let Some((verdaccio, token)) = registry(None) else {
        return;
    };
    let port = verdaccio.http;
    let env = env_with(
        &format!(
            "registry=http://127.0.0.1:{port}/\n//127.0.0.1:{port}/:_authToken=${{NPM_TOKEN}}\nalways-auth=true\n"
        ),
        &token,
    );
    let outcome = prepare(&env);
    assert_installed(&outcome);
    let lock = std::fs::read_to_string(env.project.join(".oneworks/gemini.lock")).expect("lock");
    assert!(lock.contains(&format!("127.0.0.1:{port}")), "{lock}");
    // Again, offline from the pin: nothing more to send.
    let again = env.run(&["adapter", "prepare", "gemini", "--json", "--offline"]);
    assert_installed(&again);
    assert_token_nowhere(&env, &[&outcome, &again], &token);
}

#[test]
fn private_registry_scoped_registry_gets_its_own_token_and_the_default_nothing() {
    let Some((verdaccio, token)) = registry(None) else {
        return;
    };
    let port = verdaccio.http;
    let mut env = env_with("", &token);
    // The default registry is the test's loopback server, which counts
    // every request: the scoped package must never reach it.
    let default = env.server.url("/");
    std::fs::write(
        env.home.join("company.npmrc"),
        format!(
            "registry={default}\n@google:registry=http://127.0.0.1:{port}/\n//127.0.0.1:{port}/:_authToken=${{NPM_TOKEN}}\n"
        ),
    )
    .expect("write the npmrc");
    env.set_env(
        "NPM_CONFIG_USERCONFIG",
        &env.home.join("company.npmrc").to_string_lossy(),
    );
    let outcome = prepare(&env);
    assert_installed(&outcome);
    assert_eq!(env.server.total_hits(), 0, "the default registry was asked");
    std::fs::remove_file(env.home.join("company.npmrc")).expect("remove");
    assert_token_nowhere(&env, &[&outcome], &token);
}

#[test]
fn private_registry_wrong_or_missing_token_names_the_registry_and_the_line() {
    let Some((verdaccio, token)) = registry(None) else {
        return;
    };
    let port = verdaccio.http;
    let wrong = "d3JvbmctdG9rZW4tbm90LWlzc3VlZA==";
    let env = env_with(
        &format!(
            "registry=http://127.0.0.1:{port}/\n//127.0.0.1:{port}/:_authToken=${{NPM_TOKEN}}\n"
        ),
        wrong,
    );
    let outcome = prepare(&env);
    let message = outcome.assert_error(4, "network");
    assert!(
        message.contains(&format!("the registry `http://127.0.0.1:{port}/` refused"))
            && message.contains(&format!("`//127.0.0.1:{port}/:_authToken` in `")),
        "{message}"
    );
    let hint = outcome.json()["error"]["hint"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(hint.contains("npm login"), "{hint}");
    assert_empty_or_missing(&gemini_versions(&env), "the gemini versions");
    assert!(!env.project.join(".oneworks/gemini.lock").exists());
    assert_token_nowhere(&env, &[&outcome], wrong);

    // No credential line at all (a project's `.npmrc` is never read, even
    // with the right token in it).
    let env = env_with(&format!("registry=http://127.0.0.1:{port}/\n"), &token);
    std::fs::write(
        env.project.join(".npmrc"),
        format!("//127.0.0.1:{port}/:_authToken={token}\n"),
    )
    .expect("project npmrc");
    let outcome = prepare(&env);
    let message = outcome.assert_error(4, "network");
    assert!(
        message.contains(&format!(
            "no credential line for `//127.0.0.1:{port}/` was found in `"
        )),
        "{message}"
    );
    let hint: Value = outcome.json()["error"]["hint"].clone();
    assert!(
        hint.as_str()
            .unwrap_or_default()
            .contains(&format!("//127.0.0.1:{port}/:_authToken=${{NPM_TOKEN}}")),
        "{hint}"
    );
    assert_empty_or_missing(&gemini_versions(&env), "the gemini versions");
    std::fs::remove_file(env.project.join(".npmrc")).expect("remove");
    assert_token_nowhere(&env, &[&outcome], &token);
}

/// A CA and a certificate for 127.0.0.1 it signs, as PEM files in `dir`:
/// (ca, cert, key).
fn test_ca(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    let ca_key = KeyPair::generate().expect("ca key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("ca params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "oneworks test company CA");
    let ca = ca_params.self_signed(&ca_key).expect("ca");
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().expect("key");
    let params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).expect("params");
    let cert = params.signed_by(&key, &issuer).expect("cert");
    let paths = (
        dir.join("ca.pem"),
        dir.join("cert.pem"),
        dir.join("key.pem"),
    );
    std::fs::write(&paths.0, ca.pem()).expect("ca.pem");
    std::fs::write(&paths.1, cert.pem()).expect("cert.pem");
    std::fs::write(&paths.2, key.serialize_pem()).expect("key.pem");
    paths
}

#[test]
fn private_registry_through_a_tls_mirror_signed_by_the_company_ca() {
    let pki = tempfile::tempdir().expect("tempdir");
    let (ca, cert, key) = test_ca(pki.path());
    let Some((verdaccio, token)) = registry(Some((&cert, &key))) else {
        return;
    };
    let port = verdaccio.https.expect("the TLS endpoint");
    let npmrc = format!(
        "registry=https://127.0.0.1:{port}/\n//127.0.0.1:{port}/:_authToken=${{NPM_TOKEN}}\n"
    );
    // Without the CA the mirror's certificate is not trusted.
    let env = env_with(&npmrc, &token);
    let refused = prepare(&env);
    refused.assert_error(4, "network");
    assert_empty_or_missing(&gemini_versions(&env), "the gemini versions");

    let mut env = env_with(&npmrc, &token);
    env.set_env("SSL_CERT_FILE", &ca.to_string_lossy());
    let outcome = prepare(&env);
    assert_installed(&outcome);
    assert_token_nowhere(&env, &[&refused, &outcome], &token);

    // npm's own `cafile` does the same.
    let mut env = env_with(&format!("{npmrc}cafile={}\n", ca.display()), &token);
    env.env.remove("SSL_CERT_FILE");
    assert_installed(&prepare(&env));
}
