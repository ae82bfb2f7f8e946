import PuckSystem

/// systemd's watchdog (`WatchdogSec=`): `WATCHDOG=1` at half the interval systemd asked for,
/// on CLOCK_MONOTONIC. Each tick is also when the daemon looks for a reader thread stuck
/// inside libnfc (`onTick`). Without `WATCHDOG_USEC` it does nothing.
final class Watchdog {
  private let notifier: SystemdNotifier
  private let timer: any LoopTimer
  /// Called at each tick, after `WATCHDOG=1`.
  @Wired("Watchdog.onTick") var onTick: () -> Void

  init(time: any TimeSource, notifier: SystemdNotifier) throws(SystemError) {
    self.notifier = notifier
    timer = try time.makeTimer(.monotonic)
  }

  func watch(on loop: EventLoop<LoopMessage>) throws(SystemError) {
    guard let interval = notifier.watchdogInterval else { return }
    try timer.arm(after: interval)
    try loop.watch(timer) { [unowned self] _ in
      self.notifier.send("WATCHDOG=1")
      try? self.timer.arm(after: interval)
      self.onTick()
    }
  }
}
