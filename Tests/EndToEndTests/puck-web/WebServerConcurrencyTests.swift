import Foundation
import Glibc
import Testing

/// The real `puck-web` before a real puckd: a request that waits for puckd (the status page's
/// 3 s test ring waits for its end) holds no one else's page.
@Suite("puck-web serves others while a request waits for puckd", .serialized)
struct WebServerConcurrencyTests {
  @Test("another phone's status page is answered while a test ring's request waits for puckd's answer")
  func statusPageDuringTestRing() throws {
    let web = try WebHarness()
    try web.start()
    let (cookie, csrf) = try web.logIn()

    // The test ring's form, left waiting: puckd answers it when the ring ends, 3 s later.
    let ring = try HTTPConnection(port: web.port)
    defer { ring.close() }
    let ringsBefore = web.daemon.log.components(separatedBy: "rehearsal: ringing").count
    try ring.send("POST", "/test", cookies: [cookie], form: "csrf=\(csrf)")
    try waitUntil(timeout: 10, "puckd rings the test ring") {
      web.daemon.log.components(separatedBy: "rehearsal: ringing").count > ringsBefore
    }
    #expect(!ring.hasAnswerWaiting, "the test ring's form is answered when the ring ends, not before")

    // Another phone (another session) loads the status page meanwhile: a whole answer, while
    // the test ring's form still has none.
    let (otherCookie, _) = try web.logIn()
    let status = try web.request("GET", "/", cookies: [otherCookie])
    #expect(status.status == 200, "\(status.head)")
    #expect(status.body.contains("<h1>"), "the status page itself")
    #expect(!ring.hasAnswerWaiting, "the status page was answered while the test ring's request waited")

    // The test ring's form is answered in the end, as every form: back to the status page.
    let answer = try ring.response()
    #expect(answer.status == 303, "\(answer.head)")
    #expect(answer.head.contains("Location: /\r\n") || answer.head.hasSuffix("Location: /"))
    let after = try web.request("GET", "/", cookies: [cookie])
    #expect(after.body.contains("rehearsal"), "the test ring's outcome is on the page")
  }

  @Test("SIGTERM while a request waits for puckd: puck-web lets it finish, answers it, and exits 0")
  func stopWhileWaiting() throws {
    let web = try WebHarness()
    try web.start()
    let (cookie, csrf) = try web.logIn()
    let ring = try HTTPConnection(port: web.port)
    defer { ring.close() }
    let ringsBefore = web.daemon.log.components(separatedBy: "rehearsal: ringing").count
    try ring.send("POST", "/test", cookies: [cookie], form: "csrf=\(csrf)")
    try waitUntil(timeout: 10, "puckd rings the test ring") {
      web.daemon.log.components(separatedBy: "rehearsal: ringing").count > ringsBefore
    }
    let process = try #require(web.process)
    kill(process.processIdentifier, SIGTERM)
    let answer = try ring.response()
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
