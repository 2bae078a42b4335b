# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_oneworks_global_optspecs
    string join \n config= q/quiet v/verbose no-progress h/help V/version
end

function __fish_oneworks_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_oneworks_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_oneworks_using_subcommand
    set -l cmd (__fish_oneworks_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c oneworks -n "__fish_oneworks_needs_command" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_needs_command" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_needs_command" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_needs_command" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c oneworks -n "__fish_oneworks_needs_command" -s V -l version -d 'Print version'
complete -c oneworks -n "__fish_oneworks_needs_command" -f -a "adapter" -d 'Install, inspect and manage adapter CLIs'
complete -c oneworks -n "__fish_oneworks_needs_command" -f -a "config" -d 'Check and render configuration'
complete -c oneworks -n "__fish_oneworks_needs_command" -f -a "run" -d 'Run one prompt through an agent over ACP and stream its events'
complete -c oneworks -n "__fish_oneworks_needs_command" -f -a "session" -d 'Supervised agent TUI sessions whose approvals can be answered from elsewhere'
complete -c oneworks -n "__fish_oneworks_needs_command" -f -a "completions" -d 'Print shell completions to stdout'
complete -c oneworks -n "__fish_oneworks_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -f -a "prepare" -d 'Resolve a verified agent CLI: install the managed version, or check the system/path one'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -f -a "status" -d 'Show which CLI would be used, and why other candidates were skipped'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -f -a "list" -d 'List adapters and their installed versions'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -f -a "login" -d 'Run the agent\'s own login inside a session profile'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -f -a "prune" -d 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and not __fish_seen_subcommand_from prepare status list login prune help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -l offline -d 'Make no network request: use an installed version or fail (exit 7)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -l force -d 'Download and install again even if the version is installed'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -l locked -d 'Install exactly the artifact recorded in `.oneworks/<adapter>.lock`'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -l json -d 'Print one JSON document on stdout'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prepare" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from status" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from status" -l json -d 'Print one JSON document on stdout'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from status" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from status" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from list" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document on stdout'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from list" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from login" -l session -d 'Session whose profile receives the login' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from login" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from login" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from login" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from login" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from login" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prune" -l keep -d 'How many of the newest versions to keep' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prune" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prune" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prune" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prune" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from help" -f -a "prepare" -d 'Resolve a verified agent CLI: install the managed version, or check the system/path one'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show which CLI would be used, and why other candidates were skipped'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from help" -f -a "list" -d 'List adapters and their installed versions'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from help" -f -a "login" -d 'Run the agent\'s own login inside a session profile'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)'
complete -c oneworks -n "__fish_oneworks_using_subcommand adapter; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -f -a "check" -d 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -f -a "trust" -d 'Trust the project\'s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -f -a "untrust" -d 'Forget that the project\'s config file (or --config FILE) was trusted'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -f -a "render" -d 'Write (or with --dry-run print) the agent world a session gets'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and not __fish_seen_subcommand_from check trust untrust render help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from check" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from check" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from check" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from trust" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from trust" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from trust" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from trust" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from trust" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from untrust" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from untrust" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from untrust" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from untrust" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from untrust" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from render" -l session -d 'Session name' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from render" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from render" -l dry-run -d 'Print what would be written instead of writing it'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from render" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from render" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from render" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from render" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "check" -d 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "trust" -d 'Trust the project\'s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "untrust" -d 'Forget that the project\'s config file (or --config FILE) was trusted'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "render" -d 'Write (or with --dry-run print) the agent world a session gets'
complete -c oneworks -n "__fish_oneworks_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l prompt -d 'The prompt text' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l prompt-file -d 'Read the prompt from FILE (`-`: stdin; not with --json, whose stdin carries replies)' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l session -d 'Session name (its profile and cached agent session)' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l mode -d 'Permission policy' -r -f -a "default\t'Ask for every permission'
plan\t'Ask for every permission (planning turns)'
acceptEdits\t'Allow edits (write/edit/delete/move) by `allow_once`; ask for the rest'
dontAsk\t'Allow everything by `allow_once`, never ask'
bypassPermissions\t'Allow everything by `allow_once`, never ask'"
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l model -d 'Model id (must be one the session advertises)' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l effort -d 'Reasoning effort (must be one the session advertises)' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l timeout -d 'Cancel the turn after this long (`90s`, `10m`)' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l keep -d 'Keep the agent running after the turn, idle for DUR (default 10m; `0`: not kept): later runs of this --session reach it' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l resume -d 'Continue the session\'s last agent session when the agent can load it'
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l json -d 'JSON lines: events on stdout, permission replies on stdin'
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l trust-workspace -d 'Trust the project folder for agents that gate features on folder trust (a decision for you, never a repository\'s config)'
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "start" -d 'Start the agent\'s TUI in a supervised tmux session (and attach, unless --detach)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "list" -d 'List the sessions of this project and whether their supervisor runs'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "attach" -d 'Attach this terminal to a running session\'s TUI'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "stop" -d 'End the agent and the supervisor of a session'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "approvals" -d 'List (or with --watch stream) a session\'s approval cards'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "answer" -d 'Answer an approval card and wait until the verdict is delivered'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "serve" -d 'Serve a page (and a JSON API) to answer every session\'s approvals from a browser'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "cancel" -d 'Cancel the turn in progress of a kept session (`run --keep`), from any process'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and not __fish_seen_subcommand_from start list attach stop approvals answer serve cancel help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -l name -d 'Session name' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -l cwd -d 'The agent\'s working folder (not the project)' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -l detach -d 'Return at once instead of attaching this terminal'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -l trust-workspace -d 'Trust the project folder for agents that gate features on folder trust (a decision for you, never a repository\'s config)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from list" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON document on stdout'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from list" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from attach" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from attach" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from attach" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from attach" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from attach" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from stop" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from stop" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from stop" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from stop" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from approvals" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from approvals" -l watch -d 'Keep streaming card changes'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from approvals" -l json -d 'JSON output (an array; JSON lines with --watch)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from approvals" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from approvals" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from approvals" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from approvals" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from answer" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from answer" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from answer" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from answer" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from answer" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -l listen -d 'Address to listen on; a non-loopback one must be carried over a tunnel or TLS proxy' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -l public-url -d 'The URL this server is reached at from outside (adds `answer_url` to webhook POSTs)' -r
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -l open -d 'Also open the page in the default browser'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -l json -d 'Print the URL as one JSON document'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from cancel" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from cancel" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from cancel" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from cancel" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from cancel" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start the agent\'s TUI in a supervised tmux session (and attach, unless --detach)'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the sessions of this project and whether their supervisor runs'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "attach" -d 'Attach this terminal to a running session\'s TUI'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "stop" -d 'End the agent and the supervisor of a session'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "approvals" -d 'List (or with --watch stream) a session\'s approval cards'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "answer" -d 'Answer an approval card and wait until the verdict is delivered'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Serve a page (and a JSON API) to answer every session\'s approvals from a browser'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "cancel" -d 'Cancel the turn in progress of a kept session (`run --keep`), from any process'
complete -c oneworks -n "__fish_oneworks_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c oneworks -n "__fish_oneworks_using_subcommand completions" -l config -d 'Use this config file instead of the project\'s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]' -r -F
complete -c oneworks -n "__fish_oneworks_using_subcommand completions" -s q -l quiet -d 'Print only errors'
complete -c oneworks -n "__fish_oneworks_using_subcommand completions" -s v -l verbose -d 'Print more detail (repeat for debug logs)'
complete -c oneworks -n "__fish_oneworks_using_subcommand completions" -l no-progress -d 'Never draw progress bars'
complete -c oneworks -n "__fish_oneworks_using_subcommand completions" -s h -l help -d 'Print help'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and not __fish_seen_subcommand_from adapter config run session completions help" -f -a "adapter" -d 'Install, inspect and manage adapter CLIs'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and not __fish_seen_subcommand_from adapter config run session completions help" -f -a "config" -d 'Check and render configuration'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and not __fish_seen_subcommand_from adapter config run session completions help" -f -a "run" -d 'Run one prompt through an agent over ACP and stream its events'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and not __fish_seen_subcommand_from adapter config run session completions help" -f -a "session" -d 'Supervised agent TUI sessions whose approvals can be answered from elsewhere'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and not __fish_seen_subcommand_from adapter config run session completions help" -f -a "completions" -d 'Print shell completions to stdout'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and not __fish_seen_subcommand_from adapter config run session completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from adapter" -f -a "prepare" -d 'Resolve a verified agent CLI: install the managed version, or check the system/path one'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from adapter" -f -a "status" -d 'Show which CLI would be used, and why other candidates were skipped'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from adapter" -f -a "list" -d 'List adapters and their installed versions'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from adapter" -f -a "login" -d 'Run the agent\'s own login inside a session profile'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from adapter" -f -a "prune" -d 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "check" -d 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "trust" -d 'Trust the project\'s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "untrust" -d 'Forget that the project\'s config file (or --config FILE) was trusted'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "render" -d 'Write (or with --dry-run print) the agent world a session gets'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "start" -d 'Start the agent\'s TUI in a supervised tmux session (and attach, unless --detach)'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "list" -d 'List the sessions of this project and whether their supervisor runs'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "attach" -d 'Attach this terminal to a running session\'s TUI'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "stop" -d 'End the agent and the supervisor of a session'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "approvals" -d 'List (or with --watch stream) a session\'s approval cards'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "answer" -d 'Answer an approval card and wait until the verdict is delivered'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "serve" -d 'Serve a page (and a JSON API) to answer every session\'s approvals from a browser'
complete -c oneworks -n "__fish_oneworks_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "cancel" -d 'Cancel the turn in progress of a kept session (`run --keep`), from any process'
