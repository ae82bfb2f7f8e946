import FoundationEssentials
import PuckCore
import PuckPassword
import Synchronization
import Testing

@testable import PuckWeb

/// The web app as a browser (and an attacker) meets it, against a scripted dock: the login, the
/// session and its cookie, the CSRF token, the login limit, the routes, and what reaches puckd.
@Suite struct WebAppTests {
  /// The app with its dock and a clock the test moves.
  final class Rig: Sendable {
    let dock = ScriptedDock()
    let passwordBox = PasswordBox()
    let app: WebApp
    let clock = Mutex(WebTime(wall: Instant(unixSeconds: 1_799_990_000), monotonic: .seconds(1000)))

    init(secure: Bool = false) {
      let passwordBox = self.passwordBox
      app = WebApp(
        dock: dock, tokens: CountingTokens(), passwordHash: { passwordBox.value.withLock { $0 } },
        zoneNamed: { _ in (try? ZoneRules(posixTZ: "CET-1CEST,M3.5.0,M10.5.0/3")) ?? .utc }, secure: secure,
        hostNames: HostNames(["Dock.Local."]), log: { _ in })
    }

    var now: WebTime { clock.withLock { $0 } }

    func advance(_ duration: Duration) {
      clock.withLock { $0.monotonic += duration }
    }

    func get(_ path: String, cookie: String? = nil, query: [String: String] = [:]) -> HTTPResponse {
      var headers: [String: String] = ["host": "dock.local:8469"]
      if let cookie { headers["cookie"] = cookie }
      return app.handle(
        HTTPRequest(method: "GET", path: path, query: query, headers: headers, client: "192.0.2.9"), at: now)
    }

    func post(
      _ path: String, _ body: String, cookie: String? = nil, origin: String? = "http://dock.local:8469",
      site: String? = nil, client: String = "192.0.2.9"
    ) -> HTTPResponse {
      var headers: [String: String] = ["host": "dock.local:8469"]
      if let cookie { headers["cookie"] = cookie }
      if let origin { headers["origin"] = origin }
      if let site { headers["sec-fetch-site"] = site }
      return app.handle(
        HTTPRequest(method: "POST", path: path, headers: headers, body: Array(body.utf8), client: client),
        at: now)
    }

    /// Logs in; the session cookie (`puck_session=…`) and the page's CSRF token.
    func logIn() throws -> (cookie: String, csrf: String) {
      let form = get("/login")
      let loginCookie = try #require(form.cookieValue(WebApp.loginCookie))
      let reply = post(
        "/login", "login=\(loginCookie)&password=correct+horse+battery",
        cookie: "\(WebApp.loginCookie)=\(loginCookie)")
      #expect(reply.status == 303)
      let session = try #require(reply.cookieValue(WebApp.sessionCookie))
      let cookie = "\(WebApp.sessionCookie)=\(session)"
      let page = get("/alarms", cookie: cookie)
      return (cookie, try #require(page.bodyText.csrfToken))
    }
  }

  final class PasswordBox: Sendable {
    let value = Mutex<PasswordHash?>(TestPassword.hash)
  }

  @Test("every page and every form without a session goes to the login page, and nothing reaches puckd")
  func noSessionGoesToLogin() {
    let rig = Rig()
    for path in ["/", "/alarms", "/pause", "/nowhere"] {
      let response = rig.get(path, cookie: "puck_session=" + String(repeating: "a", count: 64))
      #expect(response.status == 303, "\(path)")
      #expect(response.header("Location") == "/login", "\(path)")
    }
    for path in ["/alarms/add", "/alarms/1/delete", "/pause", "/resume", "/logout", "/stop"] {
      let response = rig.post(path, "csrf=x&time=06:30")
      #expect(response.status == 303 && response.header("Location") == "/login", "\(path)")
    }
    #expect(rig.dock.requests.isEmpty)
    #expect(rig.get("/style.css").status == 200, "the style sheet needs no session")
  }

  @Test(
    "the login: a wrong password is refused, the right one gives a 256-bit HttpOnly SameSite=Strict cookie")
  func login() throws {
    let rig = Rig()
    let form = rig.get("/login")
    #expect(form.status == 200)
    let loginToken = try #require(form.cookieValue(WebApp.loginCookie))
    #expect(form.bodyText.contains("name=\"login\" value=\"\(loginToken)\""))
    let wrong = rig.post("/login", "login=\(loginToken)&password=wrong", cookie: "puck_login=\(loginToken)")
    #expect(wrong.status == 401)
    #expect(wrong.bodyText.contains("Wrong password"))
    #expect(wrong.cookieValue(WebApp.sessionCookie) == nil)
    let noToken = rig.post("/login", "password=correct+horse+battery", cookie: "puck_login=\(loginToken)")
    #expect(noToken.status == 403, "a login form without its token (login CSRF)")
    let right = rig.post(
      "/login", "login=\(loginToken)&password=correct+horse+battery", cookie: "puck_login=\(loginToken)")
    #expect(right.status == 303)
    let setCookie = try #require(right.headers.first { $0.value.hasPrefix("puck_session=") }?.value)
    #expect(
      setCookie.contains("; HttpOnly") && setCookie.contains("; SameSite=Strict")
        && setCookie.contains("Path=/"))
    #expect(!setCookie.contains("Secure"), "plain HTTP: a Secure cookie would never come back")
    #expect(Token.isWellFormed(try #require(right.cookieValue(WebApp.sessionCookie))))

    let secure = Rig(secure: true)
    let secureForm = secure.get("/login")
    #expect(secureForm.cookieValue(WebApp.loginCookie) == nil, "under HTTPS only the __Host- name is set")
    let secureToken = try #require(secureForm.cookieValue("__Host-puck_login"))
    let secureLogin = secure.app.handle(
      HTTPRequest(
        method: "POST", path: "/login",
        headers: [
          "host": "dock.local", "origin": "https://dock.local", "cookie": "__Host-puck_login=\(secureToken)",
        ],
        body: Array("login=\(secureToken)&password=correct+horse+battery".utf8)), at: secure.now)
    #expect(
      secureLogin.headers.first { $0.value.hasPrefix("__Host-puck_session=") }?.value.hasSuffix("; Secure")
        == true)
    let secureSession = try #require(secureLogin.cookieValue("__Host-puck_session"))
    #expect(secure.get("/", cookie: "__Host-puck_session=\(secureSession)").status == 200)
    // The same value under the plain name, as a page over plain HTTP on another host of the
    // network could set it, is no session under HTTPS.
    #expect(secure.get("/", cookie: "puck_session=\(secureSession)").status == 303)
  }

  @Test(
    "the 20th wrong password in a minute is refused unchecked, even when right; a minute later it is checked")
  func loginLimit() throws {
    let rig = Rig()
    let token = try #require(rig.get("/login").cookieValue(WebApp.loginCookie))
    for attempt in 1...19 {
      let reply = rig.post("/login", "login=\(token)&password=guess\(attempt)", cookie: "puck_login=\(token)")
      #expect(reply.status == 401, "attempt \(attempt)")
      rig.advance(.seconds(1))
    }
    let twentieth = rig.post(
      "/login", "login=\(token)&password=correct+horse+battery", cookie: "puck_login=\(token)")
    #expect(twentieth.status == 429)
    #expect(twentieth.header("Retry-After") != nil)
    #expect(twentieth.cookieValue(WebApp.sessionCookie) == nil)
    let elsewhere = rig.post(
      "/login", "login=\(token)&password=correct+horse+battery", cookie: "puck_login=\(token)",
      client: "192.0.2.50")
    #expect(elsewhere.status == 303, "another device is not locked out")
    rig.advance(.seconds(60))
    let later = rig.post(
      "/login", "login=\(token)&password=correct+horse+battery", cookie: "puck_login=\(token)")
    #expect(later.status == 303)
  }

  @Test("a form without the session's CSRF token, with another session's, or from another site is refused")
  func csrf() throws {
    let rig = Rig()
    let (cookie, csrf) = try rig.logIn()
    let before = rig.dock.requests.count
    #expect(rig.post("/resume", "", cookie: cookie).status == 403)
    #expect(rig.post("/resume", "csrf=" + String(repeating: "0", count: 64), cookie: cookie).status == 403)
    #expect(rig.post("/resume", "csrf=\(csrf)", cookie: cookie, origin: "http://evil.example").status == 403)
    #expect(
      rig.post("/resume", "csrf=\(csrf)", cookie: cookie, origin: "null", site: "cross-site").status == 403)
    #expect(rig.post("/resume", "csrf=\(csrf)", cookie: cookie, origin: nil, site: "same-site").status == 403)
    #expect(rig.dock.requests.count == before, "nothing reached puckd")
    let accepted = rig.post("/resume", "csrf=\(csrf)", cookie: cookie)
    #expect(accepted.status == 303 && accepted.header("Location") == "/pause")
    // A browser's own form under no-referrer: Origin null, Sec-Fetch-Site same-origin.
    let browser = rig.post("/resume", "csrf=\(csrf)", cookie: cookie, origin: "null", site: "same-origin")
    #expect(browser.status == 303)
    #expect(rig.dock.requests.last?.name == .resume)
  }

  @Test(
    "adding an alarm sends alarm.add with the form's time, days, label and puck, and shows puckd's answer")
  func addAlarm() throws {
    let rig = Rig()
    let (cookie, csrf) = try rig.logIn()
    let reply = rig.post(
      "/alarms/add", "csrf=\(csrf)&time=06%3A45&days=mon&days=fri&date=&label=gym&puck=yes", cookie: cookie)
    #expect(reply.status == 303 && reply.header("Location") == "/alarms")
    let sent = try #require(rig.dock.requests.last)
    #expect(sent.name == .alarmAdd)
    #expect(sent.time == WallTime(hour: 6, minute: 45))
    #expect(sent.recurrence == .weekly([.monday, .friday]))
    #expect(sent.label == "gym")
    #expect(sent.requiresPuck == true)
    #expect(rig.get("/alarms", cookie: cookie).bodyText.contains("alarm 1 added"), "the answer, shown once")
    #expect(!rig.get("/alarms", cookie: cookie).bodyText.contains("alarm 1 added"))

    _ = rig.post("/alarms/add", "csrf=\(csrf)&time=07:00&date=2027-01-02&label=", cookie: cookie)
    #expect(rig.dock.requests.last?.recurrence == .once(LocalDate(year: 2027, month: 1, day: 2)))
    #expect(rig.dock.requests.last?.requiresPuck == false, "an unticked box is not sent")
    _ = rig.post("/alarms/add", "csrf=\(csrf)&time=07:00", cookie: cookie)
    #expect(rig.dock.requests.last?.name == .alarmAdd)
    #expect(rig.dock.requests.last?.recurrence == nil, "neither days nor a date: the next 07:00")

    let count = rig.dock.requests.count
    _ = rig.post("/alarms/add", "csrf=\(csrf)&time=7am", cookie: cookie)
    _ = rig.post("/alarms/add", "csrf=\(csrf)&time=07:00&days=mon&date=2027-01-02", cookie: cookie)
    _ = rig.post("/alarms/add", "csrf=\(csrf)&time=07:00&days=someday", cookie: cookie)
    _ = rig.post(
      "/alarms/add", "csrf=\(csrf)&time=07:00&label=" + String(repeating: "x", count: 65), cookie: cookie)
    #expect(rig.dock.requests.count == count, "a form the table refuses is not sent")
    #expect(rig.get("/alarms", cookie: cookie).bodyText.contains("flash error"))
  }

  @Test("enable, disable, skip and delete send their command for the alarm in the path")
  func alarmButtons() throws {
    let rig = Rig()
    let (cookie, csrf) = try rig.logIn()
    let expected: [(String, CommandName)] = [
      ("enable", .alarmEnable), ("disable", .alarmDisable), ("skip", .alarmSkip), ("delete", .alarmRemove),
    ]
    for (verb, name) in expected {
      let reply = rig.post("/alarms/7/\(verb)", "csrf=\(csrf)", cookie: cookie)
      #expect(reply.status == 303)
      #expect(rig.dock.requests.last?.name == name)
      #expect(rig.dock.requests.last?.alarmID == 7)
    }
    #expect(rig.post("/alarms/7/ring", "csrf=\(csrf)", cookie: cookie).status == 404)
    #expect(rig.post("/alarms/x/skip", "csrf=\(csrf)", cookie: cookie).status == 404)
  }

  @Test("an alarm's page edits it whole (days or a date, never neither) and pauses and resumes it alone")
  func editAndPauseOneAlarm() throws {
    let rig = Rig()
    rig.dock.alarms = [
      AlarmView(
        alarm: Alarm(
          id: 4, time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday]), label: "work"),
        next: Instant(unixSeconds: 1_800_000_000), nextLocal: nil)
    ]
    let (cookie, csrf) = try rig.logIn()
    let page = rig.get("/alarms/4", cookie: cookie)
    #expect(page.status == 200)
    #expect(page.bodyText.contains("value=\"06:30\"") && page.bodyText.contains("value=\"work\""))
    #expect(page.bodyText.contains("value=\"mon\" checked"))
    #expect(rig.get("/alarms/9", cookie: cookie).bodyText.contains("There is no alarm 9"))

    let edited = rig.post("/alarms/4/edit", "csrf=\(csrf)&time=07:10&days=sat&label=gym", cookie: cookie)
    #expect(edited.status == 303 && edited.header("Location") == "/alarms/4")
    let sent = try #require(rig.dock.requests.last)
    #expect(sent.name == .alarmEdit && sent.alarmID == 4)
    #expect(
      sent.alarmEdit
        == AlarmEdit(
          time: WallTime(hour: 7, minute: 10), recurrence: .weekly([.saturday]), label: "gym",
          requiresPuck: false))
    let count = rig.dock.requests.count
    _ = rig.post("/alarms/4/edit", "csrf=\(csrf)&time=07:10&label=gym", cookie: cookie)
    #expect(rig.dock.requests.count == count, "neither days nor a date: not sent")

    let paused = rig.post("/alarms/4/pause", "csrf=\(csrf)&until=2027-02-01", cookie: cookie)
    #expect(paused.status == 303 && paused.header("Location") == "/alarms/4")
    #expect(rig.dock.requests.last?.name == .alarmPause)
    #expect(rig.dock.requests.last?.until == .absolute(LocalDate(year: 2027, month: 2, day: 1)))
    _ = rig.post("/alarms/4/resume", "csrf=\(csrf)", cookie: cookie)
    #expect(rig.dock.requests.last?.name == .alarmResume && rig.dock.requests.last?.alarmID == 4)
    let listed = rig.post("/alarms/4/skip", "csrf=\(csrf)", cookie: cookie)
    #expect(listed.header("Location") == "/alarms", "the list's buttons go back to the list")
  }

  /// `count` wake-ups a day apart up to `last`, each got up after `minutes`, with a bypass each.
  static func wakeUps(_ count: Int, last: Instant, minutes: Int64 = 7, label: String = "work")
    -> [HistoryEntry]
  {
    (0..<count).map { index in
      let closed = last.adding(seconds: -Int64(count - 1 - index) * 86_400)
      let alarm = Alarm(
        id: 1, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases)), label: label)
      return HistoryEntry(
        outcome: .woke,
        occurrence: AlarmOccurrence(alarm: alarm, scheduledAt: closed.adding(seconds: -minutes * 60)),
        openedAt: closed.adding(seconds: -minutes * 60), closedAt: closed, bypassCount: 1, rings: 2)
    }
  }

  @Test("history: the newest wake-ups first, a page at a time, the figures drawn as SVG, and the CSV")
  func history() throws {
    let rig = Rig()
    rig.dock.history = Self.wakeUps(45, last: rig.now.wall.adding(seconds: -3600), label: "=cmd|x")
    let (cookie, _) = try rig.logIn()
    let page = rig.get("/history", cookie: cookie)
    #expect(page.status == 200)
    let text = page.bodyText
    #expect(text.contains("45</span> wake-ups in a row"))
    #expect(text.contains("<svg class=\"chart\"") && text.contains("<title id=\"chart-"))
    #expect(text.contains("woke with the puck, 7 min 00 s after the first ring; 1 bypass"))
    // Newest first: the list's entries are the 20 latest, each a day before the one above it.
    let list = try #require(text.components(after: "<ul class=\"plain\" aria-label=\"Wake-ups\">"))
    let shown = list.split(separator: "<li><strong>", omittingEmptySubsequences: false).dropFirst().map {
      $0.prefix { $0 != "<" }
    }
    let time = TimeText(zone: try ZoneRules(posixTZ: "CET-1CEST,M3.5.0,M10.5.0/3"), now: rig.now.wall)
    let newest = rig.dock.history.reversed().prefix(20).map { Substring(time.local($0.closedAt)) }
    #expect(shown.count == 20 && Array(shown) == newest, "\(shown) vs \(newest)")
    #expect(text.contains("href=\"/history?before=25\""), "the cursor of the page before")
    let older = rig.get("/history", cookie: cookie, query: ["before": "25"]).bodyText
    #expect(older.contains("href=\"/history?before=5\"") && !older.contains("<svg"))

    let csv = rig.get("/history.csv", cookie: cookie)
    #expect(csv.status == 200)
    #expect(csv.header("Content-Type") == "text/csv; charset=utf-8")
    #expect(csv.header("Content-Disposition")?.contains("attachment") == true)
    let lines = csv.bodyText.split(separator: "\r\n")
    #expect(lines.count == 46)
    #expect(lines.first.map(String.init) == HistoryCSV.header)
    #expect(csv.bodyText.contains("'=cmd|x"), "a formula-looking label defused")
  }

  @Test("the pre-flight check runs from the status page, and its answer comes back")
  func runTheCheck() throws {
    let rig = Rig()
    let (cookie, csrf) = try rig.logIn()
    rig.dock.check = PreflightReport(
      at: rig.now.wall, trigger: .request, parts: [.init("audio", ok: false, "cannot open <default>")])
    let reply = rig.post("/check", "csrf=\(csrf)", cookie: cookie)
    #expect(reply.status == 303 && reply.header("Location") == "/")
    #expect(rig.dock.requests.last?.name == .check)
    let page = rig.get("/", cookie: cookie).bodyText
    #expect(page.contains("The pre-flight check FAILED: audio: FAILED — cannot open &lt;default&gt;"))
  }

  @Test("a logged-in phone's form to /test, with its session's token, is a 404 and rings nothing")
  func noTestRingFromTheWeb() throws {
    let rig = Rig()
    let (cookie, csrf) = try rig.logIn()
    let page = rig.get("/", cookie: cookie).bodyText
    #expect(!page.contains("action=\"/test\""), "no test-ring button on the status page")
    let ring = rig.post("/test", "csrf=\(csrf)&seconds=3", cookie: cookie)
    #expect(ring.status == 404, "a rehearsal asks the person at the dock, not the phone in bed")
    #expect(!rig.dock.requests.contains { $0.name == .test }, "no test ring reached puckd")
  }

  @Test("the holiday pause sends pause --until, and a refusal comes back as an error on the page")
  func holiday() throws {
    let rig = Rig()
    let (cookie, csrf) = try rig.logIn()
    let reply = rig.post("/pause", "csrf=\(csrf)&until=2027-01-10", cookie: cookie)
    #expect(reply.status == 303 && reply.header("Location") == "/pause")
    #expect(rig.dock.requests.last?.until == .absolute(LocalDate(year: 2027, month: 1, day: 10)))
    let page = rig.get("/pause", cookie: cookie).bodyText
    #expect(page.contains("class=\"flash error\"") && page.contains("a wake-up is open"))
  }

  @Test(
    "no route stops a ring, answers the wake-up check, scans, rings a test, overrides, pairs or manages readers, and send refuses every command not the web's"
  )
  func rootActionsAreNotThere() throws {
    let rig = Rig()
    let (cookie, csrf) = try rig.logIn()
    for path in [
      "/stop", "/override", "/pair", "/unpair", "/reader/add", "/awake", "/scan", "/reload", "/test",
    ] {
      #expect(rig.post(path, "csrf=\(csrf)", cookie: cookie).status == 404, "\(path)")
    }
    let forbidden = CommandName.allCases.filter { !WebApp.allowedCommands.contains($0) }
    // The `web` role's refusals in puckd, and root's commands: none is the web app's either.
    for name in [
      CommandName.stop, .awake, .acknowledge, .scan, .test, .pair, .unpair, .override, .readerAdd,
      .readerRemove, .reload,
    ] {
      #expect(forbidden.contains(name), "\(name.rawValue) is not the web's")
    }
    let before = rig.dock.requests.count
    for name in forbidden {
      guard case .failure(let failure) = rig.app.send(ControlRequest(name)) else {
        Issue.record("\(name.rawValue) was sent")
        continue
      }
      #expect(failure.kind == .permissionDenied)
    }
    #expect(rig.dock.requests.count == before)
    for name in WebApp.allowedCommands {
      #expect(name.spec.role != .root, "\(name.rawValue): the group may send it")
    }
  }

  @Test("after logout the old session cookie no longer works")
  func logout() throws {
    let rig = Rig()
    let (cookie, csrf) = try rig.logIn()
    #expect(rig.get("/", cookie: cookie).status == 200)
    let out = rig.post("/logout", "csrf=\(csrf)", cookie: cookie)
    #expect(out.status == 303 && out.header("Location") == "/login?out=1")
    #expect(out.headers.contains { $0.value.hasPrefix("puck_session=;") && $0.value.contains("Max-Age=0") })
    #expect(rig.get("/", cookie: cookie).status == 303)
    #expect(rig.post("/resume", "csrf=\(csrf)", cookie: cookie).header("Location") == "/login")
  }

  @Test("a new password ends the sessions of the old one; no password set says how to set one")
  func passwordChange() throws {
    let rig = Rig()
    let (cookie, _) = try rig.logIn()
    rig.passwordBox.value.withLock { $0 = try? PasswordHash(hashing: "another password") }
    #expect(rig.get("/", cookie: cookie).status == 303)
    rig.passwordBox.value.withLock { $0 = nil }
    let page = rig.get("/login")
    #expect(page.bodyText.contains("sudo puckctl web password"))
    let token = try #require(page.cookieValue(WebApp.loginCookie))
    #expect(rig.post("/login", "login=\(token)&password=x", cookie: "puck_login=\(token)").status == 503)
  }

  @Test("status shows the verdict, the next alarm in the dock's zone, and puckd's texts escaped")
  func statusPage() throws {
    let rig = Rig()
    let (cookie, _) = try rig.logIn()
    let page = rig.get("/", cookie: cookie)
    #expect(page.status == 200)
    #expect(page.header("Content-Type") == "text/html; charset=utf-8")
    let text = page.bodyText
    #expect(text.contains("Not protected"))
    #expect(text.contains("no tag paired"))
    // 1_800_000_000 is 2027-01-15 08:00 UTC, 09:00 in Berlin (CET).
    #expect(text.contains("Fri 15 Jan, 09:00"))
    #expect(text.contains("&lt;b&gt;no reader&lt;/b&gt;") && !text.contains("<b>no reader"))
    rig.dock.reachable = false
    let down = rig.get("/", cookie: cookie)
    #expect(down.status == 503 && down.bodyText.contains("puckd is not running"))
  }

  @Test(
    "a protected dock with a failed buzzer shows the warning and its next step; an open wake-up, each puck's last scan and the last check are on the page"
  )
  func statusDetails() throws {
    let rig = Rig()
    let (cookie, _) = try rig.logIn()
    var status = ScriptedDock.sampleStatus
    status.protected = true
    status.reasons = []
    status.warnings = [
      .partFailed(
        device: .buzzer, detail: "cannot open GPIO22", next: "wire the buzzer to GPIO22 (hardware/pinmap.md)")
    ]
    let opened = Instant(unixSeconds: 1_799_989_400)
    var wakeUp = GuardView(
      WakeGuard(
        occurrence: AlarmOccurrence(
          alarm: Alarm(
            id: 1, time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday]), label: "work"),
          scheduledAt: opened),
        openedAt: opened, requiresPuck: true))
    wakeUp.description = "06:30 work, retry 2"
    wakeUp.ringing = false
    wakeUp.bypassCount = 2
    wakeUp.retryAt = Instant(unixSeconds: 1_799_990_120)
    status.guards = [wakeUp]
    let tag = try TagUID(bytes: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
    status.pucks = [
      PuckView(
        PairedTag(
          uid: tag, pairedAt: opened, name: "kitchen puck", lastSeen: Instant(unixSeconds: 1_799_900_000))),
      PuckView(PairedTag(uid: tag, pairedAt: opened, name: "spare")),
    ]
    status.check = PreflightReport(
      at: Instant(unixSeconds: 1_799_989_000), trigger: .start,
      parts: [
        .init("reader", ok: true, "PN532 v1.6"),
        .init("buzzer", ok: false, "cannot open GPIO22", severity: .warning),
      ])
    rig.dock.status = status

    let text = rig.get("/", cookie: cookie).bodyText
    #expect(text.contains("Protected, with a warning"))
    #expect(text.contains("buzzer FAILED (the alarm rings on the audio alone): cannot open GPIO22"))
    #expect(text.contains("Next: wire the buzzer to GPIO22"))
    #expect(text.contains("Wake-up: 06:30 work, retry 2"))
    #expect(text.contains("rings again in 2 min"), "the retry, relative to the dock's now")
    #expect(text.contains("Bypassed 2 times"))
    #expect(text.contains("it cannot be stopped from here"))
    #expect(!text.contains("action=\"/stop\""), "no stop button on the page")
    // 1_799_900_000 is 2027-01-14 04:13:20 UTC, 05:13:20 in Berlin.
    #expect(text.contains("kitchen puck (…:33:44)") && text.contains("last seen Thu 14 Jan, 05:13:20"))
    #expect(text.contains("spare (…:33:44)") && text.contains("not seen since pairing"))
    #expect(text.contains("Last check</strong>: <span class=\"warn\">passed with a warning</span>"))
    #expect(text.contains("buzzer: FAILED — cannot open GPIO22"))

    status.warnings = []
    rig.dock.status = status
    let plain = rig.get("/", cookie: cookie).bodyText
    #expect(plain.contains(">Protected</p>") && !plain.contains("Protected, with a warning"))
  }

  @Test("a label with a script is text in the alarm list")
  func labelIsEscaped() throws {
    let rig = Rig()
    rig.dock.alarms = [
      AlarmView(
        alarm: Alarm(
          id: 3, time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday]),
          label: "<script>alert(1)</script>"),
        next: Instant(unixSeconds: 1_800_000_000), nextLocal: nil)
    ]
    let (cookie, _) = try rig.logIn()
    let text = rig.get("/alarms", cookie: cookie).bodyText
    #expect(!text.contains("<script>"))
    #expect(text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
  }

  @Test(
    "the manifest, the icon and the script are the dock's own, served without a session; only status loads the script"
  )
  func assets() throws {
    let rig = Rig()
    let manifest = rig.get("/manifest.webmanifest")
    #expect(manifest.status == 200 && manifest.header("Content-Type") == "application/manifest+json")
    #expect(
      manifest.bodyText.contains("\"start_url\": \"/\"")
        && manifest.bodyText.contains("\"display\": \"standalone\""))
    #expect(!manifest.bodyText.contains("http"), "no address of another origin")
    let icon = rig.get("/icon.svg")
    #expect(
      icon.status == 200 && icon.header("Content-Type") == "image/svg+xml" && icon.bodyText.hasPrefix("<svg"))
    let script = rig.get("/app.js")
    #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
    #expect(!script.bodyText.contains("eval(") && !script.bodyText.contains("innerHTML"))
    let (cookie, _) = try rig.logIn()
    let status = rig.get("/", cookie: cookie).bodyText
    #expect(status.contains("<script src=\"/app.js?v=") && status.contains("data-in=\""))
    #expect(status.contains("<link rel=\"manifest\" href=\"/manifest.webmanifest\">"))
    #expect(!status.contains("<script>"), "no inline script")
    #expect(!rig.get("/alarms", cookie: cookie).bodyText.contains("<script"))
  }

  /// The manifest's icons as a browser reads them.
  private struct Manifest: Decodable {
    struct Icon: Decodable {
      var src: String
      var sizes: String
      var type: String
      var purpose: String
    }
    var icons: [Icon]
  }

  /// A PNG's width and height from its IHDR chunk, which must come first; nil when it is not
  /// a PNG.
  private static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8)
    else { return nil }
    func number(at offset: Int) -> Int {
      bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }
    return (number(at: 16), number(at: 20))
  }

  @Test(
    "every icon of the manifest, and the apple-touch-icon, is served as its type, cacheable, a PNG of the size it declares"
  )
  func installableIcons() throws {
    let rig = Rig()
    let manifest = try JSONDecoder().decode(Manifest.self, from: Data(rig.get("/manifest.webmanifest").body))
    let pngs = manifest.icons.filter { $0.type == "image/png" }
    #expect(Set(pngs.map(\.sizes)) == ["192x192", "512x512"], "the sizes an Android install asks for")
    #expect(pngs.contains { $0.purpose == "maskable" }, "a maskable icon")
    for icon in manifest.icons {
      let response = rig.get(icon.src)
      #expect(response.status == 200, "\(icon.src)")
      #expect(response.header("Content-Type") == icon.type, "\(icon.src)")
      #expect(response.header("Cache-Control") == "public, max-age=604800", "\(icon.src)")
      if icon.type == "image/png" {
        let size = try #require(Self.pngSize(response.body), "\(icon.src) is a PNG")
        #expect("\(size.width)x\(size.height)" == icon.sizes, "\(icon.src)")
      } else {
        #expect(icon.type == "image/svg+xml" && icon.sizes == "any" && response.bodyText.hasPrefix("<svg"))
      }
    }
    // iOS takes no SVG and no manifest icon: the page's apple-touch-icon, 180 px.
    let page = rig.get("/login").bodyText
    #expect(page.contains("<link rel=\"apple-touch-icon\" href=\"/apple-touch-icon.png\">"))
    let touch = rig.get("/apple-touch-icon.png")
    #expect(touch.status == 200 && touch.header("Content-Type") == "image/png")
    let size = try #require(Self.pngSize(touch.body))
    #expect(size.width == 180 && size.height == 180)
    #expect(rig.get("/icon-1024.png").status == 303, "no other file is served without a session")
  }

  @Test("only GET, HEAD and POST; HEAD is answered as GET")
  func methods() {
    let rig = Rig()
    let put = rig.app.handle(HTTPRequest(method: "PUT", path: "/"), at: rig.now)
    #expect(put.status == 405 && put.header("Allow") == "GET, HEAD, POST")
    #expect(rig.app.handle(HTTPRequest(method: "HEAD", path: "/login"), at: rig.now).status == 200)
  }

  @Test("every response carries a strict CSP, nosniff, no referrer and no framing")
  func securityHeaders() {
    let headers = Dictionary(uniqueKeysWithValues: HTTPResponse.securityHeaders.map { ($0.name, $0.value) })
    let policy = headers["Content-Security-Policy"] ?? ""
    #expect(policy.contains("default-src 'none'"))
    #expect(policy.contains("frame-ancestors 'none'"))
    #expect(
      policy.contains("script-src 'self'") && !policy.contains("unsafe-inline")
        && !policy.contains("unsafe-eval"))
    #expect(policy.contains("form-action 'self'"))
    #expect(headers["X-Content-Type-Options"] == "nosniff")
    #expect(headers["Referrer-Policy"] == "no-referrer")
  }

  @Test("the status page's own refresh is not use: a tab left open does not keep its session alive")
  func refreshIsNotUse() throws {
    let rig = Rig()
    let (cookie, _) = try rig.logIn()
    func refresh() -> HTTPResponse {
      rig.app.handle(
        HTTPRequest(
          method: "GET", path: "/",
          headers: ["host": "dock.local:8469", "cookie": cookie, "x-puck-refresh": "1"], client: "192.0.2.9"),
        at: rig.now)
    }
    // Refreshed every half day for more than the idle limit: still answered until then, then
    // the login page.
    var answered = 0
    while (answered + 1) * 12 * 3600 < Int(SessionStore.idleLimit.components.seconds) {
      rig.advance(.seconds(12 * 3600))
      #expect(refresh().status == 200)
      answered += 1
    }
    rig.advance(.seconds(12 * 3600))  // a week since the login, the last use
    #expect(refresh().status == 303, "the session lapsed though the page kept refreshing")
    // A person's own visits do keep it.
    let (other, _) = try rig.logIn()
    for _ in 0..<10 {
      rig.advance(.seconds(24 * 3600))
      #expect(rig.get("/", cookie: other).status == 200)
    }
  }

  @Test(
    "a request for a name the dock does not answer to is refused before any route, the login included (DNS rebinding)"
  )
  func foreignHostRefused() {
    let rig = Rig()
    // A page of another site whose name now points at the dock: to the browser, same origin.
    for path in ["/login", "/", "/style.css"] {
      let reply = rig.app.handle(
        HTTPRequest(method: "GET", path: path, headers: ["host": "evil.example:8469"], client: "192.0.2.9"),
        at: rig.now)
      #expect(reply.status == 421, "\(path): \(reply.status)")
      #expect(reply.cookieValue(WebApp.loginCookie) == nil, "\(path): no login token for it")
    }
    let login = rig.app.handle(
      HTTPRequest(
        method: "POST", path: "/login",
        headers: [
          "host": "evil.example", "origin": "http://evil.example",
          "cookie": "puck_login=\(String(repeating: "a", count: 64))",
        ],
        body: Array("login=\(String(repeating: "a", count: 64))&password=correct+horse+battery".utf8),
        client: "192.0.2.9"),
      at: rig.now)
    #expect(login.status == 421 && login.cookieValue(WebApp.sessionCookie) == nil)
    // Its own names, in any case and with a final dot; IP literals; localhost; no Host at all.
    for host in [
      "dock.local:8469", "DOCK.local", "dock.local.:8469", "192.168.1.20:8469", "[fd00::20]:8469",
      "localhost:8469", "127.0.0.1",
    ] {
      let reply = rig.app.handle(
        HTTPRequest(method: "GET", path: "/login", headers: ["host": host], client: "192.0.2.9"), at: rig.now)
      #expect(reply.status == 200, "\(host): \(reply.status)")
    }
    let bare = rig.app.handle(
      HTTPRequest(method: "GET", path: "/login", headers: [:], client: "192.0.2.9"), at: rig.now)
    #expect(bare.status == 200)
    // A name that only starts like the dock's, or an address-looking name, is not the dock.
    for host in ["dock.local.evil.example", "192.168.1.20.evil.example", "[evil]:80", "dock.localx"] {
      #expect(!HostNames(["dock.local"]).allows(host), "\(host)")
    }
  }

  @Test(
    "an alarm locked in the hour before it says so on the alarms page, with when it rings and what ends it")
  func lockedAlarmIsShown() throws {
    let rig = Rig()
    let (cookie, _) = try rig.logIn()
    let at = rig.now.wall.adding(seconds: 1800)
    let alarm = Alarm(id: 1, time: WallTime(hour: 6, minute: 0), recurrence: .weekly(Set(Weekday.allCases)))
    rig.dock.alarms = [AlarmView(alarm: alarm, next: at, nextLocal: nil)]
    #expect(!rig.get("/alarms", cookie: cookie).bodyText.contains("locked until"))
    rig.dock.alarms = [AlarmView(alarm: alarm, next: at, nextLocal: nil, lockedUntil: at)]
    let page = rig.get("/alarms", cookie: cookie).bodyText
    #expect(page.contains("locked until it rings at"), "\(page)")
    #expect(page.contains("Scan the puck"))
  }
}

extension HTTPResponse {
  var bodyText: String { String(decoding: body, as: UTF8.self) }

  /// The value a `Set-Cookie` header of this response gives cookie `name`.
  func cookieValue(_ name: String) -> String? {
    for header in headers where header.name == "Set-Cookie" && header.value.hasPrefix(name + "=") {
      let value = header.value.dropFirst(name.count + 1).prefix { $0 != ";" }
      return value.isEmpty ? nil : String(value)
    }
    return nil
  }
}

extension String {
  /// The first CSRF token a page's forms carry.
  var csrfToken: String? {
    let marker = "name=\"csrf\" value=\""
    guard let start = components(after: marker) else { return nil }
    return String(start.prefix(64))
  }

  /// The text after the first `marker`.
  func components(after marker: String) -> Substring? {
    var index = startIndex
    while index < endIndex {
      if self[index...].hasPrefix(marker) { return self[self.index(index, offsetBy: marker.count)...] }
      index = self.index(after: index)
    }
    return nil
  }
}
