
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'oneworks' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'oneworks'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'oneworks' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('adapter', 'adapter', [CompletionResultType]::ParameterValue, 'Install, inspect and manage adapter CLIs')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Check and render configuration')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run one prompt through an agent over ACP and stream its events')
            [CompletionResult]::new('session', 'session', [CompletionResultType]::ParameterValue, 'Supervised agent TUI sessions whose approvals can be answered from elsewhere')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions to stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'oneworks;adapter' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Resolve a verified agent CLI: install the managed version, or check the system/path one')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show which CLI would be used, and why other candidates were skipped')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List adapters and their installed versions')
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Run the agent''s own login inside a session profile')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'oneworks;adapter;prepare' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Make no network request: use an installed version or fail (exit 7)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Download and install again even if the version is installed')
            [CompletionResult]::new('--locked', '--locked', [CompletionResultType]::ParameterName, 'Install exactly the artifact recorded in `.oneworks/<adapter>.lock`')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;adapter;status' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;adapter;list' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;adapter;login' {
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session whose profile receives the login')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;adapter;prune' {
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'How many of the newest versions to keep')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;adapter;help' {
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Resolve a verified agent CLI: install the managed version, or check the system/path one')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show which CLI would be used, and why other candidates were skipped')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List adapters and their installed versions')
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Run the agent''s own login inside a session profile')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'oneworks;adapter;help;prepare' {
            break
        }
        'oneworks;adapter;help;status' {
            break
        }
        'oneworks;adapter;help;list' {
            break
        }
        'oneworks;adapter;help;login' {
            break
        }
        'oneworks;adapter;help;prune' {
            break
        }
        'oneworks;adapter;help;help' {
            break
        }
        'oneworks;config' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Trust the project''s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes')
            [CompletionResult]::new('untrust', 'untrust', [CompletionResultType]::ParameterValue, 'Forget that the project''s config file (or --config FILE) was trusted')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Write (or with --dry-run print) the agent world a session gets')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'oneworks;config;check' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;config;trust' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'oneworks;config;untrust' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'oneworks;config;render' {
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session name')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be written instead of writing it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;config;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Trust the project''s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes')
            [CompletionResult]::new('untrust', 'untrust', [CompletionResultType]::ParameterValue, 'Forget that the project''s config file (or --config FILE) was trusted')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Write (or with --dry-run print) the agent world a session gets')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'oneworks;config;help;check' {
            break
        }
        'oneworks;config;help;trust' {
            break
        }
        'oneworks;config;help;untrust' {
            break
        }
        'oneworks;config;help;render' {
            break
        }
        'oneworks;config;help;help' {
            break
        }
        'oneworks;run' {
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'The prompt text')
            [CompletionResult]::new('--prompt-file', '--prompt-file', [CompletionResultType]::ParameterName, 'Read the prompt from FILE (`-`: stdin; not with --json, whose stdin carries replies)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session name (its profile and cached agent session)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Permission policy')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (must be one the session advertises)')
            [CompletionResult]::new('--effort', '--effort', [CompletionResultType]::ParameterName, 'Reasoning effort (must be one the session advertises)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Cancel the turn after this long (`90s`, `10m`)')
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'Keep the agent running after the turn, idle for DUR (default 10m; `0`: not kept): later runs of this --session reach it')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'Continue the session''s last agent session when the agent can load it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'JSON lines: events on stdout, permission replies on stdin')
            [CompletionResult]::new('--trust-workspace', '--trust-workspace', [CompletionResultType]::ParameterName, 'Trust the project folder for agents that gate features on folder trust (a decision for you, never a repository''s config)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'oneworks;session' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start the agent''s TUI in a supervised tmux session (and attach, unless --detach)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the sessions of this project and whether their supervisor runs')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Attach this terminal to a running session''s TUI')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'End the agent and the supervisor of a session')
            [CompletionResult]::new('approvals', 'approvals', [CompletionResultType]::ParameterValue, 'List (or with --watch stream) a session''s approval cards')
            [CompletionResult]::new('answer', 'answer', [CompletionResultType]::ParameterValue, 'Answer an approval card and wait until the verdict is delivered')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve a page (and a JSON API) to answer every session''s approvals from a browser')
            [CompletionResult]::new('cancel', 'cancel', [CompletionResultType]::ParameterValue, 'Cancel the turn in progress of a kept session (`run --keep`), from any process')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'oneworks;session;start' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Session name')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'The agent''s working folder (not the project)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return at once instead of attaching this terminal')
            [CompletionResult]::new('--trust-workspace', '--trust-workspace', [CompletionResultType]::ParameterName, 'Trust the project folder for agents that gate features on folder trust (a decision for you, never a repository''s config)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;session;list' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;session;attach' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;session;stop' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;session;approvals' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep streaming card changes')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'JSON output (an array; JSON lines with --watch)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;session;answer' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'oneworks;session;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address to listen on; a non-loopback one must be carried over a tunnel or TLS proxy')
            [CompletionResult]::new('--public-url', '--public-url', [CompletionResultType]::ParameterName, 'The URL this server is reached at from outside (adds `answer_url` to webhook POSTs)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('--open', '--open', [CompletionResultType]::ParameterName, 'Also open the page in the default browser')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the URL as one JSON document')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;session;cancel' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;session;help' {
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start the agent''s TUI in a supervised tmux session (and attach, unless --detach)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the sessions of this project and whether their supervisor runs')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Attach this terminal to a running session''s TUI')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'End the agent and the supervisor of a session')
            [CompletionResult]::new('approvals', 'approvals', [CompletionResultType]::ParameterValue, 'List (or with --watch stream) a session''s approval cards')
            [CompletionResult]::new('answer', 'answer', [CompletionResultType]::ParameterValue, 'Answer an approval card and wait until the verdict is delivered')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve a page (and a JSON API) to answer every session''s approvals from a browser')
            [CompletionResult]::new('cancel', 'cancel', [CompletionResultType]::ParameterValue, 'Cancel the turn in progress of a kept session (`run --keep`), from any process')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'oneworks;session;help;start' {
            break
        }
        'oneworks;session;help;list' {
            break
        }
        'oneworks;session;help;attach' {
            break
        }
        'oneworks;session;help;stop' {
            break
        }
        'oneworks;session;help;approvals' {
            break
        }
        'oneworks;session;help;answer' {
            break
        }
        'oneworks;session;help;serve' {
            break
        }
        'oneworks;session;help;cancel' {
            break
        }
        'oneworks;session;help;help' {
            break
        }
        'oneworks;completions' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this config file instead of the project''s `.oneworks/config.yaml` [env: ONEWORKS_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail (repeat for debug logs)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'oneworks;help' {
            [CompletionResult]::new('adapter', 'adapter', [CompletionResultType]::ParameterValue, 'Install, inspect and manage adapter CLIs')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Check and render configuration')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run one prompt through an agent over ACP and stream its events')
            [CompletionResult]::new('session', 'session', [CompletionResultType]::ParameterValue, 'Supervised agent TUI sessions whose approvals can be answered from elsewhere')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions to stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'oneworks;help;adapter' {
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Resolve a verified agent CLI: install the managed version, or check the system/path one')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show which CLI would be used, and why other candidates were skipped')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List adapters and their installed versions')
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Run the agent''s own login inside a session profile')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove older managed versions (never the one `.oneworks/<adapter>.lock` names)')
            break
        }
        'oneworks;help;adapter;prepare' {
            break
        }
        'oneworks;help;adapter;status' {
            break
        }
        'oneworks;help;adapter;list' {
            break
        }
        'oneworks;help;adapter;login' {
            break
        }
        'oneworks;help;adapter;prune' {
            break
        }
        'oneworks;help;config' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Validate the layered configuration, print where it came from and which keys of an untrusted project config were ignored')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Trust the project''s config file (or --config FILE): its hooks, MCP commands, passEnv and other keys that run code or move credentials apply until the file changes')
            [CompletionResult]::new('untrust', 'untrust', [CompletionResultType]::ParameterValue, 'Forget that the project''s config file (or --config FILE) was trusted')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Write (or with --dry-run print) the agent world a session gets')
            break
        }
        'oneworks;help;config;check' {
            break
        }
        'oneworks;help;config;trust' {
            break
        }
        'oneworks;help;config;untrust' {
            break
        }
        'oneworks;help;config;render' {
            break
        }
        'oneworks;help;run' {
            break
        }
        'oneworks;help;session' {
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start the agent''s TUI in a supervised tmux session (and attach, unless --detach)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the sessions of this project and whether their supervisor runs')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Attach this terminal to a running session''s TUI')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'End the agent and the supervisor of a session')
            [CompletionResult]::new('approvals', 'approvals', [CompletionResultType]::ParameterValue, 'List (or with --watch stream) a session''s approval cards')
            [CompletionResult]::new('answer', 'answer', [CompletionResultType]::ParameterValue, 'Answer an approval card and wait until the verdict is delivered')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve a page (and a JSON API) to answer every session''s approvals from a browser')
            [CompletionResult]::new('cancel', 'cancel', [CompletionResultType]::ParameterValue, 'Cancel the turn in progress of a kept session (`run --keep`), from any process')
            break
        }
        'oneworks;help;session;start' {
            break
        }
        'oneworks;help;session;list' {
            break
        }
        'oneworks;help;session;attach' {
            break
        }
        'oneworks;help;session;stop' {
            break
        }
        'oneworks;help;session;approvals' {
            break
        }
        'oneworks;help;session;answer' {
            break
        }
        'oneworks;help;session;serve' {
            break
        }
        'oneworks;help;session;cancel' {
            break
        }
        'oneworks;help;completions' {
            break
        }
        'oneworks;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
