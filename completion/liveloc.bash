# bash completion for liveloc. The commands and each command's options are read from liveloc's own
# --help (so they follow the installed version); values are completed where their kind is known.
_liveloc() {
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
    }
    local program=${words[0]}
    if [ "$cword" -eq 1 ]; then
        local commands
        commands=$("$program" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)  *.*/\1/p')
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    local command=${words[1]}
    case $prev in
        --duration) COMPREPLY=($(compgen -W "15m 1h 8h" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "json gpx geojson csv" -- "$cur")); return ;;
        --baud) COMPREPLY=($(compgen -W "auto 4800 9600 19200 38400 57600 115200" -- "$cur")); return ;;
        --serial) COMPREPLY=($(compgen -f -- "${cur:-/dev/serial/by-id/}")); return ;;
        --socket|--replay|--state-directory|--outbox|--*-file)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    # Any other option's value as its --help writes it (the destinations' come from their kinds):
    # `a|b|c` completes to its lower-case words, PATH to a file.
    if [[ $prev == --* ]]; then
        local form
        form=$("$program" "$command" --help 2>/dev/null | grep -oE -- "$prev [^] ]+" | head -n 1 | cut -d' ' -f2)
        case $form in
            PATH|FILE|DIR) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            *'|'*) COMPREPLY=($(compgen -W "$(tr '|' '\n' <<<"$form" | grep -v '[A-Z]')" -- "$cur")); return ;;
        esac
    fi
    if [[ $cur == -* ]]; then
        local options
        options=$("$program" "$command" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$options --help" -- "$cur"))
        return
    fi
    case $command in
        decode|share) COMPREPLY=($(compgen -f -- "$cur")) ;;
        extend) COMPREPLY=($(compgen -W "15m 1h 8h" -- "$cur")) ;;
    esac
}
complete -F _liveloc liveloc
