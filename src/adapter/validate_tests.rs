use super::*;

#[test]
fn paths_must_stay_inside() {
    assert!(inside("k", "settings/cli.json", "home").is_ok());
    assert!(inside("k", "./a", "home").is_ok());
    assert!(inside("k", "../a", "home").is_err());
    assert!(inside("k", "a/../../b", "home").is_err());
    assert!(inside("k", "/etc/passwd", "home").is_err());
    assert!(inside("k", "", "home").is_err());
}

#[test]
fn versions_and_names() {
    assert!(semver("k", "2.4.0").is_ok());
    assert!(semver("k", "v0.33.0-nightly.1").is_ok());
    assert!(semver("k", "2.4").is_err());
    assert!(dotted_version("k", "2.34").is_ok());
    assert!(dotted_version("k", "2.x").is_err());
    assert!(bare_name("k", "acme-cli-chat").is_ok());
    assert!(bare_name("k", "../bin/sh").is_err());
    assert!(bare_name("k", "").is_err());
}

#[test]
fn builtin_files_pass() {
    for (name, text) in crate::adapter::registry::BUILTIN {
        let data: AdapterData = serde_yaml_ng::from_str(text).expect(name);
        assert_eq!(check(&data), Ok(()), "{name}");
    }
}

#[test]
fn an_own_mcp_file_is_named_and_stays_in_the_home() {
    let builtin = crate::adapter::registry::Registry::builtin();
    let mut data = builtin.load("copilot").expect("copilot");
    assert!(check(&data).is_ok());
    let mcp = data.session.mcp_servers.as_mut().expect("mcp section");
    mcp.file = Some("../outside.json".to_owned());
    assert_eq!(check(&data).unwrap_err().key, "session.mcpServers.file");
    let mcp = data.session.mcp_servers.as_mut().expect("mcp section");
    mcp.file = None;
    assert_eq!(check(&data).unwrap_err().key, "session.mcpServers.file");
    let mcp = data.session.mcp_servers.as_mut().expect("mcp section");
    mcp.place = Place::Settings;
    mcp.file = Some("mcp-config.json".to_owned());
    assert_eq!(check(&data).unwrap_err().key, "session.mcpServers.file");
}

#[test]
fn an_agent_files_resource_entries_hold_the_path_once() {
    let builtin = crate::adapter::registry::Registry::builtin();
    let mut data = builtin.load("kiro").expect("kiro");
    assert!(check(&data).is_ok());
    fn entries(data: &mut AdapterData) -> &mut crate::adapter::session_data::AgentResources {
        data.session
            .agent_file
            .as_mut()
            .and_then(|file| file.resources.as_mut())
            .expect("kiro's agent file lists resources")
    }
    entries(&mut data).prompt = "file://steering.md".to_owned();
    assert_eq!(
        check(&data).unwrap_err().key,
        "session.agentFile.resources.prompt"
    );
    entries(&mut data).prompt = "file://{path}".to_owned();
    entries(&mut data).skill = "skill://{path}{path}".to_owned();
    assert_eq!(
        check(&data).unwrap_err().key,
        "session.agentFile.resources.skill"
    );
}
