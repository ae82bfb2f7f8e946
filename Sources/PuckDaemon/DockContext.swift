import PuckSystem

/// What every component of the daemon works with: the clock and timers, the loop, the settings
/// and the state documents. The daemon builds it once and hands it to each component with the
/// peers that component talks to (docs/DESIGN.md §1.1).
struct DockContext {
  /// Wall, monotonic and boot clocks and their timers: the system's, or a manual clock in tests.
  let time: any TimeSource
  /// The loop everything runs on; its inbox takes messages from other threads.
  let loop: EventLoop<LoopMessage>
  /// Options, config, sound and zone.
  let settings: Settings
  /// The state directory's documents.
  let state: DockState
  /// What changed in this turn of the loop: marked by the components, acted on at its end.
  let changes: DockChanges
  /// systemd's notification socket (`READY=1`, `STATUS=`, the watchdog), or nothing outside systemd.
  let notifier: SystemdNotifier
}
