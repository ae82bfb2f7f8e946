// swift-tools-version:6.0
// PuckAlarm for Linux: an alarm clock that only lets go when you scan your paired NFC tag.
//
// Dependencies point one way: executables → PuckDaemon / PuckDevices / PuckStorage / PuckWeb /
// PuckClient → PuckCore and PuckSystem. PuckCore is plain Swift (no C imports, no I/O).
// PuckSystem is the only layer over Glibc for system calls, clocks and the loop. The C libraries
// are imported by PuckDevices (the devices, MQTT, libcrypto), PuckPassword (libcrypt) and
// PuckWeb's HTTP server (libmicrohttpd) only.
import PackageDescription

#if canImport(Foundation)
  import Foundation
#endif

/// The major version of the libgpiod C API to compile against: 1 (Debian bookworm, 1.6) or
/// 2 (trixie, 2.x). The two APIs differ, so `Sources/PuckDevices/GPIO/GPIOLineRequest.swift`
/// serves both behind `#if PUCK_GPIOD_V2`; Swift's `#if` cannot read a C header's macros, so
/// the choice is made here: `$PUCK_GPIOD_API` (`1` or `2`) when set, otherwise
/// `pkg-config --modversion libgpiod` (which honours `PKG_CONFIG_PATH` and cross-compilation
/// sysroots), otherwise 1. The C shim checks the choice against the headers it sees, so a wrong
/// one fails the build at the first line of that file, not deep inside it.
/// SwiftPM caches this manifest's result until this file or the environment changes: after
/// upgrading libgpiod in place, `rm -rf .build` (or set `PUCK_GPIOD_API`).
func libgpiodMajorVersion() -> Int {
  if let forced = Context.environment["PUCK_GPIOD_API"], let major = Int(forced) { return major }
  #if canImport(Foundation)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--modversion", "libgpiod"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return 1 }
    process.waitUntilExit()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard process.terminationStatus == 0, let major = Int(text.prefix { $0.isNumber }) else { return 1 }
    return major
  #else
    return 1
  #endif
}

let gpiodSettings: [SwiftSetting] = libgpiodMajorVersion() >= 2 ? [.define("PUCK_GPIOD_V2")] : []

let package = Package(
  name: "PuckAlarm",
  products: [
    .executable(name: "puckd", targets: ["puckd"]),
    .executable(name: "puckctl", targets: ["puckctl"]),
    .executable(name: "puck-reader", targets: ["puck-reader"]),
    .executable(name: "puck-web", targets: ["puck-web"]),
  ],
  targets: [
    // C libraries from Debian, through pkg-config.
    .systemLibrary(
      name: "CNFC", pkgConfig: "libnfc",
      providers: [.apt(["libnfc-dev"])]),
    .systemLibrary(
      name: "CGPIOD", pkgConfig: "libgpiod",
      providers: [.apt(["libgpiod-dev"])]),
    .systemLibrary(
      name: "CALSA", pkgConfig: "alsa",
      providers: [.apt(["libasound2-dev"])]),
    .systemLibrary(
      name: "CSndfile", pkgConfig: "sndfile",
      providers: [.apt(["libsndfile1-dev"])]),
    .systemLibrary(
      name: "CMosquitto", pkgConfig: "libmosquitto",
      providers: [.apt(["libmosquitto-dev"])]),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    // libcrypt (libxcrypt), the system's password hashing: the web app's password.
    .systemLibrary(
      name: "CCrypt", pkgConfig: "libcrypt",
      providers: [.apt(["libcrypt-dev"])]),
    // libmicrohttpd, the web app's HTTP server (with GnuTLS for HTTPS).
    .systemLibrary(
      name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
      providers: [.apt(["libmicrohttpd-dev"])]),

    // Linux interfaces the Glibc module lacks (epoll, timerfd, signalfd, eventfd, inotify,
    // getrandom).
    .systemLibrary(name: "CLinux"),

    // The one system layer: SystemError and the EINTR-retrying call funnel, write-all, Unix
    // socket addresses, clocks and their conversions (TimeSource, MonotonicInstant), the wake
    // eventfd, backoff, and the loop machinery (EventLoop and its TimerHandles over timerfds,
    // SignalSource, DirectoryWatch, SystemdNotifier). Glibc and
    // CLinux only: it knows nothing of alarms, so PuckCore stays free of C and PuckSystem free
    // of the domain (Instant conversions are extensions in PuckStorage and PuckDaemon).
    .target(name: "PuckSystem", dependencies: ["CLinux"]),
    // Schedule, time-zone rules, wake guard, codecs, config, protocol. No C, no I/O.
    .target(name: "PuckCore"),
    // Files on disk: atomic durable writes, the state directory, the pairing file, zoneinfo.
    .target(name: "PuckStorage", dependencies: ["PuckCore", "PuckSystem"]),
    // The only importers of the C libraries: libnfc reader, ALSA player, libsndfile decoder,
    // libgpiod lines, and the remote readers (libmosquitto, libcrypto's HMAC).
    .target(
      name: "PuckDevices",
      dependencies: [
        "PuckCore", "PuckSystem", "CNFC", "CGPIOD", "CALSA", "CSndfile", "CMosquitto", "CCrypto",
      ],
      swiftSettings: gpiodSettings),
    // Event loop, timers, control socket, systemd notify; performs the core's effects.
    .target(
      name: "PuckDaemon", dependencies: ["PuckCore", "PuckSystem", "PuckStorage", "PuckDevices", "CLinux"]),

    // The control socket's client, shared by puckctl and puck-web.
    .target(name: "PuckClient", dependencies: ["PuckCore", "PuckSystem"]),
    // The web password: libcrypt's yescrypt hash (the only importer of CCrypt).
    .target(name: "PuckPassword", dependencies: ["CCrypt"]),
    // The web app: pages, sessions, CSRF, the login limit (plain Swift), and the HTTP server
    // over libmicrohttpd (the only importer of CMicroHTTPD); a client of the control socket.
    // Its icons are compiled in (`PackageResources`, no bundle, no Foundation); `make web-icons`
    // makes the PNGs from the SVG.
    .target(
      name: "PuckWeb", dependencies: ["PuckCore", "PuckSystem", "PuckClient", "PuckPassword", "CMicroHTTPD"],
      resources: [
        .embedInCode("Icons/icon.svg"), .embedInCode("Icons/icon-180.png"),
        .embedInCode("Icons/icon-192.png"),
        .embedInCode("Icons/icon-512.png"),
      ]),

    .executableTarget(name: "puckd", dependencies: ["PuckDaemon"]),
    .executableTarget(
      name: "puckctl",
      dependencies: ["PuckCore", "PuckSystem", "PuckStorage", "PuckDevices", "PuckClient", "PuckPassword"]),
    // The web app's process: its own user in the puckalarm group (systemd/puck-web.service).
    .executableTarget(
      name: "puck-web", dependencies: ["PuckWeb", "PuckStorage", "PuckPassword", "PuckCore", "PuckSystem"]),
    // The reader node: a second board's PN532 forwarding signed scans through MQTT.
    .executableTarget(
      name: "puck-reader", dependencies: ["PuckDaemon", "PuckDevices", "PuckStorage", "PuckCore"]),

    // Test tooling: a PN532 on a pseudo-terminal, answering libnfc's pn532_uart driver.
    .target(name: "PN532Emulator", dependencies: ["PuckSystem"]),
    .executableTarget(name: "pn532-emulator", dependencies: ["PN532Emulator", "PuckSystem"]),
    // Benchmark tooling: the schedule's catch-up and next fire after a clock step, at scale.
    .executableTarget(name: "puck-schedule-bench", dependencies: ["PuckCore", "PuckStorage", "PuckSystem"]),
    // Test tooling: recording and scripted GPIO lines (there is no GPIO chip to test against here).
    .target(name: "GPIODoubles", dependencies: ["PuckDevices", "PuckSystem"]),

    .testTarget(name: "PuckSystemTests", dependencies: ["PuckSystem"]),
    .testTarget(name: "PuckCoreTests", dependencies: ["PuckCore"]),
    .testTarget(name: "PuckStorageTests", dependencies: ["PuckStorage", "PuckCore"]),
    .testTarget(
      name: "PuckDevicesTests",
      dependencies: ["PuckDevices", "PuckCore", "PN532Emulator", "GPIODoubles", "CSndfile"]),
    .testTarget(
      name: "PuckDaemonTests",
      dependencies: ["PuckDaemon", "PuckDevices", "PuckStorage", "PuckCore", "GPIODoubles"]),
    .testTarget(name: "PN532EmulatorTests", dependencies: ["PN532Emulator"]),
    .testTarget(name: "PuckPasswordTests", dependencies: ["PuckPassword"]),
    .testTarget(name: "PuckWebTests", dependencies: ["PuckWeb", "PuckPassword", "PuckCore"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: ["PuckCore", "PuckDevices", "PN532Emulator", "CSndfile", "PuckPassword"]),
  ],
  swiftLanguageModes: [.v6]
)
