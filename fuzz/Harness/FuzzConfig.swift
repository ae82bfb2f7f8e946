// puckd.conf: any text parses to a DockConfig or throws a ConfigError with a message.

func fuzzConfig(_ data: UnsafeBufferPointer<UInt8>) {
  do {
    let config = try DockConfig.parse(text(data), file: "puckd.conf")
    _ = config.audio.ramp.configText
    _ = config.enforcement.retryDelay.configText
  } catch {
    _ = error.description
  }
}
