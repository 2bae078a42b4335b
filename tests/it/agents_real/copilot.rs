//! GitHub Copilot CLI 1.0.102 (`@github/copilot` + `@github/copilot-linux-x64`)
//! over ACP against the fake model — in each of the three wire
//! formats Copilot speaks (OpenAI chat completions, OpenAI responses,
//! Anthropic messages), which also proves the fake model against a real
//! client: `copilot --acp --stdio`, BYOK through `COPILOT_PROVIDER_*`,
//! `COPILOT_OFFLINE=true` (no GitHub login, no telemetry, no update).
//!
//! Path taken: `oneworks adapter prepare copilot` from the loopback
//! registry: the main package, its dependency `detect-libc`, and the one
//! platform package of this host, each verified; the platform binary is
//! placed as the bin (`platformBin`), as `npm-loader.js` would run it.

use super::{RealAgent, Snapshot, SECRET};

const PLATFORM: &str = "@github/copilot-linux-x64";
const VERSION: &str = "1.0.102";

#[test]
fn the_real_copilot_asks_before_its_shell_tool_runs_allow_once_then_reject_once() {
    copilot_turns(Provider::Completions);
}

/// The same turns with Copilot speaking OpenAI responses
/// (`COPILOT_PROVIDER_WIRE_API=responses`).
#[test]
fn the_real_copilot_over_openai_responses() {
    copilot_turns(Provider::Responses);
}

/// The same turns with Copilot speaking Anthropic messages
/// (`COPILOT_PROVIDER_TYPE=anthropic`, the base URL without `/v1`).
#[test]
fn the_real_copilot_over_anthropic_messages() {
    copilot_turns(Provider::Anthropic);
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Provider {
    Completions,
    Responses,
    Anthropic,
}

fn copilot_turns(provider: Provider) {
    let _share = crate::support::heavy::share();
    let snapshot = Snapshot::get("copilot");
    assert_eq!(snapshot.root.name, "@github/copilot");
    assert_eq!(snapshot.root.version, VERSION);
    let copilot = RealAgent::new("copilot", "bash");
    // The other two wire formats run the Copilot whose download the first
    // one proves.
    let copilot = match provider {
        Provider::Completions => copilot,
        Provider::Responses | Provider::Anthropic => copilot.sharing_installs(),
    };
    copilot.write_user_config(
        "adapters:\n  copilot:\n    cli:\n      source: managed\n      version: 1.0.102\n",
    );
    let prepared = copilot.prepare();
    assert_eq!(prepared["adapter"], "copilot", "{prepared}");
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    if provider == Provider::Completions {
        for path in [
            "/@github/copilot/-/copilot-1.0.102.tgz",
            "/@github/copilot-linux-x64/-/copilot-linux-x64-1.0.102.tgz",
            "/detect-libc/-/detect-libc-2.1.2.tgz",
        ] {
            assert_eq!(copilot.registry.hits(path), 1, "{path}");
        }
        // No other platform's package was fetched.
        assert_eq!(
            copilot
                .registry
                .hits("/@github/copilot-linuxmusl-x64/-/copilot-linuxmusl-x64-1.0.102.tgz"),
            0
        );
    }
    assert!(snapshot.package(PLATFORM).tarball.is_some());
    let mut copilot = copilot;
    let (base, kind, path) = match provider {
        Provider::Completions => ("/v1", "openai", "/v1/chat/completions"),
        Provider::Responses => ("/v1", "openai", "/v1/responses"),
        Provider::Anthropic => ("", "anthropic", "/v1/messages"),
    };
    let url = copilot.model.url(base);
    copilot.env.set_env("COPILOT_PROVIDER_BASE_URL", &url);
    copilot.env.set_env("COPILOT_PROVIDER_TYPE", kind);
    if provider == Provider::Responses {
        copilot
            .env
            .set_env("COPILOT_PROVIDER_WIRE_API", "responses");
    }
    copilot.env.set_env("COPILOT_PROVIDER_API_KEY", SECRET);
    copilot.env.set_env("COPILOT_MODEL", "fake-model");
    copilot.env.set_env("COPILOT_OFFLINE", "true");
    copilot.allow_then_reject();
    // The session's settings keep Copilot asking and not updating itself.
    let settings = super::files_named(&copilot.env.base(), "settings.json");
    assert!(
        settings.iter().any(|(_, text)| {
            serde_json::from_str::<serde_json::Value>(text).is_ok_and(|json| {
                json["defaultPermissionMode"] == "manual" && json["autoUpdate"] == false
            })
        }),
        "{settings:#?}"
    );
    let calls = copilot.model.tool_calls();
    assert!(!calls.is_empty(), "{}", copilot.model.describe());
    assert!(
        calls.iter().all(|call| call.path == path),
        "{}",
        copilot.model.describe()
    );
}
