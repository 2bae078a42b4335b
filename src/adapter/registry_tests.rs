//! Tests of `registry.rs` against the built-in adapter files.

use super::*;

#[test]
fn valid_names() {
    assert!(valid_name("kiro"));
    assert!(valid_name("my-agent2"));
    assert!(!valid_name("Kiro"));
    assert!(!valid_name("2x"));
    assert!(!valid_name(""));
    assert!(!valid_name("a/b"));
}

#[test]
fn every_builtin_adapter_parses_under_its_own_name() {
    let registry = Registry::builtin();
    for name in registry.names() {
        let data = registry
            .load(&name)
            .unwrap_or_else(|error| panic!("{name}: {error:?}"));
        assert_eq!(data.id, name);
    }
}

#[test]
fn the_safe_keys_read_alone_are_the_ones_the_whole_file_holds() {
    let registry = Registry::builtin();
    for name in registry.names() {
        let data = registry.load(&name).expect("loads");
        let whole = SafeKeys {
            config_content: data.session.settings.safe_keys.clone(),
            agent_config: data
                .session
                .agent_file
                .map(|file| file.safe_keys)
                .unwrap_or_default(),
        };
        assert_eq!(registry.safe_keys(&name), whole, "{name}");
    }
    assert_eq!(registry.safe_keys("nope"), SafeKeys::default());
}

#[test]
fn an_unknown_name_lists_the_known_ones() {
    let error = Registry::builtin().load("nope").expect_err("unknown");
    let message = error.to_string();
    assert!(message.contains("unknown adapter `nope`"), "{message}");
    assert!(message.contains("kiro"), "{message}");
}

#[test]
fn a_folder_file_adds_or_replaces_an_adapter() {
    let temp = tempfile::tempdir().expect("tempdir");
    let kiro = BUILTIN[0].1;
    fs_err::write(
        temp.path().join("other.yaml"),
        kiro.replace("id: kiro", "id: other"),
    )
    .expect("write");
    fs_err::write(
        temp.path().join("kiro.yaml"),
        kiro.replace("Kiro CLI", "Kiro (early)"),
    )
    .expect("write");
    fs_err::write(temp.path().join("notes.txt"), "ignored").expect("write");
    let registry = Registry::discover(Some(temp.path()), |_| None).expect("registry");
    assert!(registry.contains("other"));
    assert_eq!(registry.load("other").expect("other").id, "other");
    assert_eq!(
        registry.load("kiro").expect("kiro").display_name,
        "Kiro (early)"
    );
}

#[test]
fn a_broken_safe_key_list_is_refused_and_read_alone_allows_nothing() {
    let temp = tempfile::tempdir().expect("tempdir");
    let kiro = BUILTIN[0].1;
    let broken = kiro.replace("safeKeys: [description]", "safeKeys: [a..b]");
    assert_ne!(broken, kiro, "the built-in Kiro file lists `description`");
    fs_err::write(temp.path().join("kiro.yaml"), broken).expect("write");
    let registry = Registry::discover(Some(temp.path()), |_| None).expect("registry");
    let message = crate::error::message(&registry.load("kiro").unwrap_err());
    assert!(message.contains("safe key `a..b`"), "{message}");
    assert_eq!(registry.safe_keys("kiro"), SafeKeys::default());
}

#[test]
fn a_file_whose_id_differs_from_its_name_is_refused() {
    let temp = tempfile::tempdir().expect("tempdir");
    fs_err::write(temp.path().join("other.yaml"), BUILTIN[0].1).expect("write");
    let registry = Registry::discover(Some(temp.path()), |_| None).expect("registry");
    let message = registry.load("other").expect_err("id mismatch").to_string();
    assert!(message.contains("its `id` is `kiro`"), "{message}");
}

#[test]
fn a_bad_file_name_or_a_missing_folder_is_refused() {
    let temp = tempfile::tempdir().expect("tempdir");
    fs_err::write(temp.path().join("Bad Name.yaml"), "x").expect("write");
    let message = Registry::discover(Some(temp.path()), |_| None)
        .expect_err("bad name")
        .to_string();
    assert!(message.contains("does not name an adapter"), "{message}");
    let missing = temp.path().join("missing");
    assert!(matches!(
        Registry::discover(Some(&missing), |_| None),
        Err(RegistryError::List { .. })
    ));
}
