import CLinux
import Glibc

/// `count` bytes from the kernel's random source (`getrandom(2)`, blocking only until the
/// pool is first initialised at boot), for tokens that must not be guessed: the web app's
/// session and CSRF tokens. A short read is read on; a failure is an error, never weak bytes.
public func randomBytes(_ count: Int) throws(SystemError) -> [UInt8] {
  var bytes = [UInt8](repeating: 0, count: count)
  var filled = 0
  while filled < count {
    let got = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(SystemError) in
        try systemCall("getrandom") { getrandom(buffer.baseAddress! + filled, count - filled, 0) }
      }
    }
    filled += try got.get()
  }
  return bytes
}
