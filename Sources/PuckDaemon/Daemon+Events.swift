import Glibc
import PuckCore
import PuckDevices
import PuckSystem

/// What the loop hands the daemon itself: signals, SIGHUP's reload, and messages from other threads.
extension Daemon {
  func received(signal: Int32) {
    switch signal {
    case SIGHUP:
      reload()
    default:
      Log.notice("signal \(signal): shutting down; open wake-ups stay open on disk")
      loop.stop()
    }
  }

  /// SIGHUP: reads the config again and applies what changed (devices, reader, zone, schedule).
  public func reload() {
    Log.notice("SIGHUP: reloading \(settings.options.configPath)")
    let before = settings.config
    settings.load(reloading: true)
    ringer.applySettings()
    let config = settings.config
    if (before.buzzer, before.button, before.led) != (config.buzzer, config.button, config.led) {
      lines.start(config)
      ringer.linesReplaced()
    }
    readers.reload(from: before.reader)
    if before.mqtt != config.mqtt {
      Log.notice("SIGHUP: [mqtt] changed; reconnecting the remote readers")
      remoteReaders.start()
      turnEnd.updatePolling()
    }
    if before.mqtt != config.mqtt || before.homeAssistant != config.homeAssistant {
      homeAssistant.start(readers: turnEnd.scannerNames)
    }
    settings.reloadZone()
    schedule.refresh()
    ringer.checkDevice()
  }

  func received(_ message: LoopMessage) {
    switch message {
    case .audio(let event, let generation): ringer.received(event, generation: generation)
    case .audioCheck(let device, let error, let mixer):
      ringer.deviceChecked(device, error: error, mixer: mixer)
    case .homeAssistant(let command): homeAssistant.received(command)
    case .reader(let event, let generation): readers.received(event, generation: generation)
    case .remoteReader(let name, let event, let generation):
      remoteReaders.received(event, from: name, generation: generation)
    case .stop:
      Log.notice("stop requested: shutting down; open wake-ups stay open on disk")
      loop.stop()
    case .recordMissed: missed.sliceDue()
    case .clockStepped:
      enforcement.clockStepped()
      schedule.processDue()
    case .button(.pressed):
      Log.notice("dock button pressed")
      // A ring first: the button silences it. Else it may answer the wake-up check.
      if rehearsal.isRunning {
        rehearsal.interrupt()
      } else if enforcement.machine.isRinging || !awake.confirm() {
        enforcement.handle(.bypass)
      }
    }
  }
}
