# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_harness_conformance_global_optspecs
    string join \n color= h/help V/version
end

function __fish_harness_conformance_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_harness_conformance_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_harness_conformance_using_subcommand
    set -l cmd (__fish_harness_conformance_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -s V -l version -d 'Print version'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "run" -d 'Run the suite (default target: the built-in reference harness, in-process)'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "init" -d 'Start gating a harness: write an adapter (on the kit for its language, every capability listed), run it once to write a first baseline, and write the CI job'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "list" -d 'List the cases (id, requirements, description)'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "spec" -d 'List every SPEC.md requirement with its level, cases and the checks it owns, and the places where SPEC.md, the cases and blame disagree (`--check`: only those; exit 1)'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "show" -d 'Print one case file'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "copy" -d 'Write the embedded case files, schemas, providers\' rules, SPEC.md and PROTOCOL.md to a directory'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "selftest" -d 'Run the suite against the reference harness\'s deliberately broken variants (each must be caught by at least one case) and its legitimate ones (each must pass every MUST)'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "matrix" -d 'Run the suite against several harnesses (or combine saved reports, `--from DIR`) and write a static site and a Markdown grid'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "report" -d 'Render a saved JSON report (`run --format json`) in any format, as the run would have'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "fuzz" -d 'Generate cases, check the universal requirements, and shrink any failure to a case file'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "review" -d 'Review the wording snapshots a `run --snapshots <DIR>` left as `.snap.new` files: show each diff and accept, reject or skip it (docs/wording.md)'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "accept" -d 'Accept every pending `.snap.new` in a snapshot directory (`review --accept-all`)'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "reject" -d 'Reject (delete) every pending `.snap.new` in a snapshot directory (`review --reject-all`)'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "completions" -d 'Print the shell completion script (e.g. `harness-conformance completions bash > ~/.local/share/bash-completion/completions/harness-conformance`)'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "man" -d 'Print the man page, or write one page per command into a directory'
complete -c harness-conformance -n "__fish_harness_conformance_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l harness -d 'The adapter command, run with `sh -c` in its own process group' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l case-file -d 'Run a case file from disk instead of the embedded suite; a directory runs every `*.json` case file under it (as --cases does)' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l cases -d 'Run every `*.json` case file under DIR (e.g. the findings `fuzz` wrote, kept as a regression folder); --run/--skip select among them' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l run -d 'Only cases whose id matches (glob: `*`, `?`; a bare area selects it). Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l skip -d 'Leave out cases whose id matches. Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -s j -l jobs -d 'Parallel workers (one adapter process each), 1 to 64; default: the CPUs available, at most 4' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l timeout -d 'Per-case timeout: seconds or a duration (`30s`, `1m`, `500ms`), 1 ms to 24 h (the handler sleeps a case scripts are added to it)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l start-timeout -d 'Handshake timeout: seconds or a duration (`60s`, `2m`), 1 ms to 24 h' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l max-restarts -d 'How many times crashed or hung adapters are restarted in the whole run (all workers together) before the runner gives up, 0 to 10000' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l max-time -d 'The whole run\'s time limit: seconds or a duration (`90s`, `20m`, `1h`), 1 ms to a week; a case still running then is cut short, and the cases not started are ERROR with that reason' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l baseline -d 'The known failures (format 2, `--write-baseline` makes one): `{"format": 2, "suite": "1.1.0", "cases": {"<case id>": {"fails": ["VAL-2"], "reason": "..."}}, "skips": {"<case id>": "<why>"}, "not_testable": {"OUT-4": {"reason": "..."}}}`. A listed case failing as listed is XFAIL; a new failure, or a listed one that now passes (STALE), fails the run' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l write-baseline -d 'Write a baseline of this run\'s failures, skips and untestable MUSTs (keeping the reasons --baseline gives); exits 0 once written' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l format -d 'Report format' -r -f -a "terminal\t''
json\t''
junit\t''
markdown\t''"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -s o -l output -d 'Write the report here instead of stdout (progress still goes to stderr)' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l snapshots -d 'Record each case\'s model-visible content as an insta snapshot in DIR, compare it with the stored one, and fail on a difference (written beside it as `.snap.new` for review)' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l update -d 'Rewrite the --baseline file from this run: new failures added, stale entries removed, reasons kept (the same as --write-baseline to that file)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -l prune -d 'Remove the --baseline file\'s stale entries (cases that pass now, requirements no longer failing, skips that run, untestable MUSTs now tested) and add nothing: exits 1 while a new failure is left'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -s q -l quiet -d 'No per-case progress lines'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l lang -d 'The harness\'s language (default: told from the project\'s files — pyproject.toml, setup.py, setup.cfg or requirements.txt for Python, package.json for TypeScript)' -r -f -a "python\t'The Python kit, `harness-conformance-adapter` on PyPI'
typescript\t'The TypeScript kit, `@harness-conformance/adapter` on npm (JavaScript harnesses too)'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l run -d 'Only cases whose id matches (glob: `*`, `?`; a bare area selects it). Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l skip -d 'Leave out cases whose id matches. Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -s j -l jobs -d 'Parallel workers (one adapter process each), 1 to 64; default: the CPUs available, at most 4' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l timeout -d 'Per-case timeout: seconds or a duration (`30s`, `1m`, `500ms`), 1 ms to 24 h (the handler sleeps a case scripts are added to it)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l start-timeout -d 'Handshake timeout: seconds or a duration (`60s`, `2m`), 1 ms to 24 h' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l max-restarts -d 'How many times crashed or hung adapters are restarted in the whole run (all workers together) before the runner gives up, 0 to 10000' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l max-time -d 'The whole run\'s time limit: seconds or a duration (`90s`, `20m`, `1h`), 1 ms to a week; a case still running then is cut short, and the cases not started are ERROR with that reason' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l force -d 'Replace files `init` writes that exist already'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -l no-baseline -d 'Write the files only: no first run, no baseline'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand list" -l run -d 'Only cases whose id matches (glob: `*`, `?`; a bare area selects it). Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand list" -l skip -d 'Leave out cases whose id matches. Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand list" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand spec" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand spec" -l check -d 'List nothing: print the problems and a summary, and exit 1 if there is any problem'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand spec" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand show" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand copy" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand copy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand selftest" -l run -d 'Only cases whose id matches (glob: `*`, `?`; a bare area selects it). Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand selftest" -l skip -d 'Leave out cases whose id matches. Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand selftest" -l timeout -d 'Per-case timeout: seconds or a duration (`30s`, `1m`, `500ms`), 1 ms to 24 h' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand selftest" -s j -l jobs -d 'Parallelism, 1 to 64: cases that compute run on 4 × this many workers shared by every variant; cases that wait on a deadline or a cancel run on workers of their own' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand selftest" -l only -d 'Run only the broken variants (each must be caught) or only the legitimate ones (each must pass every MUST)' -r -f -a "broken\t''
legitimate\t''"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand selftest" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand selftest" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l harness -d '`name=command` (repeatable); `name=reference` or `name=` runs the built-in reference' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l from -d 'Add every saved JSON report (`*.json`, from `run --format json`) in DIR as a column, named after its file; a folder DIR/NAME of reports is one column, NAME, whose newest run is shown and the others are its history' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l run -d 'Only cases whose id matches (glob: `*`, `?`; a bare area selects it). Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l skip -d 'Leave out cases whose id matches. Repeatable, comma-separated' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -s j -l jobs -d 'Parallel workers (one adapter process each), 1 to 64; default: the CPUs available, at most 4' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l timeout -d 'Per-case timeout: seconds or a duration (`30s`, `1m`, `500ms`), 1 ms to 24 h (the handler sleeps a case scripts are added to it)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l start-timeout -d 'Handshake timeout: seconds or a duration (`60s`, `2m`), 1 ms to 24 h' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l max-restarts -d 'How many times crashed or hung adapters are restarted in the whole run (all workers together) before the runner gives up, 0 to 10000' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l max-time -d 'The whole run\'s time limit: seconds or a duration (`90s`, `20m`, `1h`), 1 ms to a week; a case still running then is cut short, and the cases not started are ERROR with that reason' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l baseline -d 'Per-harness baselines: `name=FILE` (repeatable)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l markdown -d 'Where to write the Markdown grid' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l site -d 'The directory to write the site to (index.html, harness/*.html, data/*.js, badges/)' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l site-url -d 'The site\'s public address (http or https), for the badge snippets on harness pages' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -l allow-mixed-versions -d 'Combine reports made by different suite versions (refused by default: their cases and rules may differ, so the columns would not be comparable)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand matrix" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand report" -l format -d 'The format to render' -r -f -a "terminal\t'The closing summary `run` prints'
json\t'The JSON lines themselves, as written again by this version'
junit\t'JUnit XML for CI test views'
markdown\t'Markdown for a CI step summary'
html\t'The harness\'s page of the matrix site, on its own'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand report" -s o -l output -d 'Write it here instead of stdout' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand report" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand report" -l gate -d 'Exit 1 when the saved run failed its gate (by default `report` exits 0 once it rendered)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l harness -d 'The adapter command, run with `sh -c`; without it, the built-in reference harness' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l fault -d 'Fuzz a deliberately broken variant of the reference, in-process (see `harness-ref-adapter --list-faults`)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l seed -d 'The seed (default: derived from the clock, and printed)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l time -d 'Stop after this long (`90s`, `2m`, `500ms`, or seconds; 0.001 s to a week)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l cases -d 'Stop after this many cases (default 500 when --time is not given)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l out -d 'Where finding case files are written' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l max-findings -d 'Stop after this many findings (each of a different requirement; later failures of a requirement already found are counted, not shrunk again)' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l shrink-runs -d 'The most adapter runs one shrink may use' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l shrink-time -d 'The longest one shrink may take: seconds or a duration (`2m`), 0 to a week' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l timeout -d 'Per-case timeout: seconds or a duration (`30s`, `1m`, `500ms`), 1 ms to 24 h' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l start-timeout -d 'Handshake timeout: seconds or a duration (`60s`, `2m`), 1 ms to 24 h' -r
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l baseline -d 'A baseline (`run --write-baseline`): findings in requirements it already lists (a case entry\'s `fails`, or the requirements of a case it expects to fail) are counted, not shrunk or reported, so only new findings fail the run' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -s q -l quiet -d 'No progress lines'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand fuzz" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand review" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand review" -l accept-all -d 'Accept every pending snapshot without asking'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand review" -l reject-all -d 'Reject (delete) every pending snapshot without asking'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand review" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand accept" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand accept" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand reject" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand reject" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand completions" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand man" -l dir -d 'Write `harness-conformance*.1` here instead of printing the main page' -r -F
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand man" -l color -d 'Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE)' -r -f -a "auto\t'Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too)'
always\t'Always colour'
never\t'Never colour'"
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "run" -d 'Run the suite (default target: the built-in reference harness, in-process)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "init" -d 'Start gating a harness: write an adapter (on the kit for its language, every capability listed), run it once to write a first baseline, and write the CI job'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "list" -d 'List the cases (id, requirements, description)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "spec" -d 'List every SPEC.md requirement with its level, cases and the checks it owns, and the places where SPEC.md, the cases and blame disagree (`--check`: only those; exit 1)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "show" -d 'Print one case file'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "copy" -d 'Write the embedded case files, schemas, providers\' rules, SPEC.md and PROTOCOL.md to a directory'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "selftest" -d 'Run the suite against the reference harness\'s deliberately broken variants (each must be caught by at least one case) and its legitimate ones (each must pass every MUST)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "matrix" -d 'Run the suite against several harnesses (or combine saved reports, `--from DIR`) and write a static site and a Markdown grid'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "report" -d 'Render a saved JSON report (`run --format json`) in any format, as the run would have'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "fuzz" -d 'Generate cases, check the universal requirements, and shrink any failure to a case file'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "review" -d 'Review the wording snapshots a `run --snapshots <DIR>` left as `.snap.new` files: show each diff and accept, reject or skip it (docs/wording.md)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "accept" -d 'Accept every pending `.snap.new` in a snapshot directory (`review --accept-all`)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "reject" -d 'Reject (delete) every pending `.snap.new` in a snapshot directory (`review --reject-all`)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "completions" -d 'Print the shell completion script (e.g. `harness-conformance completions bash > ~/.local/share/bash-completion/completions/harness-conformance`)'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "man" -d 'Print the man page, or write one page per command into a directory'
complete -c harness-conformance -n "__fish_harness_conformance_using_subcommand help; and not __fish_seen_subcommand_from run init list spec show copy selftest matrix report fuzz review accept reject completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
