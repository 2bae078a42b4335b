
use builtin;
use str;

set edit:completion:arg-completer[oneworks] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'oneworks'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'oneworks'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand adapter 'Install, inspect and manage adapter CLIs'
            cand config 'Check and render configuration'
            cand run 'Run one prompt through an agent over ACP and stream its events'
            cand session 'Supervised agent TUI sessions whose approvals can be answered from elsewhere'
            cand completions 'Print shell completions to stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'oneworks;adapter'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
            cand prepare 'Resolve a verified agent CLI: install the managed version, or check the system/path one'
            cand status 'Show which CLI would be used, and why other candidates were skipped'
            cand list 'List adapters and their installed versions'
            cand login 'Run the agent''s own login inside a session profile'
            cand prune 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'oneworks;adapter;prepare'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --offline 'Make no network request: use an installed version or fail (exit 7)'
            cand --force 'Download and install again even if the version is installed'
            cand --locked 'Install exactly the artifact recorded in `.oneworks/<adapter>.lock`'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;adapter;status'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;adapter;list'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;adapter;login'= {
            cand --session 'Session whose profile receives the login'
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;adapter;prune'= {
            cand --keep 'How many of the newest versions to keep'
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;adapter;help'= {
            cand prepare 'Resolve a verified agent CLI: install the managed version, or check the system/path one'
            cand status 'Show which CLI would be used, and why other candidates were skipped'
            cand list 'List adapters and their installed versions'
            cand login 'Run the agent''s own login inside a session profile'
            cand prune 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'oneworks;adapter;help;prepare'= {
        }
        &'oneworks;adapter;help;status'= {
        }
        &'oneworks;adapter;help;list'= {
        }
        &'oneworks;adapter;help;login'= {
        }
        &'oneworks;adapter;help;prune'= {
        }
        &'oneworks;adapter;help;help'= {
        }
        &'oneworks;config'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
            cand check 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored'
            cand trust 'Trust the project''s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes'
            cand untrust 'Forget that the project''s config file (or --config FILE) was trusted'
            cand render 'Write (or with --dry-run print) the agent world a session gets'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'oneworks;config;check'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;config;trust'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'oneworks;config;untrust'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'oneworks;config;render'= {
            cand --session 'Session name'
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --dry-run 'Print what would be written instead of writing it'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;config;help'= {
            cand check 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored'
            cand trust 'Trust the project''s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes'
            cand untrust 'Forget that the project''s config file (or --config FILE) was trusted'
            cand render 'Write (or with --dry-run print) the agent world a session gets'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'oneworks;config;help;check'= {
        }
        &'oneworks;config;help;trust'= {
        }
        &'oneworks;config;help;untrust'= {
        }
        &'oneworks;config;help;render'= {
        }
        &'oneworks;config;help;help'= {
        }
        &'oneworks;run'= {
            cand --prompt 'The prompt text'
            cand --prompt-file 'Read the prompt from FILE (`-`: stdin; not with --json, whose stdin carries replies)'
            cand --session 'Session name (its profile and cached agent session)'
            cand --mode 'Permission policy'
            cand --model 'Model id (must be one the session advertises)'
            cand --effort 'Reasoning effort (must be one the session advertises)'
            cand --timeout 'Cancel the turn after this long (`90s`, `10m`)'
            cand --keep 'Keep the agent running after the turn, idle for DUR (default 10m; `0`: not kept): later runs of this --session reach it'
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --resume 'Continue the session''s last agent session when the agent can load it'
            cand --json 'JSON lines: events on stdout, permission replies on stdin'
            cand --trust-workspace 'Trust the project folder for agents that gate features on folder trust (a decision for you, never a repository''s config)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'oneworks;session'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
            cand start 'Start the agent''s TUI in a supervised tmux session (and attach, unless --detach)'
            cand list 'List the sessions of this project and whether their supervisor runs'
            cand attach 'Attach this terminal to a running session''s TUI'
            cand stop 'End the agent and the supervisor of a session'
            cand approvals 'List (or with --watch stream) a session''s approval cards'
            cand answer 'Answer an approval card and wait until the verdict is delivered'
            cand serve 'Serve a page (and a JSON API) to answer every session''s approvals from a browser'
            cand cancel 'Cancel the turn in progress of a kept session (`run --keep`), from any process'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'oneworks;session;start'= {
            cand --name 'Session name'
            cand --cwd 'The agent''s working folder (not the project)'
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --detach 'Return at once instead of attaching this terminal'
            cand --trust-workspace 'Trust the project folder for agents that gate features on folder trust (a decision for you, never a repository''s config)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;session;list'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --json 'Print one JSON document on stdout'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;session;attach'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;session;stop'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;session;approvals'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --watch 'Keep streaming card changes'
            cand --json 'JSON output (an array; JSON lines with --watch)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;session;answer'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'oneworks;session;serve'= {
            cand --listen 'Address to listen on; a non-loopback one must be carried over a tunnel or TLS proxy'
            cand --public-url 'The URL this server is reached at from outside (adds `answer_url` to webhook POSTs)'
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand --open 'Also open the page in the default browser'
            cand --json 'Print the URL as one JSON document'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;session;cancel'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;session;help'= {
            cand start 'Start the agent''s TUI in a supervised tmux session (and attach, unless --detach)'
            cand list 'List the sessions of this project and whether their supervisor runs'
            cand attach 'Attach this terminal to a running session''s TUI'
            cand stop 'End the agent and the supervisor of a session'
            cand approvals 'List (or with --watch stream) a session''s approval cards'
            cand answer 'Answer an approval card and wait until the verdict is delivered'
            cand serve 'Serve a page (and a JSON API) to answer every session''s approvals from a browser'
            cand cancel 'Cancel the turn in progress of a kept session (`run --keep`), from any process'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'oneworks;session;help;start'= {
        }
        &'oneworks;session;help;list'= {
        }
        &'oneworks;session;help;attach'= {
        }
        &'oneworks;session;help;stop'= {
        }
        &'oneworks;session;help;approvals'= {
        }
        &'oneworks;session;help;answer'= {
        }
        &'oneworks;session;help;serve'= {
        }
        &'oneworks;session;help;cancel'= {
        }
        &'oneworks;session;help;help'= {
        }
        &'oneworks;completions'= {
            cand --config 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -v 'Print more detail (repeat for debug logs)'
            cand --verbose 'Print more detail (repeat for debug logs)'
            cand --no-progress 'Never draw progress bars'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'oneworks;help'= {
            cand adapter 'Install, inspect and manage adapter CLIs'
            cand config 'Check and render configuration'
            cand run 'Run one prompt through an agent over ACP and stream its events'
            cand session 'Supervised agent TUI sessions whose approvals can be answered from elsewhere'
            cand completions 'Print shell completions to stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'oneworks;help;adapter'= {
            cand prepare 'Resolve a verified agent CLI: install the managed version, or check the system/path one'
            cand status 'Show which CLI would be used, and why other candidates were skipped'
            cand list 'List adapters and their installed versions'
            cand login 'Run the agent''s own login inside a session profile'
            cand prune 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)'
        }
        &'oneworks;help;adapter;prepare'= {
        }
        &'oneworks;help;adapter;status'= {
        }
        &'oneworks;help;adapter;list'= {
        }
        &'oneworks;help;adapter;login'= {
        }
        &'oneworks;help;adapter;prune'= {
        }
        &'oneworks;help;config'= {
            cand check 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored'
            cand trust 'Trust the project''s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes'
            cand untrust 'Forget that the project''s config file (or --config FILE) was trusted'
            cand render 'Write (or with --dry-run print) the agent world a session gets'
        }
        &'oneworks;help;config;check'= {
        }
        &'oneworks;help;config;trust'= {
        }
        &'oneworks;help;config;untrust'= {
        }
        &'oneworks;help;config;render'= {
        }
        &'oneworks;help;run'= {
        }
        &'oneworks;help;session'= {
            cand start 'Start the agent''s TUI in a supervised tmux session (and attach, unless --detach)'
            cand list 'List the sessions of this project and whether their supervisor runs'
            cand attach 'Attach this terminal to a running session''s TUI'
            cand stop 'End the agent and the supervisor of a session'
            cand approvals 'List (or with --watch stream) a session''s approval cards'
            cand answer 'Answer an approval card and wait until the verdict is delivered'
            cand serve 'Serve a page (and a JSON API) to answer every session''s approvals from a browser'
            cand cancel 'Cancel the turn in progress of a kept session (`run --keep`), from any process'
        }
        &'oneworks;help;session;start'= {
        }
        &'oneworks;help;session;list'= {
        }
        &'oneworks;help;session;attach'= {
        }
        &'oneworks;help;session;stop'= {
        }
        &'oneworks;help;session;approvals'= {
        }
        &'oneworks;help;session;answer'= {
        }
        &'oneworks;help;session;serve'= {
        }
        &'oneworks;help;session;cancel'= {
        }
        &'oneworks;help;completions'= {
        }
        &'oneworks;help;help'= {
        }
    ]
    $completions[$command]
}
