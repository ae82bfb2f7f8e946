import Foundation
import Glibc
import Testing

/// The real `puck-web` before a real puckd: a request that waits for puckd (the pre-flight check
/// waits up to 5 s for the devices' answers) holds no one else's page.
@Suite("puck-web serves others while a request waits for puckd", .serialized)
struct WebServerConcurrencyTests {
  @Test("another phone's status page is answered while a pre-flight check's request waits for puckd's answer")
  func statusPageDuringCheck() throws {
    // puckd's audio device never answers, so its check waits the whole 5 s for it.
    let web = try WebHarness(stuckAudio: true)
    try web.start()
    try web.waitUntilStartCheckIsOver()
    let (cookie, csrf) = try web.logIn()
    let (otherCookie, _) = try web.logIn()

    // The check's form, left waiting: puck-web's worker holds puckd's connection until the
    // check's 5 s are up.
    let check = try HTTPConnection(port: web.port)
    defer { check.close() }
    try web.waitUntilPuckdHoldsNoClient()
    let sent = Date()
    try check.send("POST", "/check", cookies: [cookie], form: "csrf=\(csrf)")
    try waitUntil(timeout: 15, "the check's request is at puckd") { web.daemon.connectedClients > 0 }

    // Another phone (another session) loads the status page meanwhile: a whole answer, while
    // the check's form still has none. A server whose waiting request held the others (one
    // worker, or the app run on the polling thread) answers this page only after the check.
    let status = try web.request("GET", "/", cookies: [otherCookie])
    #expect(status.status == 200, "\(status.head)")
    #expect(status.body.contains("<h1>"), "the status page itself")
    #expect(!check.hasAnswerWaiting, "the status page was answered while the check's request waited")

    // The check's form is answered in the end, as every form: back to the status page.
    let answer = try check.response()
    let waited = Date().timeIntervalSince(sent)
    #expect(waited >= 4.5, "the check's request waited for puckd's answer (\(waited) s)")
    #expect(answer.status == 303, "\(answer.head)")
    #expect(answer.head.contains("Location: /\r\n") || answer.head.hasSuffix("Location: /"))
    let after = try web.request("GET", "/", cookies: [cookie])
    // The flash of this check (the one at start left none), naming the device that did not answer.
    let flash = #/The pre-flight check FAILED: [^<]*audio: FAILED — stuck did not answer within 5 s/#
    #expect(after.body.contains(flash), "the check's outcome is on the page")
  }

  @Test("SIGTERM while a request waits for puckd: puck-web lets it finish, answers it, and exits 0")
  func stopWhileWaiting() throws {
    let web = try WebHarness(stuckAudio: true)
    try web.start()
    try web.waitUntilStartCheckIsOver()
    let (cookie, csrf) = try web.logIn()
    let check = try HTTPConnection(port: web.port)
    defer { check.close() }
    try web.waitUntilPuckdHoldsNoClient()
    try check.send("POST", "/check", cookies: [cookie], form: "csrf=\(csrf)")
    try waitUntil(timeout: 15, "the check's request is at puckd") { web.daemon.connectedClients > 0 }
    let process = try #require(web.process)
    kill(process.processIdentifier, SIGTERM)
    let answer = try check.response()
    #expect(answer.status == 303, "the waiting request is answered before puck-web stops: \(answer.head)")
    process.waitUntilExit()
    #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(web.log)")
  }

  @Test(
    "a request dripped in a byte a second is cut off after the request time, though it is never idle; the dock still answers"
  )
  func dripIsCutOff() throws {
    let web = try WebHarness()
    try web.start()
    let drip = try HTTPConnection(port: web.port)
    defer { drip.close() }
    #expect(drip.sendRaw("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: "))
    // A byte a second: never idle for libmicrohttpd's 10 s, so only the request time (15 s)
    // ends it. 60 s is the bound of the test, not of the server.
    var seconds = 0
    while seconds < 60, drip.sendRaw("a"), !drip.isClosedByServer {
      sleep(1)
      seconds += 1
    }
    #expect(seconds < 60, "the dripped request was still open after 60 s")
    try waitUntil(timeout: 10, "puck-web logs the cut") {
      web.log.contains("cut off a request from 127.0.0.1")
    }
    let (cookie, _) = try web.logIn()
    #expect(try web.request("GET", "/", cookies: [cookie]).status == 200, "a whole request is answered")
  }
}

extension WebHarness {
  /// Waits until puckd's own check at start is over: with a stuck device it takes its 5 s, and
  /// a check asked for meanwhile would join it and wait less.
  fileprivate func waitUntilStartCheckIsOver() throws {
    try waitUntil(timeout: 15, "puckd's check at start is over") {
      daemon.log.contains("pre-flight check (start) FAILED")
    }
  }

  /// Waits until puckd has closed every client before (the logins' status pages), so the next
  /// connection it holds is the request the test sends.
  fileprivate func waitUntilPuckdHoldsNoClient() throws {
    try waitUntil(timeout: 4, "puckd holds no client") { daemon.connectedClients == 0 }
  }
}
