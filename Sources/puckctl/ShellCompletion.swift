import PuckCore

/// `puckctl completion bash|zsh|fish`: a completion script for the shell, written from the
/// command table (and the offline commands beside it), so a command or option added there
/// completes without a second edit. Debian's shells load the installed copies from
/// `/usr/share/bash-completion/completions/puckctl`, `/usr/share/zsh/vendor-completions/_puckctl`
/// and `/usr/share/fish/vendor_completions.d/puckctl.fish`.
enum ShellCompletion {
  /// The shells, as the table's `completion` command declares them.
  private static var shellWords: String {
    guard case .text(let rule)? = CommandName.completion.spec.operand?.kind else { return "" }
    return rule.words.joined(separator: " ")
  }

  /// The day words `--days` takes (`Weekday.parseSet`); lists are comma-separated.
  static let dayWords = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
  static let daySetWords = ["weekdays", "weekends", "daily"]
  /// The relative dates `--date` and `--until` take besides `YYYY-MM-DD`.
  static let dateWords = ["today", "tomorrow"]

  /// Every command, from the table.
  static var entries: [CommandSpec] { CommandTable.all }

  /// The first words, in table order, once each (`alarm` for every `alarm ...`).
  static var firstWords: [String] {
    var seen: Set<String> = []
    return entries.compactMap { seen.insert($0.words[0]).inserted ? $0.words[0] : nil }
  }

  /// What a first word means in a listing: its summary, or the group's sub-commands.
  static func summary(of word: String) -> String {
    let group = CommandTable.subcommands(of: word)
    if !group.isEmpty { return word + " commands: " + group.joined(separator: ", ") }
    return entries.first { $0.words == [word] }?.summary ?? ""
  }

  /// The script for `shell` (the table's `completion` operand allows only these).
  static func script(for shell: String) -> String {
    switch shell {
    case "bash": return bash
    case "zsh": return zsh
    default: return fish
    }
  }

  /// The options of each command that takes a value of `kind`, as one `case` pattern of
  /// `'words:--option'` alternatives (bash and zsh read it alike).
  private static func patterns(_ kind: (ArgumentKind) -> Bool) -> String {
    entries.flatMap { entry in
      entry.options.filter { kind($0.kind) }.map {
        "'\(entry.words.joined(separator: " ")):--\($0.name ?? "")'"
      }
    }.joined(separator: "|")
  }

  /// One `case` arm a command, setting `options` to its options and `--help`, written as
  /// `list` makes a list (a quoted word list for bash, an array for zsh).
  private static func optionCases(_ list: (String) -> String) -> String {
    entries.map { entry in
      let options = (entry.options.compactMap { $0.name.map { "--" + $0 } } + ["--help"]).joined(
        separator: " ")
      return "    '\(entry.words.joined(separator: " "))') options=\(list(options)) ;;"
    }.joined(separator: "\n")
  }

  private static func isDays(_ kind: ArgumentKind) -> Bool { kind == .days }
  private static func isDate(_ kind: ArgumentKind) -> Bool { kind == .date }
  private static func takesValue(_ kind: ArgumentKind) -> Bool { kind.takesValue }

  private static var groups: [String] { firstWords.filter { !CommandTable.subcommands(of: $0).isEmpty } }

  // MARK: bash

  private static var bash: String {
    let groupCases = groups.map {
      "    \($0)) subcommands='\(CommandTable.subcommands(of: $0).joined(separator: " "))' ;;"
    }
    return """
      # bash completion for puckctl; written by `puckctl completion bash` from its command table.
      _puckctl() {
        local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
        local i=1 command='' subcommands='' options=''
        local -a typed=()
        # The words before the cursor, without the global --socket PATH.
        while [ "$i" -lt "$COMP_CWORD" ]; do
          case ${COMP_WORDS[i]} in
            --socket) i=$((i + 2)); continue ;;
          esac
          typed+=("${COMP_WORDS[i]}")
          i=$((i + 1))
        done
        if [ "$prev" = --socket ]; then
          COMPREPLY=($(compgen -f -- "$cur"))
          return
        fi
        if [ "${#typed[@]}" -eq 0 ]; then
          COMPREPLY=($(compgen -W '\(firstWords.joined(separator: " ")) --socket --help --version' -- "$cur"))
          return
        fi
        command=${typed[0]}
        case $command in
      \(groupCases.joined(separator: "\n"))
        esac
        if [ -n "$subcommands" ]; then
          if [ "${#typed[@]}" -eq 1 ]; then
            COMPREPLY=($(compgen -W "$subcommands --help" -- "$cur"))
            return
          fi
          command="$command ${typed[1]}"
        fi
        case $command in
          completion)
            [ "${#typed[@]}" -eq 1 ] && COMPREPLY=($(compgen -W '\(shellWords)' -- "$cur"))
            return ;;
        esac
        case "$command:$prev" in
          \(patterns(isDays)))
            local chosen=''
            case $cur in *,*) chosen=${cur%,*}, ;; esac
            if [ -z "$chosen" ]; then
              COMPREPLY=($(compgen -W '\((daySetWords + dayWords).joined(separator: " "))' -- "$cur"))
            else
              COMPREPLY=($(compgen -P "$chosen" -W '\(dayWords.joined(separator: " "))' -- "${cur##*,}"))
            fi
            return ;;
          \(patterns(isDate)))
            COMPREPLY=($(compgen -W '\(dateWords.joined(separator: " "))' -- "$cur"))
            return ;;
          \(patterns(takesValue)))
            return ;;
        esac
        case $command in
      \(optionCases { "'\($0)'" })
        esac
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
      }
      complete -F _puckctl puckctl

      """
  }

  // MARK: zsh

  private static var zsh: String {
    func described(_ words: [String]) -> String {
      words.map { word in
        let text = summary(of: word).replacing("'", with: "'\\''")
          .replacing(":", with: "\\:")
        return "'\(word):\(text)'"
      }.joined(separator: " ")
    }
    let groupCases = groups.map { group in
      let subs = CommandTable.subcommands(of: group).map { word -> String in
        let text = entries.first { $0.words == [group, word] }?.summary ?? ""
        let escaped = text.replacing("'", with: "'\\''").replacing(":", with: "\\:")
        return "'\(word):\(escaped)'"
      }
      return "    \(group)) subcommands=(\(subs.joined(separator: " "))) ;;"
    }
    return """
      #compdef puckctl
      # zsh completion for puckctl; written by `puckctl completion zsh` from its command table.
      _puckctl() {
        local -a typed subcommands options
        local i=2 command cur=${words[CURRENT]} prev=${words[CURRENT-1]}
        while (( i < CURRENT )); do
          if [[ ${words[i]} == --socket ]]; then (( i += 2 )); continue; fi
          typed+=(${words[i]})
          (( i++ ))
        done
        if [[ $prev == --socket ]]; then _files; return; fi
        if (( ${#typed} == 0 )); then
          local -a commands=(\(described(firstWords)))
          _describe -t commands 'puckctl command' commands
          compadd -- --socket --help --version
          return
        fi
        command=${typed[1]}
        case $command in
      \(groupCases.joined(separator: "\n"))
        esac
        if (( ${#subcommands} )); then
          if (( ${#typed} == 1 )); then
            _describe -t commands "puckctl $command command" subcommands
            return
          fi
          command="$command ${typed[2]}"
        fi
        case $command in
          completion) (( ${#typed} == 1 )) && compadd -- \(shellWords); return ;;
        esac
        case "$command:$prev" in
          \(patterns(isDays)))
            if [[ $cur == *,* ]]; then
              compadd -P "${cur%,*}," -- \(dayWords.joined(separator: " "))
            else
              compadd -- \((daySetWords + dayWords).joined(separator: " "))
            fi
            return ;;
          \(patterns(isDate)))
            compadd -- \(dateWords.joined(separator: " "))
            return ;;
          \(patterns(takesValue)))
            return ;;
        esac
        case $command in
      \(optionCases { "(\($0))" })
        esac
        compadd -- $options
      }
      compdef _puckctl puckctl

      """
  }

  // MARK: fish

  private static var fish: String {
    func quoted(_ text: String) -> String {
      "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }
    var lines = [
      "# fish completion for puckctl; written by `puckctl completion fish` from its command table.",
      "complete -c puckctl -f",
      "complete -c puckctl -n __fish_use_subcommand -l socket -r -F -d 'the control socket'",
      "complete -c puckctl -n __fish_use_subcommand -l help -d 'the commands'",
      "complete -c puckctl -n __fish_use_subcommand -l version -d 'the version'",
    ]
    for word in firstWords {
      lines.append("complete -c puckctl -n __fish_use_subcommand -a \(word) -d \(quoted(summary(of: word)))")
    }
    for group in groups {
      let subs = CommandTable.subcommands(of: group)
      for sub in subs {
        let text = entries.first { $0.words == [group, sub] }?.summary ?? ""
        lines.append(
          "complete -c puckctl -n '__fish_seen_subcommand_from \(group); and not __fish_seen_subcommand_from \(subs.joined(separator: " "))' -a \(sub) -d \(quoted(text))"
        )
      }
    }
    lines.append(
      "complete -c puckctl -n '__fish_seen_subcommand_from completion' -a '\(shellWords)'"
    )
    for entry in entries {
      let condition =
        entry.words.count == 1
        ? "__fish_seen_subcommand_from \(entry.words[0])"
        : "__fish_seen_subcommand_from \(entry.words[0]); and __fish_seen_subcommand_from \(entry.words[1])"
      for option in entry.options {
        var line = "complete -c puckctl -n '\(condition)' -l \(option.name ?? "")"
        switch option.kind {
        case .flag, .standardInput: break
        case .days: line += " -x -a '\((daySetWords + dayWords).joined(separator: " "))'"
        case .date: line += " -x -a '\(dateWords.joined(separator: " "))'"
        default: line += " -x"
        }
        lines.append(line)
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
