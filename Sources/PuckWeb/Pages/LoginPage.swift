/// The login page: one password field. Its form carries a token of its own (the login
/// cookie's), so a page elsewhere cannot log a browser in behind its owner's back.
public enum LoginPage {
  /// Why the last try did not log in, shown above the form.
  public enum Notice: Hashable, Sendable {
    case wrongPassword
    case tooManyTries(seconds: Int)
    case expiredForm
    case noPassword
    case loggedOut
  }

  public static func render(loginToken: String, notice: Notice?) -> HTML {
    let message: HTML?
    switch notice {
    case .wrongPassword?: message = "<p class=\"flash error\" role=\"alert\">Wrong password.</p>"
    case .tooManyTries(let seconds)?:
      message = """
        <p class="flash error" role="alert">Too many wrong passwords from this device: try again in \
        \(seconds) s.</p>
        """
    case .expiredForm?:
      message = "<p class=\"flash error\" role=\"alert\">The form had expired; please try again.</p>"
    case .noPassword?:
      message = """
        <p class="flash error" role="alert">No web password is set. At the dock, run: \
        <code>sudo puckctl web password</code></p>
        """
    case .loggedOut?: message = "<p class=\"flash\" role=\"status\">Logged out.</p>"
    case nil: message = nil
    }
    return Layout.page(
      title: "Log in", place: nil, csrf: nil,
      body: """
        \(message)
        <section>
        <form method="post" action="/login">
        <input type="hidden" name="login" value="\(loginToken)">
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required \
        maxlength="512" autofocus>
        <div class="actions"><button type="submit">Log in</button></div>
        </form>
        </section>
        <p class="muted">The password is set at the dock with <code>sudo puckctl web password</code>.</p>
        """)
  }
}
