import Foundation
import PuckCore

// The daemon lands with the next issue; for now `puckd --version` proves the build.
let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--version" {
  print("puckd \(ProductVersion.current)")
  exit(0)
}
FileHandle.standardError.write(Data("<3>puckd: the daemon is not built yet; only --version works\n".utf8))
exit(64)
