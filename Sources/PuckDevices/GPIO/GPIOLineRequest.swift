import CGPIOD
import Glibc
import PuckCore
import PuckSystem

// Every libgpiod call of the program is in this file and in GPIOLineRequest+Locate.swift (which
// finds the line). libgpiod 1.6 (Debian bookworm) and 2.x (trixie) have different C APIs, so
// each operation has two bodies behind `#if PUCK_GPIOD_V2`.
// Package.swift defines PUCK_GPIOD_V2 when `pkg-config --modversion libgpiod` reports 2 or
// later (or `PUCK_GPIOD_API=2` is set); `.ci/check-gpiod2` builds and tests the 2.x bodies
// against Debian trixie's libgpiod-dev.
//
// The C shim declares exactly one of two marker types, from what the headers define. If
// Package.swift chose the other API (say, an old `.build` after upgrading libgpiod in place),
// the line below is the first error: "cannot find type 'puck_gpiod_headers_are_v…'". Remove
// `.build`, or set PUCK_GPIOD_API to the major version of the installed libgpiod-dev.
#if PUCK_GPIOD_V2
  private typealias HeadersMatchTheChosenAPI = puck_gpiod_headers_are_v2
#else
  private typealias HeadersMatchTheChosenAPI = puck_gpiod_headers_are_v1
#endif

/// The one owner of libgpiod: one requested GPIO line and the chip it is on. It finds the line
/// (by offset on the configured chip, or by name on any chip), requests it as an output that
/// starts inactive or as an input with both-edge events, drives it, reads its edges, and
/// releases the request and closes the chip in `release()` — the only place either is freed.
/// Every libgpiod call goes through `call(_:_:_:)`, which turns a failure into a `GPIOError`
/// carrying the function's name and `errno`; no libgpiod pointer leaves this type.
///
/// Not `Sendable`: libgpiod objects are not thread-safe. The buzzer and LED drivers use their
/// line under their lock; the button's line lives on its reader thread.
public final class GPIOLineRequest: GPIOOutputLine, GPIOInputLine {
  /// What the line is requested for.
  private enum Direction {
    /// An output, initially inactive.
    case output
    /// An input reporting both edges, biased towards its inactive level.
    case input
  }

  /// Where the line is: "gpiochip0 line 18", with the name when it was found by name:
  /// "gpiochip0 line 17 (GPIO17)".
  public let location: String
  private let offset: UInt32
  private var chip: OpaquePointer?
  #if PUCK_GPIOD_V2
    private var request: OpaquePointer?
    private var eventBuffer: OpaquePointer?
    /// Edges read from the kernel in one batch but not yet handed out.
    private var pending: [GPIOEdge] = []
    /// How many edges one read takes from the kernel.
    private static let eventBatch = 16
  #else
    private var line: OpaquePointer?
  #endif

  /// The libgpiod API this program was compiled for: 1 (1.6) or 2 (2.x).
  public static var compiledAPI: Int {
    #if PUCK_GPIOD_V2
      return 2
    #else
      return 1
    #endif
  }

  /// The version of the libgpiod the program runs with, e.g. "1.6.3" or "2.2.1":
  /// `gpiod_version_string` (1.6), `gpiod_api_version` (2.x).
  public static var libraryVersion: String {
    #if PUCK_GPIOD_V2
      return String(cString: gpiod_api_version())
    #else
      return String(cString: gpiod_version_string())
    #endif
  }

  /// Requests `settings`' line as an output driven to its inactive level at once (the request
  /// carries the initial value, so the line never glitches on), with `active_low` applied by
  /// the kernel. `consumer` is the label `gpioinfo` shows. libgpiod 1.6:
  /// `gpiod_line_request_output_flags`; 2.x: `gpiod_chip_request_lines` with direction output,
  /// output value inactive.
  public static func output(_ settings: GPIOLineSettings, consumer: String) throws(GPIOError)
    -> GPIOLineRequest
  {
    try GPIOLineRequest(settings, direction: .output, consumer: consumer)
  }

  /// `output(_:consumer:)` as the opener a driver takes.
  public static func outputOpener(consumer: String) -> GPIOOutputOpener {
    { settings throws(GPIOError) in try output(settings, consumer: consumer) }
  }

  /// Requests `settings`' line as an input reporting both edges, with the internal pull-up
  /// when `active_low` (a button to ground) and the pull-down otherwise. libgpiod 1.6:
  /// `gpiod_line_request_both_edges_events_flags` with `ACTIVE_LOW | BIAS_PULL_UP`; 2.x:
  /// `gpiod_chip_request_lines` with edge detection both and bias pull-up.
  public static func input(_ settings: GPIOLineSettings, consumer: String) throws(GPIOError)
    -> GPIOLineRequest
  {
    try GPIOLineRequest(settings, direction: .input, consumer: consumer)
  }

  private init(_ settings: GPIOLineSettings, direction: Direction, consumer: String) throws(GPIOError) {
    let found = try Self.locate(settings)
    chip = found.chip
    offset = found.offset
    location = found.location
    #if !PUCK_GPIOD_V2
      line = found.line
    #endif
    do {
      #if PUCK_GPIOD_V2
        try requestV2(settings, direction: direction, consumer: consumer)
      #else
        try requestV1(settings, direction: direction, consumer: consumer)
      #endif
    } catch {
      // A line another program holds is named with that program's consumer label, which is
      // all a person needs to find it; read while the chip is still open.
      let holder = error.code == EBUSY ? consumerLabel() : nil
      release()
      throw holder.map { GPIOError.held(error, by: $0) } ?? error
    }
  }

  deinit { release() }

  /// The consumer label of whoever holds the line now (as `gpioinfo` shows it), nil when
  /// nobody does or it cannot be read: `gpiod_line_update` and `gpiod_line_consumer` (1.6),
  /// `gpiod_chip_get_line_info` and `gpiod_line_info_get_consumer` (2.x).
  private func consumerLabel() -> String? {
    #if PUCK_GPIOD_V2
      guard let chip, let info = gpiod_chip_get_line_info(chip, offset) else { return nil }
      defer { gpiod_line_info_free(info) }
      guard gpiod_line_info_is_used(info), let label = gpiod_line_info_get_consumer(info) else { return nil }
    #else
      guard let line, gpiod_line_update(line) == 0, let label = gpiod_line_consumer(line) else { return nil }
    #endif
    let text = String(cString: label)
    return text.isEmpty ? nil : text
  }

  /// Drives the line active or inactive: `gpiod_line_set_value` (1.6),
  /// `gpiod_line_request_set_value` (2.x).
  public func set(on: Bool) throws(GPIOError) {
    let action = "cannot drive \(location)"
    #if PUCK_GPIOD_V2
      let request = try Self.open(request, "gpiod_line_request_set_value", action)
      let value = on ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE
      try Self.call("gpiod_line_request_set_value", action) {
        gpiod_line_request_set_value(request, offset, value)
      }
    #else
      let line = try Self.open(line, "gpiod_line_set_value", action)
      try Self.call("gpiod_line_set_value", action) { gpiod_line_set_value(line, on ? 1 : 0) }
    #endif
  }

  /// Waits at most `timeout` for an edge and reads it: `gpiod_line_event_wait` and
  /// `gpiod_line_event_read` (1.6), `gpiod_line_request_wait_edge_events` and
  /// `gpiod_line_request_read_edge_events` into an edge event buffer (2.x).
  public func waitForEdge(timeout: Duration) throws(GPIOError) -> GPIOEdge? {
    let action = "cannot read \(location)"
    #if PUCK_GPIOD_V2
      if !pending.isEmpty { return pending.removeFirst() }
      let request = try Self.open(request, "gpiod_line_request_wait_edge_events", action)
      let buffer = try Self.open(eventBuffer, "gpiod_line_request_read_edge_events", action)
      let ready = try Self.call("gpiod_line_request_wait_edge_events", action) {
        gpiod_line_request_wait_edge_events(request, timeout.roundedUpNanoseconds)
      }
      guard ready > 0 else { return nil }
      let count = try Self.call("gpiod_line_request_read_edge_events", action) {
        gpiod_line_request_read_edge_events(request, buffer, Self.eventBatch)
      }
      for index in 0..<Int(count) {
        // The buffer owns its events; copy out what we need before the next read reuses it.
        guard let event = gpiod_edge_event_buffer_get_event(buffer, UInt(index)) else { continue }
        let kind: GPIOEdge.Kind =
          gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE ? .rising : .falling
        let stamp = Int64(clamping: gpiod_edge_event_get_timestamp_ns(event))
        pending.append(GPIOEdge(kind, at: MonotonicInstant(nanoseconds: stamp)))
      }
      return pending.isEmpty ? nil : pending.removeFirst()
    #else
      let line = try Self.open(line, "gpiod_line_event_wait", action)
      var wait = timeout.waitTimespec
      let ready = try Self.call("gpiod_line_event_wait", action) { gpiod_line_event_wait(line, &wait) }
      guard ready > 0 else { return nil }
      var event = gpiod_line_event()
      try Self.call("gpiod_line_event_read", action) { gpiod_line_event_read(line, &event) }
      let kind: GPIOEdge.Kind =
        Int(event.event_type) == Int(GPIOD_LINE_EVENT_RISING_EDGE) ? .rising : .falling
      return GPIOEdge(kind, at: MonotonicInstant(reading: event.ts))
    #endif
  }

  /// Releases the request and closes the chip: `gpiod_line_release` and `gpiod_chip_close`
  /// (1.6); `gpiod_edge_event_buffer_free`, `gpiod_line_request_release` and `gpiod_chip_close`
  /// (2.x). The only place any of them is freed; safe to call twice. An output keeps its last
  /// level after release.
  public func release() {
    #if PUCK_GPIOD_V2
      if let eventBuffer {
        gpiod_edge_event_buffer_free(eventBuffer)
        self.eventBuffer = nil
      }
      if let request {
        gpiod_line_request_release(request)
        self.request = nil
      }
      pending = []
    #else
      if let line {
        gpiod_line_release(line)
        self.line = nil
      }
    #endif
    if let chip {
      gpiod_chip_close(chip)
      self.chip = nil
    }
  }

  // MARK: - libgpiod 1.6

  #if !PUCK_GPIOD_V2
    /// Requests the line with the 1.6 flag-based calls.
    private func requestV1(_ settings: GPIOLineSettings, direction: Direction, consumer: String)
      throws(GPIOError)
    {
      let action = "cannot request \(location)"
      let line = try Self.open(line, "gpiod_line_request", action)
      var flags = settings.activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
      switch direction {
      case .output:
        // Default value 0 is the inactive level; with ACTIVE_LOW the kernel drives the pin high.
        try Self.call("gpiod_line_request_output_flags", action) {
          gpiod_line_request_output_flags(line, consumer, flags, 0)
        }
      case .input:
        flags |=
          settings.activeLow
          ? Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP) : Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
        try Self.call("gpiod_line_request_both_edges_events_flags", action) {
          gpiod_line_request_both_edges_events_flags(line, consumer, flags)
        }
      }
    }
  #endif

  // MARK: - libgpiod 2.x

  #if PUCK_GPIOD_V2
    /// Requests the line with 2.x line settings, line config and request config, which are
    /// freed before returning (`gpiod_line_settings_free`, `gpiod_line_config_free`,
    /// `gpiod_request_config_free`); the request does not refer to them.
    private func requestV2(_ settings: GPIOLineSettings, direction: Direction, consumer: String)
      throws(GPIOError)
    {
      let action = "cannot request \(location)"
      let chip = try Self.open(chip, "gpiod_chip_request_lines", action)
      let lineSettings = try Self.call("gpiod_line_settings_new", action) { gpiod_line_settings_new() }
      defer { gpiod_line_settings_free(lineSettings) }
      gpiod_line_settings_set_active_low(lineSettings, settings.activeLow)
      switch direction {
      case .output:
        try Self.call("gpiod_line_settings_set_direction", action) {
          gpiod_line_settings_set_direction(lineSettings, GPIOD_LINE_DIRECTION_OUTPUT)
        }
        try Self.call("gpiod_line_settings_set_output_value", action) {
          gpiod_line_settings_set_output_value(lineSettings, GPIOD_LINE_VALUE_INACTIVE)
        }
      case .input:
        try Self.call("gpiod_line_settings_set_direction", action) {
          gpiod_line_settings_set_direction(lineSettings, GPIOD_LINE_DIRECTION_INPUT)
        }
        try Self.call("gpiod_line_settings_set_edge_detection", action) {
          gpiod_line_settings_set_edge_detection(lineSettings, GPIOD_LINE_EDGE_BOTH)
        }
        try Self.call("gpiod_line_settings_set_bias", action) {
          gpiod_line_settings_set_bias(
            lineSettings, settings.activeLow ? GPIOD_LINE_BIAS_PULL_UP : GPIOD_LINE_BIAS_PULL_DOWN)
        }
      }
      let lineConfig = try Self.call("gpiod_line_config_new", action) { gpiod_line_config_new() }
      defer { gpiod_line_config_free(lineConfig) }
      var offsets = [offset]
      try Self.call("gpiod_line_config_add_line_settings", action) {
        gpiod_line_config_add_line_settings(lineConfig, &offsets, 1, lineSettings)
      }
      let requestConfig = try Self.call("gpiod_request_config_new", action) { gpiod_request_config_new() }
      defer { gpiod_request_config_free(requestConfig) }
      gpiod_request_config_set_consumer(requestConfig, consumer)
      request = try Self.call("gpiod_chip_request_lines", action) {
        gpiod_chip_request_lines(chip, requestConfig, lineConfig)
      }
      if direction == .input {
        eventBuffer = try Self.call("gpiod_edge_event_buffer_new", action) {
          gpiod_edge_event_buffer_new(Self.eventBatch)
        }
      }
    }
  #endif
}
