import Foundation
import Glibc
import Testing

/// Home Assistant 2024.3.3 itself, headless, against the test broker (issue 22): a real puckd
/// and a kitchen node (`puck-reader` with the emulated PN532) publish discovery and state
/// through a run with no alarm, then an alarm with a label that sends its pre-alarm, rings,
/// has a press refused and is ended by the kitchen tag, then a second one rings while Home
/// Assistant stops. Home Assistant must take every message without a warning or an error about
/// them, register every entity, and have saved at its stop the ringing alarm's label on the
/// Ringing sensor and every alarm's label on the Alarms sensor
/// (`Tests/homeassistant/headless.py check`).
///
/// Runs only when `PUCK_HA_VENV` names a venv with `homeassistant==2024.3.3` (and `paho-mqtt`,
/// `janus`), as `.ci/check-homeassistant` does; about 40 s on a loaded 2-core machine.
@Suite(
  "Home Assistant 2024.3.3 headless", .serialized,
  .enabled(if: ProcessInfo.processInfo.environment["PUCK_HA_VENV"] != nil))
struct HomeAssistantHeadlessTests {
  @Test("Home Assistant takes the dock's and the reader's messages without a warning, and sees the pre-alarm")
  func homeAssistantLogStaysClean() throws {
    let venv = try #require(ProcessInfo.processInfo.environment["PUCK_HA_VENV"])
    let python = venv + "/bin/python3"
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("homeassistant/headless.py").path
    let broker = try Broker()
    let directory = broker.directory.appendingPathComponent("homeassistant").path
    let setup = try runExternal(
      python, [script, "setup", directory, "\(broker.port)", "\(Broker.freePort())"])
    try #require(setup.status == 0, "headless.py setup: \(setup.stderr)")

    let homeAssistant = Process()
    homeAssistant.executableURL = URL(fileURLWithPath: python)
    // With --skip-pip (nothing is installed at run time: the venv has what MQTT needs), and
    // signals unblocked so that SIGTERM stops it.
    homeAssistant.arguments = [script, "run", directory]
    try homeAssistant.run(appendingOutputTo: broker.directory.appendingPathComponent("hass.out").path)
    defer {
      if homeAssistant.isRunning {
        kill(homeAssistant.processIdentifier, SIGKILL)
        homeAssistant.waitUntilExit()
      }
    }
    let logPath = directory + "/home-assistant.log"
    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    // Its birth message: connected and subscribed to discovery.
    try waitUntil(timeout: 120, "Home Assistant is connected to the broker") {
      log().contains("message on homeassistant/status: 'online'")
    }

    // No alarm: discovery, the state and the timestamp sensors unavailable.
    let rig = try KitchenRig(broker: broker, config: "[homeassistant]\nenabled = yes\npre_alarm = 4s\n")
    try waitUntil(timeout: 20, "Home Assistant has the dock's state") {
      log().contains("message on puckalarm/dock/bedroom/state")
    }
    try rig.pair()

    // An alarm: its pre-alarm, the ring, a refused press (the bypass is off), the scan.
    let polled = rig.node.log.components(separatedBy: "a dock wants the reader: polling").count
    _ = try rig.dock.addAlarm(inSeconds: 8, extra: ["--label", "sunrise"])
    try waitUntil(timeout: 12, "Home Assistant hears the pre-alarm") {
      log().contains(#"message on puckalarm/dock/bedroom/event (qos=0): b'{"alarm""#)
        && log().contains("pre_alarm")
    }
    try waitUntil(timeout: 12, "the alarm rings") { try rig.dock.isRinging() }
    try waitUntil(timeout: 5, "the node polls") {
      rig.node.log.components(separatedBy: "a dock wants the reader: polling").count > polled
    }
    usleep(800_000)
    try broker.publish("puckalarm/dock/bedroom/bypass", Array("PRESS".utf8))
    try waitUntil(timeout: 5, "the press is refused") { rig.dock.log.contains("bypass refused") }
    try rig.present(kitchenPuck)
    try waitUntil(timeout: 5, "the wake-up closes") { try rig.dock.guards().isEmpty }
    try waitUntil(timeout: 10, "Home Assistant has the last wake-up") {
      log().contains("message on puckalarm/dock/bedroom/last_wake_up")
    }
    try waitUntil(timeout: 10, "Home Assistant has the closed wake-up") {
      log().contains(#""open":"OFF""#) && log().contains("bypass_refused")
    }

    // Labels: a weekly alarm that does not ring here, and a second one that rings while Home
    // Assistant stops, so the states it saves show both.
    #expect(try rig.dock.ctl("alarm", "add", "05:55", "--label", "weekend", "--days", "sat,sun").status == 0)
    _ = try rig.dock.addAlarm(inSeconds: 5, extra: ["--label", "nap"])
    try waitUntil(timeout: 12, "the second alarm rings") { try rig.dock.isRinging() }
    try waitUntil(timeout: 10, "Home Assistant has the ringing alarm's label") {
      log().contains(#""wake_up_label":"nap""#) && log().contains(#""label":"weekend""#)
    }
    // Its state machine takes the message just after its log line.
    usleep(500_000)

    // Stopped, Home Assistant writes its registries; then its log and storage are checked.
    kill(homeAssistant.processIdentifier, SIGTERM)
    try waitUntil(timeout: 60, "Home Assistant stops") { !homeAssistant.isRunning }
    let check = try runExternal(python, [script, "check", directory, "bedroom", "nap", "weekend"])
    print(check.stdout)
    #expect(check.status == 0, "Home Assistant's log or registry: \(check.stdout) \(check.stderr)")
  }
}
