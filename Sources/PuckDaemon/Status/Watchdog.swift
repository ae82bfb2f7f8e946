import PuckSystem

/// systemd's watchdog (`WatchdogSec=`): `WATCHDOG=1` at half the interval systemd asked for,
/// on CLOCK_MONOTONIC. Each tick is also when the daemon looks for a reader thread stuck
/// inside libnfc (`onTick`). Without `WATCHDOG_USEC` it does nothing.
final class Watchdog {
  private let notifier: SystemdNotifier
  /// Made last in `init`, as its handler needs `self`.
  private var timer: TimerHandle!
  /// Called at each tick, after `WATCHDOG=1`.
  @Wired("Watchdog.onTick") var onTick: () -> Void

  init(loop: EventLoop<LoopMessage>, notifier: SystemdNotifier) throws(SystemError) {
    self.notifier = notifier
    timer = try loop.timer(.monotonic) { [unowned self] _ in self.tick() }
  }

  /// Starts ticking, when systemd asked for a watchdog.
  func start() throws(SystemError) {
    guard let interval = notifier.watchdogInterval else { return }
    try timer.arm(after: interval)
  }

  private func tick() {
    guard let interval = notifier.watchdogInterval else { return }
    notifier.send("WATCHDOG=1")
    try? timer.arm(after: interval)
    onTick()
  }
}
