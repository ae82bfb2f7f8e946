// swift-tools-version:6.0
// PuckAlarm for Linux: an alarm clock that only lets go when you scan your paired NFC tag.
//
// Dependencies point one way: executables → PuckDaemon / PuckDevices / PuckStorage → PuckCore.
// PuckCore is plain Swift (no C imports, no I/O). Only PuckDevices imports the C libraries.
import PackageDescription

let package = Package(
  name: "PuckAlarm",
  products: [
    .executable(name: "puckd", targets: ["puckd"]),
    .executable(name: "puckctl", targets: ["puckctl"]),
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

    // Linux interfaces the Glibc module lacks (epoll, timerfd, signalfd, eventfd, inotify).
    .systemLibrary(name: "CLinux"),

    // Schedule, time-zone rules, wake guard, codecs, config, protocol. No C, no I/O.
    .target(name: "PuckCore"),
    // Files on disk: atomic durable writes, the state directory, the pairing file, zoneinfo.
    .target(name: "PuckStorage", dependencies: ["PuckCore"]),
    // The only importers of the C libraries: libnfc reader, ALSA player, libgpiod lines.
    .target(name: "PuckDevices", dependencies: ["PuckCore", "CNFC", "CGPIOD", "CALSA"]),
    // Event loop, timers, control socket, systemd notify; performs the core's effects.
    .target(name: "PuckDaemon", dependencies: ["PuckCore", "PuckStorage", "PuckDevices", "CLinux"]),

    .executableTarget(name: "puckd", dependencies: ["PuckDaemon"]),
    .executableTarget(name: "puckctl", dependencies: ["PuckCore", "PuckStorage"]),

    // Test tooling: a PN532 on a pseudo-terminal, answering libnfc's pn532_uart driver.
    .target(name: "PN532Emulator"),
    .executableTarget(name: "pn532-emulator", dependencies: ["PN532Emulator"]),

    .testTarget(name: "PuckCoreTests", dependencies: ["PuckCore"]),
    .testTarget(name: "PuckStorageTests", dependencies: ["PuckStorage", "PuckCore"]),
    .testTarget(name: "PuckDevicesTests", dependencies: ["PuckDevices", "PuckCore", "PN532Emulator"]),
    .testTarget(name: "PN532EmulatorTests", dependencies: ["PN532Emulator"]),
    .testTarget(name: "EndToEndTests", dependencies: ["PuckCore", "PN532Emulator"]),
  ],
  swiftLanguageModes: [.v6]
)
