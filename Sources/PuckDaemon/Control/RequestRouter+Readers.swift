import Glibc
import PuckCore
import PuckDevices

/// `puckctl reader add|rm|list`: enrolling the remote readers (docs/DESIGN.md M1).
extension RequestRouter {
  func addReader(_ name: String, key given: String?) throws(ControlFailure) -> ControlReply {
    // A reader enrolled now, with a key of root's choosing, could end the wake-up with a signed
    // scan and no override: enrolling is a pairing change (docs/DESIGN.md P3).
    guard !enforcement.isOpen else {
      throw ControlFailure(.refused, "a wake-up is open; a reader cannot be enrolled until the puck ends it")
    }
    guard !devices.remoteReaders.names.contains(name) else {
      throw ControlFailure(
        .refused,
        "reader \(name) is already enrolled; 'sudo puckctl reader rm \(name)' first to give it a new key")
    }
    let key = try ControlFailure.failing("reader \(name) could not be enrolled") {
      try devices.remoteReaders.enroll(name, key: given.flatMap(ReaderKey.init(hex:)))
    }
    let mqtt = dock.settings.config.mqtt
    return
      .success(
        """
        reader \(name) enrolled. On the reader node, as root, install its key (keep it secret):
          echo \(key.hex) | install -m 600 /dev/stdin /etc/puckalarm/reader.key
        and run puck-reader with: --name \(name) --key-file /etc/puckalarm/reader.key --broker \(mqtt.addressForNode)
        (the node's own broker account and --reader connstring as hardware/README.md shows).
        This dock is '\(dock.settings.dockName)' to the node.\(
          mqtt.isLoopbackHost
            ? "\nDOCK-ADDRESS: this dock's address on the home network (its broker is [mqtt] host = \(mqtt.host), which only this dock reaches), e.g. \(dock.settings.dockName).local or 192.168.1.10."
            : "")
        """)
  }

  func removeReader(_ name: String) throws(ControlFailure) -> ControlReply {
    guard !enforcement.isOpen else {
      throw ControlFailure(.refused, "a wake-up is open; a reader cannot be removed until the puck ends it")
    }
    if dock.settings.config.reader.device == .none && devices.remoteReaders.names == [name] {
      try lock.permitLosing("removing the only reader")
    }
    let removed = try ControlFailure.failing("reader \(name) could not be removed") {
      try devices.remoteReaders.remove(name)
    }
    guard removed else {
      throw ControlFailure(.notFound, "no remote reader named \(name) (see puckctl reader list)")
    }
    return .success("reader \(name) removed; its key no longer ends a wake-up")
  }

  func listReaders() -> ControlReply {
    let readers = devices.remoteReaders.health
    var reply: ControlReply =
      readers.isEmpty
      ? .success("no remote reader is enrolled (sudo puckctl reader add NAME)")
      : .success(readers.map { "\($0.state.rawValue): \($0.detail)" }.joined(separator: "\n"))
    reply.readers = readers
    return reply
  }
}
